"""Search profiles (engine/profiles.py): an answer without a game searches with the analysis profile,
a game's move with the defaults, and explicit params win over either."""

import pytest

from engine import analyse, cache_key, profiles
from engine.game_memory import GameMemory
from engine.params import DEFAULTS, INDEX

FEN = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"


def _search(**kwargs):
    r = analyse(FEN, depth=8, hash_mb=16, **kwargs)
    return r.nodes, r.best_move, r.score.uci()


def test_the_analysis_profile_differs_from_the_defaults():
    assert profiles.ANALYSIS
    for name, value in profiles.ANALYSIS.items():
        assert value != DEFAULTS[INDEX[name]], name
    assert profiles.GAME == {}


def test_without_a_game_the_analysis_profile_is_searched():
    plain = _search()
    assert plain == _search(profile="analysis")
    assert plain == _search(profile="game", params=dict(profiles.ANALYSIS))
    assert plain != _search(profile="game")  # the profile changes the search: same depth, other nodes


def test_a_game_searches_with_the_defaults():
    from engine.board import Board

    game = GameMemory()
    in_game = analyse(board=Board(FEN), depth=8, hash_mb=16, game=game)
    assert (in_game.nodes, in_game.best_move) == _search(profile="game")[:2]


def test_params_win_over_the_profile():
    defaults = {name: DEFAULTS[INDEX[name]] for name in profiles.ANALYSIS}
    assert _search(params=defaults) == _search(profile="game")


def test_an_unknown_profile_is_refused_by_name():
    with pytest.raises(ValueError, match="profile: 'blitz' is not one of analysis, game"):
        analyse(FEN, depth=1, profile="blitz")


def test_the_cache_key_names_the_analysis_profile(monkeypatch):
    before = cache_key.engine_id()
    monkeypatch.setattr(profiles, "ANALYSIS", {"RfpMargin": 123})
    monkeypatch.setattr(cache_key, "_ENGINE_ID", None)
    assert cache_key.engine_id() != before
