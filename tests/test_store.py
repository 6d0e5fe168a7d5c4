"""The game store (training/store.py): games in, the very positions gen recorded out; chunks that are
immutable, checked and self-describing; a journal that survives a kill; `store count` and `store commit`."""

import subprocess

import numpy as np
import pytest

from engine.board import Board
from engine.layout import F_KING_CASTLE
from training import gen, records, store
from training.__main__ import main

BOOK = [line for line in gen.BOOK.read_text().splitlines() if line.strip()]
PROVENANCE = {"run": "test", "command": "pytest"}


@pytest.fixture(scope="module")
def played():
    """Four games of gen's own player at 300 nodes a move (one from a Chess960 start): each game as the
    store keeps it and the records gen made of it."""
    player = gen.Player(300, 1200)
    out = [player.game(11, g, BOOK) for g in range(3)]
    out.append(player.game(11, 3, BOOK, chess960=1.0))
    assert out[-1][0].chess960
    return [(g, r) for g, r, _ in out]


def test_positions_read_back_from_a_chunk_are_exactly_those_gen_recorded(played, tmp_path):
    path = tmp_path / "c.kgs"
    path.write_bytes(store.encode([g for g, _ in played], PROVENANCE))
    want = np.concatenate([r for _, r in played])
    got = store.read_chunk(path)
    assert len(got) == len(want) > 50 and np.array_equal(got, want)
    assert store.read_header(path)["positions"] == len(want)
    # And the games themselves: every move, every score, the result and the end.
    assert store.read_games(path) == [g for g, _ in played]


def test_the_other_filters_read_every_searched_position(played, tmp_path):
    path = tmp_path / "c.kgs"
    path.write_bytes(store.encode([g for g, _ in played], PROVENANCE))
    every = store.read_chunk(path, store.EVERY)
    assert len(every) == sum(len(g.scores) for g, _ in played) > len(store.read_chunk(path))
    in_check = 0
    for rec in every:
        board = Board(_fen(rec))
        in_check += board.in_check()
    assert in_check > 0  # today's filter leaves these out; EVERY keeps them


def _fen(rec):
    from engine.fen import format_fen

    return format_fen(records.unpack_board(rec), int(rec["stm"]), 0, -1, 0, 1)


def test_a_move_is_stored_by_its_rank_so_that_castling_and_a_king_move_on_the_same_squares_stay_apart(tmp_path):
    # Chess960 rights with the king on f1 and the rook on h1: castling takes the king f1-g1 (the rook to f1),
    # and so does the king's plain step. Both must come back as themselves.
    board = Board("4k3/8/8/8/8/8/8/5K1R w H - 0 1", chess960=True)
    moves = board.legal_moves()
    f1g1 = [m for m in moves if (m & 63, (m >> 6) & 63) == (5, 6)]
    assert len(f1g1) == 2 and any((m >> 12) == F_KING_CASTLE for m in f1g1)
    games = [store.Game(g, board.fen(shredder=True), True, 1, [m], [], 1, store.END_PLY_LIMIT)
             for g, m in enumerate(moves)]
    path = tmp_path / "c.kgs"
    path.write_bytes(store.encode(games, PROVENANCE))
    assert store.read_games(path) == games


def test_a_chunk_names_what_is_wrong_with_it(played, tmp_path):
    data = store.encode([g for g, _ in played], PROVENANCE)
    with pytest.raises(store.StoreError, match="not a game-store chunk"):
        store.decode(b"PK" + data[2:])
    header, _ = store.decode(data)
    # A flipped byte in the last column (the scores): its hash no longer matches, or it no longer decompresses.
    bad = bytearray(data)
    bad[-3] ^= 0x40
    with pytest.raises(store.StoreError, match="column score"):
        store.decode(bytes(bad))
    with pytest.raises(store.StoreError, match="bytes past its last column"):
        store.decode(data + b"\0")
    with pytest.raises(store.StoreError, match="not legal"):
        store.encode([store.Game(0, played[0][0].fen, False, 1, [0], [], 1, 0)], PROVENANCE)


def test_a_journal_keeps_whole_games_through_a_kill_and_a_chunk_is_sealed_once(played, tmp_path):
    journal = store.Journal(tmp_path / "journal" / "w0of1.bin")
    for g, r in played[:2]:
        journal.append(g, r)
    with open(journal.path, "ab") as f:  # killed mid-way through the third game's write
        f.write(b"\x02\0\0\0\x99\x99")
    again = store.Journal(journal.path)
    assert again.games == [g for g, _ in played[:2]] and np.array_equal(np.concatenate(again.recs),
                                                                        np.concatenate([r for _, r in played[:2]]))
    path = store.seal(again, tmp_path / "run", "run-w0of1-g0000000.kgs", PROVENANCE)
    assert store.Journal(journal.path).games == []  # emptied once sealed
    assert store.read_header(path)["provenance"]["command"] == "pytest"
    for g, r in played[:2]:
        again.append(g, r)
    with pytest.raises(store.StoreError, match="already sealed"):
        store.seal(again, tmp_path / "run", "run-w0of1-g0000000.kgs", PROVENANCE)


def test_a_seal_that_does_not_read_back_as_recorded_writes_nothing(played, tmp_path):
    journal = store.Journal(tmp_path / "journal" / "w0of1.bin")
    g, r = played[0]
    wrong = r.copy()
    wrong["score"][0] += 1  # gen recorded something the games do not say
    journal.append(g, wrong)
    with pytest.raises(store.StoreError, match="does not read back"):
        store.seal(journal, tmp_path / "run", "x.kgs", PROVENANCE)
    assert not (tmp_path / "run" / "x.kgs").exists() and len(store.Journal(journal.path).games) == 1


@pytest.mark.slow
def test_gen_resumes_into_the_store_and_count_and_commit_read_it(tmp_path, capsys):
    repo = tmp_path / "repo"
    folder = repo / "training" / "games"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    gen.run("g1", store_dir=folder, seed=4, workers=0, nodes=300, games=3, chunk_games=2)
    gen.run("g1", store_dir=folder, seed=4, workers=0, nodes=300, games=5, chunk_games=2)
    names = [c.name for c in store.chunks(folder)]
    assert names == ["g1-w0of1-g0000000.kgs", "g1-w0of1-g0000002.kgs", "g1-w0of1-g0000003.kgs"]
    recs = store.load(folder)
    assert sorted(set(recs["game"].tolist())) == [0, 1, 2, 3, 4]
    capsys.readouterr()
    main(["store", "count", str(folder)])
    out = capsys.readouterr().out
    assert out.startswith("run") and out.splitlines()[1].split()[:5] == ["g1", "3", "5", str(sum(
        len(g.moves) for c in store.chunks(folder) for g in store.read_games(c))), str(len(recs))]
    (folder / "g1" / "journal" / "w0of1.bin").write_bytes(b"")  # a journal is never committed
    subprocess.run(["git", "-C", str(repo), "config", "user.name", "t"], check=True)
    subprocess.run(["git", "-C", str(repo), "config", "user.email", "t@t"], check=True)
    main(["store", "commit", str(folder)])
    message = capsys.readouterr().out
    assert f"+{len(recs):,} positions in 3 chunks" in message
    tracked = subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True).stdout.split()
    assert sorted(tracked) == sorted(f"training/games/g1/{n}" for n in names)
    main(["store", "commit", str(folder)])
    assert "no new chunks" in capsys.readouterr().out


@pytest.mark.slow
def test_a_worker_seals_a_chunk_once_its_games_have_taken_long_enough(tmp_path):
    gen.run("g2", store_dir=tmp_path, seed=4, workers=0, nodes=300, games=2, chunk_games=1000, seal_minutes=0)
    assert [c.name for c in store.chunks(tmp_path)] == ["g2-w0of1-g0000000.kgs", "g2-w0of1-g0000001.kgs"]
