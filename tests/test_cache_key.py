"""The analysis cache's key (engine/cache_key.py): what changes the answer changes the key, what does
not, does not."""

from engine import cache_key
from engine.board import Board
from engine.fen import STARTPOS


def key(fen, moves=()):
    return cache_key.key(Board.from_moves(fen, moves))


def test_same_pieces_but_different_castling_side_or_en_passant_are_different_entries():
    base = "r3k2r/pppq1ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 0 8"
    no_castling = base.replace("KQkq", "Kkq")
    other_side = base.replace(" w ", " b ")
    assert len({key(base), key(no_castling), key(other_side)}) == 3
    # en passant: the same pieces after 1. e4 ... d5 2. e5 f5, with and without the legal capture exf6
    with_ep = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    without = with_ep.replace(" f6 ", " - ")
    assert key(with_ep) != key(without)


def test_an_en_passant_square_no_pawn_can_take_on_changes_nothing():
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"  # no black pawn next to e4
    assert key(after_e4) == key(after_e4.replace(" e3 ", " - ")) == key(STARTPOS, ["e2e4"])
    assert key(after_e4).split()[4] == "-"


def test_move_orders_and_clocks_below_fifty_share_an_entry_and_the_fullmove_number_is_left_out():
    # 1. Nf3 Nf6 2. Nc3 Nc6 and 1. Nc3 Nc6 2. Nf3 Nf6: the same position, the same reversible history?
    # No: the earlier positions differ, and the search may return to them: different keys.
    a = key(STARTPOS, ["g1f3", "g8f6", "b1c3", "b8c6"])
    b = key(STARTPOS, ["b1c3", "b8c6", "g1f3", "g8f6"])
    assert a != b
    # After a pawn move the history before it cannot come back: the same key whatever came before.
    c = key(STARTPOS, ["g1f3", "g8f6", "b1c3", "b8c6", "e2e4"])
    d = key(STARTPOS, ["b1c3", "b8c6", "g1f3", "g8f6", "e2e4"])
    assert c == d
    fen = Board.from_moves(STARTPOS, ["g1f3", "g8f6", "b1c3", "b8c6", "e2e4"]).fen()
    assert key(fen) == c  # given as a bare FEN (clock 0): no history either
    moved = fen.split()
    assert key(" ".join(moved[:4] + ["12", "40"])) == key(" ".join(moved[:4] + ["0", "7"]))  # clocks below 50


def test_the_clock_from_fifty_on_and_the_repetition_history_are_in_the_key():
    fen = "8/5k2/8/8/8/2R5/5K2/8 w - - {} 70"
    assert key(fen.format(49)) == key(fen.format(3))
    assert key(fen.format(50)) != key(fen.format(51)) and "h50" in key(fen.format(50)).split()
    shuffled = key(STARTPOS, ["g1f3", "g8f6", "f3g1", "f6g8"])  # back at the start, with a history
    assert shuffled != key(STARTPOS) and shuffled.split()[-1].startswith("r")
    assert key(STARTPOS).split()[1:] == STARTPOS.split()[:4]


def test_clock_safe():
    assert cache_key.clock_safe(0, 99) and not cache_key.clock_safe(10, 90)
    assert cache_key.clock_safe(49, 50) and not cache_key.clock_safe(49, 51)
    assert cache_key.clock_safe(50, 120)  # the clock is in the key from 50 on


def test_the_engine_is_in_the_key():
    from engine import __version__, profiles
    from engine.bench import SIGNATURE

    assert key(STARTPOS).startswith(f"{__version__}/{SIGNATURE}.{profiles.fingerprint()}/")


def test_the_variant_is_part_of_the_key():
    standard = cache_key.key(Board(STARTPOS))
    as_960 = cache_key.key(Board(STARTPOS, chess960=True))  # Chess960 start 518: castling is written e1h1
    assert as_960 == standard + " chess960"
    fen = "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1"
    assert cache_key.key(Board(fen, chess960=True)) == cache_key.key(Board(fen.replace("KQkq", "HEhe"), chess960=True))
