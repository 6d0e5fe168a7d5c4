"""Reasons made from the engine's own lines and static exchange, never from anything the line does not
show.

    explain_line(board, score, pv)                      # why a line is what it is, for its first mover
    explain_move(board, move, best, reply)              # why a played move is worse than the best one
    explain_threat(board, score, pv)                    # what the opponent threatens (a null-move line)

board: an engine.board.Board (left unchanged); score: an engine.result.Score from the side to move; pv:
UCI moves. best: (score, pv) of the position before the move; reply: (score, pv) of the position after
it (score from the opponent's side, as the engine gives it).

Material is counted along the line (pawn 1, knight and bishop 3, rook 5, queen 9), captures of equal
value cancelled pairwise, plus what the side to move at the line's end wins at once by static exchange
(engine/coach/board_facts.py). A piece is named only when the line captures it; a fork, pin or skewer
only when a position of the line shows the double attack, the pinned piece or the piece behind, and the
line then takes that piece.
"""

from engine.coach import board_facts as bf
from engine.coach.line import on, piece_name, walk
from engine.coach.reason import Reason
from engine.fen import square_name
from engine.layout import BISHOP, EMPTY, KING, KNIGHT, QUEEN, ROOK

MATERIAL_MIN = 1  # pawns: less than this along a line is not a material reason
MINORS = (KNIGHT, BISHOP)


# --- the pieces a side wins along a walk ---------------------------------------------------------
def _items(w, winner):
    """(value, kind, ply) of what `winner` gains along walk w that the other side does not win back:
    captures ("capture") and promotions that survive ("promotion"); captures of equal value cancel."""
    mine, theirs, promoted = [], [], {}
    for p in w.plies:
        if p.side == winner and p.promotion:
            promoted[p.to] = p
        if p.captured:
            value = bf.VALUE[bf.kind(p.captured)]
            if p.side != winner and p.captured_sq in promoted:
                value = 1  # it takes back the promoted piece: what was lost is the pawn
                del promoted[p.captured_sq]
            elif p.side == winner and p.captured_sq in promoted:
                del promoted[p.captured_sq]
            (mine if p.side == winner else theirs).append((value, p))
        if p.side == winner and p.frm in promoted and not p.promotion:  # the promoted piece moves on
            promoted[p.to] = promoted.pop(p.frm)
    end_side = (w.side + len(w.plies)) & 1
    if w.pending_sq is not None and end_side != winner:
        # the other side takes back at once at the line's end (a queen taken with check, recaptured): that
        # piece nets against what `winner` took, so a trade is not named as a piece won
        end = w.plies[-1].after if w.plies else w.start
        taken = bf.VALUE[bf.kind(end[w.pending_sq])]
        if w.pending >= taken:
            theirs.append((taken, None))
    left_theirs = []
    for value, p in theirs:
        order = mine if p is not None else mine[::-1]  # the pending recapture nets against the latest capture
        match = next((item for item in order if item[0] == value), None)
        if match is not None:
            mine.remove(match)
        else:
            if p is not None:
                left_theirs.append((value, p))
    items = [(v, "capture", p) for v, p in mine]
    items += [(bf.VALUE[p.promotion] - 1, "promotion", p) for p in promoted.values()]
    items.sort(key=lambda item: (-item[0], item[1] != "capture", item[2].index))
    return items, left_theirs


def _tactic(w, winner, ply):
    """A fork, skewer or pin by `winner` that the walk shows before it takes at `ply`: (kind, ply that
    sets it up, [(piece, square), ...] the pieces it names) or None."""
    x, target = ply.captured_sq, ply.captured
    boards = [(None, w.start)] + [(p, p.after) for p in w.plies[:ply.index] if p.side == winner]
    for setup, board in reversed(boards):
        if board[x] != target:
            continue  # the piece has not arrived there yet
        if not _stays(w, x, target, setup.index if setup else -1, ply.index):
            continue
        if setup is not None:
            d = setup.to
            hit = _fork(board, d, winner)
            if x in hit and len(hit) >= 2:
                return "fork", setup, [(board[d], d)] + [(board[s], s) for s in hit]
            front = _skewer(board, d, x, winner)
            if front is not None:
                return "skewer", setup, [(board[d], d), (board[front], front), (target, x)]
        for s in range(64):
            if board[s] == EMPTY or bf.colour(board[s]) != winner or not bf.rays(board[s]):
                continue
            if x in bf.attacks(board, s):
                y = bf.behind(board, s, x)
                if y is not None and bf.colour(board[y]) != winner and (
                        bf.kind(board[y]) == KING or bf.VALUE[bf.kind(board[y])] > max(
                            bf.VALUE[bf.kind(target)], bf.VALUE[BISHOP])):  # a pawn pinned to a bishop: no pin
                    return "pin", setup, [(board[s], s), (target, x), (board[y], y)]
    return None


def _stays(w, sq, piece, first, last):
    """The piece stands on sq after every ply between first and last (exclusive)."""
    return all(p.after[sq] == piece for p in w.plies[first + 1:last])


def _fork(board, d, winner):
    """Enemy pieces the piece on d attacks that it may take with gain: the king, a piece worth more than
    it, or one that is not defended."""
    attacker = bf.VALUE[bf.kind(board[d])]
    out = []
    for t in bf.attacks(board, d):
        piece = board[t]
        if piece == EMPTY or bf.colour(piece) == winner:
            continue
        if bf.kind(piece) == KING or bf.VALUE[bf.kind(piece)] > attacker or not bf.defended(board, t):
            out.append(t)
    return out


def _skewer(board, d, x, winner):
    """The square of the valuable enemy piece the slider on d attacks with x behind it, or None."""
    if not bf.rays(board[d]):
        return None
    for t in bf.attacks(board, d):
        piece = board[t]
        if piece == EMPTY or bf.colour(piece) == winner:
            continue
        if bf.behind(board, d, t) == x and (bf.kind(piece) == KING or bf.VALUE[bf.kind(piece)] >= bf.VALUE[
                bf.kind(board[x])]):
            return t
    return None


def _names(pairs):
    return tuple(piece_name(p) for p, _ in pairs), tuple(square_name(s) for _, s in pairs)


def _and(parts):
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _upto(w, ply):
    return w.ucis(ply.index + 1), w.sans(ply.index + 1)


def _side(n):
    return bf.SIDES[n]


# --- what a side wins along a line ----------------------------------------------------------------
def _material_reason(w, winner, mode, first=0):
    """The reason `winner` comes out ahead along walk w (at least MATERIAL_MIN pawns), or None. mode
    words it: "wins" (a line's mover), "allows" (the opponent's line after a move), "misses" (the best
    line a move did not play), "threat" (a null-move line). first: plies before it belong to the move
    being explained, not the line (the move itself when `allows`)."""
    net = w.final() if winner == w.side else -w.final()
    if net < MATERIAL_MIN:
        return None
    items, lost = _items(w, winner)
    items = [i for i in items if i[2].index >= first or i[1] == "capture"]
    if not items:
        return None
    value, what, ply = items[0]
    moves, sans = _upto(w, ply)
    line = " ".join(sans[first:]) if mode == "allows" else " ".join(sans)
    if mode == "allows":
        moves, sans = moves[first:], sans[first:]
    side = _side(w.side)
    if what == "promotion":
        sq = square_name(ply.to)
        text = {"wins": f"promotes on {sq}", "threat": f"threatens to promote on {sq}",
                "allows": f"allows promotion on {sq}", "misses": f"misses the promotion on {sq}"}[mode]
        kind = {"wins": "promotion", "threat": "promotion", "allows": "allows_promotion",
                "misses": "misses_promotion"}[mode]
        return Reason(kind=kind, side=side, text=f"{text}: {line}", pieces=("pawn",), squares=(sq,), moves=moves,
                      san=sans, material=net if winner == w.side else -net, themes=("promotion",))
    # the exchange: a rook won for a minor piece
    if bf.kind(ply.captured) == ROOK and len(lost) == 1 and bf.kind(lost[0][1].captured) in MINORS \
            and len(items) == 1:
        minor = lost[0][1]
        pieces = ("rook", piece_name(minor.captured))
        squares = (square_name(ply.captured_sq), square_name(minor.captured_sq))
        text = {"wins": "wins the exchange", "threat": "threatens to win the exchange",
                "allows": "loses the exchange", "misses": "misses winning the exchange"}[mode]
        kind = {"wins": "exchange", "threat": "exchange", "allows": "loses_exchange",
                "misses": "misses_exchange"}[mode]
        return Reason(kind=kind, side=side, text=f"{text}, {on(ply.captured, ply.captured_sq)} for "
                      f"{on(minor.captured, minor.captured_sq)}: {line}", pieces=pieces, squares=squares,
                      moves=moves, san=sans, material=net if winner == w.side else -net, themes=("exchange",))
    tactic = _tactic(w, winner, ply)
    won = on(ply.captured, ply.captured_sq)
    signed = net if winner == w.side else -net
    if tactic is not None:
        name, setup, pairs = tactic
        pieces, squares = _names(pairs)
        by = setup.san if setup is not None else None
        if name == "fork":
            act = f"forks {_and([on(p, s) for p, s in pairs[1:]])}"
        elif name == "skewer":
            act = f"skewers {on(*pairs[1])} to {on(*pairs[2])}"
        else:
            act = f"pins {on(*pairs[1])} to {on(*pairs[2])}"
        if by is None:  # a pin already on the board: the line takes the pinned piece
            pinned = f"{on(*pairs[1])}, pinned to {on(*pairs[2])}"
            text = {"wins": f"wins {pinned}", "threat": f"threatens to win {pinned}", "allows": f"loses {pinned}",
                    "misses": f"misses winning {pinned}"}[mode]
        else:
            gain = "it" if name == "pin" and pairs[1][1] == ply.captured_sq else won
            text = {"wins": f"{by} {act} and wins {gain}", "threat": f"threatens {by}, which {act} and wins {gain}",
                    "allows": f"allows {by}, which {act} and wins {gain}",
                    "misses": f"misses {by}, which {act} and wins {gain}"}[mode]
            opening = w.plies[first] if mode == "allows" else w.plies[0]
            if mode in ("allows", "misses") and setup.index != opening.index:
                # the tactic comes later in the line: name the line's first move, then the one that sets it up
                text = f"{mode} {opening.san}, then {by} {act} and wins {gain}"

        kind = name if mode in ("wins", "threat") else f"{mode}_{name}"
        return Reason(kind=kind, side=side, text=f"{text}: {line}", pieces=pieces, squares=squares, moves=moves,
                      san=sans, material=signed, themes=(name,))
    text = {"wins": f"wins {won}", "threat": f"threatens to win {won}", "allows": f"loses {won}",
            "misses": f"misses winning {won}"}[mode]
    kind = {"wins": "material", "threat": "material", "allows": "hangs", "misses": "misses_material"}[mode]
    return Reason(kind=kind, side=side, text=f"{text}: {line}", pieces=(piece_name(ply.captured),),
                  squares=(square_name(ply.captured_sq),), moves=moves, san=sans, material=signed,
                  themes=("hangingPiece",) if mode == "allows" else ())


def _mate_reason(w, mate, mode, side, first=0):
    """Mate in |mate| along walk w; the line shown from ply `first`."""
    n = abs(mate)
    sans = w.sans()[first:]
    moves = w.ucis()[first:]
    themes = [f"mateIn{n}" if n <= 5 else "mate"]
    if w.plies and w.plies[-1].mate and _back_rank(w.plies[-1]):
        themes.append("backRankMate")
    where = " on the back rank" if "backRankMate" in themes else ""
    line = ": " + " ".join(sans) if sans else ""
    text = {"wins": f"mates in {n}{where}", "mated": f"is mated in {n}{where}",
            "threat": f"threatens mate in {n}{where}", "allows": f"allows mate in {n}{where}",
            "misses": f"misses mate in {n}{where}"}[mode]
    kind = {"wins": "mate", "mated": "mated", "threat": "mate", "allows": "allows_mate", "misses": "misses_mate"}[mode]
    squares = (square_name(w.plies[-1].to),) if w.plies and w.plies[-1].mate else ()
    pieces = (piece_name(w.plies[-1].piece if not w.plies[-1].promotion else w.plies[-1].promotion),) if squares else ()
    return Reason(kind=kind, side=side, text=text + line, pieces=pieces, squares=squares, moves=moves, san=sans,
                  mate=mate, themes=tuple(themes))


def _back_rank(ply):
    """The mating move is a rook or queen along the mated king's first rank, with the king on it."""
    mated = 1 - ply.side
    king = next((s for s in range(64) if ply.after[s] == (KING | (mated << 3))), None)
    piece = ply.promotion or bf.kind(ply.piece)
    home = 0 if mated == 0 else 7
    return king is not None and king >> 3 == home and ply.to >> 3 == home and piece in (ROOK, QUEEN)


def _pawns(cp):
    return f"{cp / 100:+.2f}"


# --- the three questions ----------------------------------------------------------------------------
def explain_line(board, score, pv, mode="wins", best=None):
    """Reason for the line pv (the side to move plays first) scored `score`. best: (score, pv) of the
    best line when this one is not it, for the fallback's comparison."""
    side = _side(board.side)
    w = walk(board, pv)
    if score.mate is not None and score.mate > 0:
        return _mate_reason(w, score.mate, mode, side)
    if score.mate is not None and score.mate < 0:
        return _mate_reason(w, score.mate, "mated", side)
    won = _material_reason(w, board.side, mode)
    if won is not None:
        return won
    lost = _material_reason(w, 1 - board.side, "wins")
    if lost is not None and best is None and score.cp is not None and score.cp >= 0 and mode == "wins":
        net = w.final()
        return Reason(kind="sacrifice", side=side, text=f"gives up {_worth(-net)} and the search still sees "
                      f"{_pawns(score.cp)}: " + " ".join(w.sans()), pieces=lost.pieces, squares=lost.squares,
                      moves=w.ucis(), san=w.sans(), material=net)
    if lost is not None:
        lost = _material_reason(w, 1 - board.side, "allows")
        kind = "loses_material" if lost.kind == "hangs" else lost.kind
        return Reason(kind=kind, side=side, text=lost.text, pieces=lost.pieces, squares=lost.squares,
                      moves=lost.moves, san=lost.san, material=lost.material, themes=lost.themes)
    left = _left_en_prise(w, side, score)
    if left is not None:
        return left
    if best is not None and best[0].cp is not None and score.cp is not None and best[1]:
        better = walk(board, best[1][:1]).sans()
        return Reason(kind="loses", side=side, text=f"{_pawns(score.cp)} against {_pawns(best[0].cp)} after "
                      f"{better[0] if better else best[1][0]}; no material changes hands along the line",
                      moves=tuple(pv), san=w.sans(), material=w.final())
    text = "no material changes hands along the line" + (f"; the score is {_pawns(score.cp)}" if score.cp is not None
                                                          else "")
    return Reason(kind="quiet", side=side, text=text, moves=tuple(pv), san=w.sans(), material=w.final())


def _left_en_prise(w, side, score):
    """When the line's material comes only from what its last position leaves to be taken (static
    exchange there, no capture of the line's own): that piece, as won or lost. None otherwise, and None
    when the search's score says the other way (static exchange sees no pins or threats: the line's
    own score overrules it)."""
    net = w.final()
    if abs(net) < MATERIAL_MIN or w.pending_sq is None or score.cp is None or net * score.cp <= 0:
        return None
    end_side = (w.side + len(w.plies)) & 1  # who takes it: the side the material favours, or not this case
    if end_side != (w.side if net > 0 else 1 - w.side):
        return None
    end = w.plies[-1].after if w.plies else w.start
    sq, line = w.pending_sq, " ".join(w.sans())
    if net > 0:
        return Reason(kind="material", side=side, text=f"ends with {on(end[sq], sq)} left to be taken: {line}",
                      pieces=(piece_name(end[sq]),), squares=(square_name(sq),), moves=w.ucis(), san=w.sans(),
                      material=net)
    return Reason(kind="loses_material", side=side, text=f"leaves {on(end[sq], sq)} to be taken: {line}",
                  pieces=(piece_name(end[sq]),), squares=(square_name(sq),), moves=w.ucis(), san=w.sans(),
                  material=net)


def explain_threat(board, score, pv):
    """Reason for a null-move line: board is the position with the opponent to move."""
    return explain_line(board, score, pv, mode="threat")


def _worth(pawns):
    return f"{pawns} pawn" + ("s" if pawns != 1 else "")


def explain_move(board, move, best, reply):
    """Reason a move (UCI) played in board is worse than the best line; best and reply as the module
    says. Returns a Reason (kind "loses" when nothing simple explains it)."""
    best_score, best_pv = best
    reply_score, reply_pv = reply
    side = _side(board.side)
    played = walk(board, [move] + list(reply_pv))
    if not played.plies:
        raise ValueError(f"{move} is not legal in {board.fen()}")
    if reply_score.mate is not None and reply_score.mate > 0:
        return _mate_reason(played, -reply_score.mate, "allows", side, first=1)
    best_walk = walk(board, best_pv)
    if best_score.mate is not None and best_score.mate > 0 and not (reply_score.mate is not None
                                                                     and reply_score.mate < 0):
        return _mate_reason(best_walk, best_score.mate, "misses", side)
    after_net = played.final()
    best_net = best_walk.final() if best_pv else after_net
    if after_net <= -MATERIAL_MIN and after_net < best_net:
        lost = _material_reason(played, 1 - board.side, "allows", first=1)
        if lost is not None:
            return _parried(board, move, played, lost)
    if best_net >= MATERIAL_MIN and best_net > after_net:
        missed = _material_reason(best_walk, board.side, "misses")
        if missed is not None:
            return missed
    before_cp = best_score.cp
    after_cp = -reply_score.cp if reply_score.cp is not None else None
    better = best_walk.sans()[0] if best_walk.plies else None
    if before_cp is not None and after_cp is not None:
        text = f"the score goes from {_pawns(before_cp)} to {_pawns(after_cp)}"
    else:
        text = "it gives away the advantage"
    if better:
        text = f"{better} was better: {text}"
    return Reason(kind="loses", side=side, text=text, moves=best_walk.ucis()[:1], san=best_walk.sans()[:1],
                  material=after_net - best_net if best_pv else None)


def _parried(board, move, played, lost):
    """`lost` unless the piece it names was already attacked before the move and the move left it there:
    then a threat that was not parried."""
    if lost.kind != "hangs" or not lost.squares:
        return lost
    capture = next(p for p in played.plies[1:] if p.captured and square_name(p.captured_sq) == lost.squares[0])
    sq = capture.captured_sq
    start = played.start
    if played.plies[0].frm == sq or start[sq] != capture.captured:
        return lost
    opponent = 1 - board.side
    if bf.see(start, sq, opponent) < bf.VALUE[bf.kind(start[sq])] and bf.defended(start, sq):
        return lost  # it was not simply en prise before the move
    if bf.see(start, sq, opponent) <= 0:
        return lost
    text = lost.text.replace("loses ", "leaves ", 1).replace(":", " where it was attacked:", 1)
    return Reason(kind="threat_not_parried", side=lost.side, text=f"does not parry the threat: {text}",
                  pieces=lost.pieces, squares=lost.squares, moves=lost.moves, san=lost.san, material=lost.material,
                  themes=("hangingPiece",))
