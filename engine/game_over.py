"""When the game is over, and the result it ends in: checkmate, stalemate and the draws by rule."""

from engine.layout import BISHOP, KING, KNIGHT

REASONS = ("checkmate", "stalemate", "insufficient material", "fifty-move rule", "threefold repetition")


def reason(board, claim_draws=True):
    """Why the game is over in this position (one of REASONS), or None. claim_draws=False: only mate
    and stalemate end it (a UCI engine plays on; the GUI claims draws)."""
    if not board.legal_moves():
        return "checkmate" if board.in_check() else "stalemate"
    if not claim_draws:
        return None
    if insufficient_material(board):
        return "insufficient material"
    if board.halfmove_clock >= 100:
        return "fifty-move rule"
    if repetitions(board) >= 3:
        return "threefold repetition"
    return None


def result(reason, side_to_move):
    """The game's result as PGN writes it ("1-0", "0-1", "1/2-1/2") for a position that ended it with
    `reason` ("white" or "black" to move), or None while the game goes on."""
    if reason is None:
        return None
    if reason == "checkmate":
        return "0-1" if side_to_move == "white" else "1-0"
    return "1/2-1/2"


def insufficient_material(board):
    """Neither side can ever mate: K v K, K+minor v K, or kings and bishops all on one square colour."""
    pieces = [(sq, p & 7) for sq in range(64) if (p := board.piece_at(sq)) and p & 7 != KING]
    if any(t not in (KNIGHT, BISHOP) for _, t in pieces):
        return False
    if len(pieces) <= 1:
        return True
    if all(t == BISHOP for _, t in pieces):
        colours = {((sq >> 3) + (sq & 7)) & 1 for sq, _ in pieces}
        return len(colours) == 1
    return False


def repetitions(board):
    """How many times the current position has occurred (itself included) since the last irreversible move."""
    return count_repetitions(board.keys, board.ply, board.halfmove_clock)


def count_repetitions(keys, ply, halfmove_clock):
    """repetitions() on the position arrays: how many times keys[ply] occurs among the positions of the same
    side to move since the last irreversible move. Plain loops, so that self-play's compiled games
    (training/selfplay.py) run this same rule under numba."""
    key = keys[ply]
    count = 1
    i = 4
    while i <= min(halfmove_clock, ply):
        if keys[ply - i] == key:
            count += 1
        i += 2
    return count
