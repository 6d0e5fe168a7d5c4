"""The analysis cache's key: a canonical string of everything about a position that can change what
a search of it answers, and nothing else, so that the same position asked twice (a game's opening,
a puzzle) finds the same entry.

    key(Board.from_moves(STARTPOS, ["e2e4", "c7c5"]))
    # '0.1.0/4923858.<profile>/<zobrist>.tb rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -'
    # (no en-passant square: no white pawn can take on c6; no history: the last move was a pawn's)

What is in it, and why:
  - the engine: its version, its bench signature (any change to search or evaluation changes it), the
    analysis profile's fingerprint (engine/profiles.py: the parameters an answer searches with) and
    the start position's Zobrist key (the history digest below is made of Zobrist keys), so an entry
    another engine wrote is never read; and ".tb" when the endgame tables are on (the default: a
    search that reaches four pieces scores them by the tables), so an answer searched without them is
    never served to a request with them, nor the other way round;
  - the pieces, the side to move and the castling rights, as FEN writes them (X-FEN), and "chess960"
    for a Chess960 position (its answer writes castling king-to-rook);
  - the en-passant square only when an en-passant capture is legal (as Board.fen() writes it): a
    square no pawn can take on changes no move and no answer;
  - the halfmove clock, from CLOCK_IN_KEY_FROM (50) on. The clock matters to a search only through
    the fifty-move rule, which a line of `seldepth` plies from a position with clock c reaches when
    c + seldepth >= 100. Below 50 the key leaves the clock out, and the cache keeps and serves only
    analyses that cannot have reached the rule: clock_safe(clock, seldepth);
  - the repetition history: the search scores a return to any earlier position since the last
    irreversible move as a draw, game history included, so the Zobrist keys of the positions within
    the halfmove clock (at most `clock` plies back) are digested into the key. A position with no
    such history (clock 0, or given as a bare FEN) has no digest.

The fullmove number changes nothing and is left out. Positions the rules end (mate, stalemate, a
claimable draw) are answered without a search and never reach the cache.

An analysis searched with a game's table kept from the positions before it (an S3 job's chunk, issue
69.2: engine.game_memory) is not what a search of the position alone answers: its key ends in
GAME_TABLE, so it serves only other searches made the same way (docs/cache.md says why).
"""

import hashlib

import numpy as np

CLOCK_IN_KEY_FROM = 50
GAME_TABLE = "game-table"
FIFTY_MOVE_PLIES = 100


def engine_id(tablebases=True):
    """Version / bench signature.analysis profile / Zobrist fingerprint of this engine, + ".tb" with the
    endgame tables on."""
    global _ENGINE_ID
    if _ENGINE_ID is None:
        from engine import __version__, profiles
        from engine.bench import SIGNATURE
        from engine.board import Board

        _ENGINE_ID = f"{__version__}/{SIGNATURE}.{profiles.fingerprint()}/{Board().key & 0xFFFFFFFF:08x}"
    return _ENGINE_ID + ".tb" if tablebases else _ENGINE_ID


_ENGINE_ID = None


def history_keys(board):
    """Zobrist keys of the earlier positions a search could return to: those within the halfmove clock."""
    back = min(board.halfmove_clock, board.ply)
    return board.keys[board.ply - back:board.ply]


def key(board, tablebases=True, game_table=False):
    """The cache key of an engine.board.Board (with its game history), searched with the endgame tables on
    or off (engine.analyse()'s `tablebases`). game_table: the search keeps the game's table from its earlier
    positions."""
    board_field, side, castling, ep = board.fen().split()[:4]
    parts = [engine_id(tablebases), board_field, side, castling, ep]
    if board.chess960:
        parts.append("chess960")
    if board.halfmove_clock >= CLOCK_IN_KEY_FROM:
        parts.append(f"h{board.halfmove_clock}")
    history = history_keys(board)
    if len(history):
        parts.append("r" + hashlib.blake2b(np.ascontiguousarray(history, np.uint64).tobytes(),
                                           digest_size=8).hexdigest())
    if game_table:
        parts.append(GAME_TABLE)
    return " ".join(parts)


def clock_safe(clock, seldepth):
    """Whether an analysis of `seldepth` plies is the same whatever the halfmove clock below 50: true when
    the clock is in the key, or when no line it searched could have reached the fifty-move rule."""
    return clock >= CLOCK_IN_KEY_FROM or clock + seldepth < FIFTY_MOVE_PLIES
