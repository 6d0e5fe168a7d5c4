"""Alpha-beta search: negamax with PVS, quiescence, transposition table, pruning and reductions.

One call to iterate() searches one depth of iterative deepening (every multipv line, each inside an
aspiration window); engine/deepening.py drives the iterations, engine/readout.py reads the lines.

The pruning margins are parameters (engine/params.py, read from S[S_PARAMS + P_...]), so that
benchmarks/ab.py can tune them without a rebuild.

The deadline, node limit and stop flag (ctl[C_DEADLINE], ctl[C_NODE_LIMIT], ctl[C_STOP]) are checked
inside the tree; once one trips, ctl[C_ABORTED] is set, every frame returns at once, and the caller
falls back on the last completed iteration. Depth 1 is never cut short, so a move is always found.

Recursive functions carry explicit signatures: numba.pycc cannot compile them typed by inference.
"""

import numpy as np
from numba import njit

from engine.core import nnue, tbprobe
from engine.core.bitboard import U64
from engine.core.endgames import (
    KNOWN_WIN_CP,
    NOT_KNOWN,
    drawish_scale,
    lone_king,
    material_scale,
    wrong_bishop_fortress,
)
from engine.core.intrinsics import monotonic_ns, popcount
from engine.core.movegen import check_squares, checkers_of, generate, gives_check, quiet_gives_check
from engine.core.position import (
    key_after,
    make_move,
    make_null,
    move_flag,
    move_from,
    move_to,
    unmake_move,
    unmake_null,
)
from engine.core.see import SEE_VALUE, see_ge
from engine.core.signatures import POS, TABLES, recursive
from engine.core.simd import first_max
from engine.core.transposition import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    data_bound,
    data_depth,
    data_epoch,
    data_eval,
    data_move,
    data_score,
    prefetch_bucket,
    probe,
    score_from_tt,
    store,
)
from engine.layout import (
    BB_ALL,
    BB_COLOR,
    BISHOP,
    C_ABORTED,
    C_DEADLINE,
    C_DEPTH,
    C_EXCLUDED,
    C_LINES,
    C_MULTIPV,
    C_NODE_LIMIT,
    C_NODES,
    C_PARTIAL,
    C_SELDEPTH,
    C_STOP,
    C_TABLEBASES,
    C_TBHITS,
    C_TT_AGES,
    C_TT_EPOCH,
    C_TT_MASK,
    C_TT_SALT,
    CONT_MOVES,
    DRAW,
    F_CAPTURE,
    F_EP_CAPTURE,
    F_KING_CASTLE,
    F_PROMO,
    F_QUEEN_CASTLE,
    GEN_ALL,
    GEN_NOISY,
    INF,
    KNIGHT,
    MATE,
    MATE_BOUND,
    MAX_MOVES,
    MAX_PLY,
    MOVE_NONE,
    PAWN,
    PLY_ROWS,
    QUEEN,
    ROOK,
    S_CONT_INDEX,
    S_COUNTER,
    S_EVAL,
    S_EXCLUDED,
    S_HISTORY,
    S_KILLERS,
    S_LINE_LEN,
    S_LINE_PV,
    S_LINE_SCORE,
    S_LINE_SELDEPTH,
    S_LMR,
    S_MOVES,
    S_PARAMS,
    S_PV,
    S_PV_LEN,
    S_ROOT_SCORE,
    S_SCORES,
    S_SINGULAR,
    ST_HALFMOVE,
    ST_PLY,
    ST_SIDE,
    TB_BOUND,
    U_MOVE,
)
from engine.params import (
    P_ASPIRATION,
    P_CONT_HISTORY,
    P_DELTA_MARGIN,
    P_DRAW_SCALE,
    P_EG_SCALE,
    P_FUTILITY,
    P_FUTILITY_BASE,
    P_FUTILITY_PER_PLY,
    P_LMP,
    P_LMR,
    P_LMR_CHECKS,
    P_LMR_HISTORY,
    P_LMR_HISTORY_MAX,
    P_NULL_MOVE,
    P_QSEARCH_CHECKS,
    P_QSEARCH_TT,
    P_RAZOR_BASE,
    P_RAZOR_PER_PLY,
    P_RFP,
    P_RFP_MARGIN,
    P_SEE_CAPTURE_MARGIN,
    P_SEE_PRUNING,
    P_SEE_QUIET_MARGIN,
    P_SINGULAR,
    P_SINGULAR_DEPTH,
    P_SINGULAR_MARGIN,
)

# Late-move pruning: quiet moves searched before the rest are skipped, by [improving][depth].
LMP = np.array([[(3 + d * d) // 2 for d in range(16)], [3 + d * d for d in range(16)]], dtype=np.int32)

# Move-ordering bands.
ORDER_TT = 30_000_000
ORDER_GOOD_CAPTURE = 20_000_000
ORDER_KILLER_1 = 10_000_002
ORDER_KILLER_2 = 10_000_001
ORDER_COUNTER = 10_000_000
ORDER_BAD_CAPTURE = -20_000_000
HISTORY_MAX = 16384

# T, position, tt, S, ctl, NET (the net), ACC (its accumulators), H (continuation history), TB and TBI (the
# endgame tables' bytes and index, engine/core/tbprobe.py)
SEARCH_ARGS = f"{TABLES}, {POS}, u8[::1], i4[::1], i8[::1], i2[::1], i2[::1], i2[::1], u1[::1], i8[::1]"


@njit(inline="always")
def _tick(ctl):
    """Count a node; every 512 nodes look at the clock and the stop flag."""
    n = ctl[C_NODES] + 1
    ctl[C_NODES] = n
    if ctl[C_DEPTH] > 1:
        if ctl[C_NODE_LIMIT] != 0 and n >= ctl[C_NODE_LIMIT]:
            ctl[C_ABORTED] = 1
        elif (n & 511) == 0:
            if ctl[C_STOP] != 0 or (ctl[C_DEADLINE] != 0 and monotonic_ns() >= ctl[C_DEADLINE]):
                ctl[C_ABORTED] = 1


@njit(inline="always")
def _static_eval(T, bb, board, st, S, NET, ACC, ply):
    """The position's static evaluation, side to move: a bare king's by rule (engine/core/endgames.py),
    else the net's, scaled toward a draw where the material cannot win."""
    known = lone_king(bb, st[ST_SIDE])
    if known != NOT_KNOWN:
        return known
    score = nnue.evaluate(NET, ACC, ply, st[ST_SIDE], bb[BB_ALL])
    if S[S_PARAMS + P_EG_SCALE] != 64:
        score = material_scale(bb, score, S[S_PARAMS + P_EG_SCALE])
    if S[S_PARAMS + P_DRAW_SCALE] != 0:
        return drawish_scale(bb, st[ST_SIDE], score)
    return score


@njit(inline="always")
def _fortress(S, bb):
    """The wrong bishop's corner (engine/core/endgames.py wrong_bishop_fortress), one of DrawScale's rules."""
    return wrong_bishop_fortress(bb) and S[S_PARAMS + P_DRAW_SCALE] != 0


@njit(inline="always")
def _insufficient_material(bb):
    return not (bb[PAWN] | bb[ROOK] | bb[QUEEN]) and popcount(bb[KNIGHT] | bb[BISHOP]) <= 1


@njit(inline="always")
def _in_tables(ctl, bb):
    """The tables are on for this search and the position has few enough pieces to be in one."""
    return ctl[C_TABLEBASES] != 0 and popcount(bb[BB_ALL]) <= 4


@njit(inline="always")
def _repetition(st, keys):
    """The position occurred before (in the tree or the game) since the last irreversible move."""
    n = st[ST_PLY]
    key = keys[n]
    limit = min(st[ST_HALFMOVE], n)
    i = 4
    while i <= limit:
        if keys[n - i] == key:
            return True
        i += 2
    return False


@njit(inline="always")
def _cut_trusted(d, epoch, score):
    """An entry of an earlier search of the game (UCI's kept table) settles a node only with a score short of
    a decided one (KNOWN_WIN_CP; mates too). Decided scores from earlier searches turned drawn endings
    into +15 to +19 (rook against rook and pawn, issue 32, docs/strength.md, benchmarks/endgame_claims.py);
    re-searched, their moves still lead the way."""
    return abs(score) < KNOWN_WIN_CP or data_epoch(d) == epoch


@njit(inline="always")
def _cuts(bound, score, alpha, beta):
    """A table entry's score settles the node: exact, or a bound on the right side of the window."""
    return bound == BOUND_EXACT or (bound == BOUND_LOWER and score >= beta) or (
        bound == BOUND_UPPER and score <= alpha)


@njit(inline="always")
def _sharpen(static_eval, bound, score):
    """The static eval, replaced by the table's score where its bound says the eval is off."""
    if bound == BOUND_EXACT or (bound == BOUND_LOWER and score > static_eval) or (
            bound == BOUND_UPPER and score < static_eval):
        return score
    return static_eval


@njit(inline="always")
def _update_pv(S, ply, m):
    row = S_PV + ply * PLY_ROWS
    child = S_PV + (ply + 1) * PLY_ROWS
    n = S[S_PV_LEN + ply + 1]
    S[row] = m
    for k in range(n):
        S[row + 1 + k] = S[child + k]
    S[S_PV_LEN + ply] = n + 1


@njit(inline="always")
def _history_update(S, idx, bonus):
    v = S[idx]
    S[idx] = v + bonus - v * abs(bonus) // HISTORY_MAX


@njit(inline="always")
def _pick(S, mb, sb, i, n):
    """Bring the best-scored remaining move to position i (selection sort, one step: the first of equal
    scores, eight at a time; the score rows have room for the reads past n)."""
    best = first_max(S, sb + i, sb + n) - sb
    if best != i:
        m = S[mb + best]
        S[mb + best] = S[mb + i]
        S[mb + i] = m
        best_score = S[sb + best]
        S[sb + best] = S[sb + i]
        S[sb + i] = best_score
    return S[mb + i]


@njit(inline="always")
def _capture_order(T, bb, board, m):
    """MVV-LVA for a capture or promotion, and whether it holds its ground (SEE >= 0)."""
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    attacker = board[frm] & 7
    victim = PAWN if flag == F_EP_CAPTURE else (board[to] & 7 if flag & F_CAPTURE else 0)
    mvv = SEE_VALUE[victim] * 8 - attacker
    if flag & F_PROMO:
        if (flag & 3) != 3:
            return -1, False  # under-promotions last
        mvv += SEE_VALUE[QUEEN] * 8
    good = SEE_VALUE[victim] >= SEE_VALUE[attacker] or see_ge(T, bb, board, m, 0)
    return mvv, good


@njit(inline="always")
def _cont_index(board, m):
    """A move as continuation history indexes it: (piece type and colour, 0..11) * 64 + destination."""
    p = board[move_from(m)]
    return ((p & 7) - 1 + 6 * (p >> 3)) * 64 + move_to(m)


@njit(inline="always")
def _quiet_score(S, H, board, m, c1, c2):
    """A quiet move's history: from-piece and destination, plus the continuations of the last two moves."""
    v = S[S_HISTORY + board[move_from(m)] * 64 + move_to(m)]
    if c1 >= 0 or c2 >= 0:
        ci = _cont_index(board, m)
        if c1 >= 0:
            v += H[c1 * CONT_MOVES + ci]
        if c2 >= 0:
            v += H[c2 * CONT_MOVES + ci]
    return v


@njit(inline="always")
def _score_moves(T, bb, board, S, H, mb, sb, n, tt_move, ply, counter, c1, c2):
    k1 = S[S_KILLERS + 2 * ply]
    k2 = S[S_KILLERS + 2 * ply + 1]
    for i in range(n):
        m = S[mb + i]
        if m == tt_move:
            S[sb + i] = ORDER_TT
        elif move_flag(m) & (F_CAPTURE | F_PROMO):
            mvv, good = _capture_order(T, bb, board, m)
            S[sb + i] = (ORDER_GOOD_CAPTURE if good else ORDER_BAD_CAPTURE) + mvv
        elif m == k1:
            S[sb + i] = ORDER_KILLER_1
        elif m == k2:
            S[sb + i] = ORDER_KILLER_2
        elif m == counter:
            S[sb + i] = ORDER_COUNTER
        else:
            S[sb + i] = _quiet_score(S, H, board, m, c1, c2)


@njit(inline="always")
def _cont_update(H, c, ci, bonus):
    if c >= 0:
        i = c * CONT_MOVES + ci
        v = np.int64(H[i])
        H[i] = v + bonus - v * abs(bonus) // HISTORY_MAX


@njit(inline="always")
def _reward_quiet(S, H, board, ply, depth, m, mb, tried, cidx, c1, c2):
    """A quiet move caused a cut: remember it as killer and counter, and update the histories (the quiet
    moves tried before it lose what it gains)."""
    k = S_KILLERS + 2 * ply
    if S[k] != m:
        S[k + 1] = S[k]
        S[k] = m
    if cidx >= 0:
        S[cidx] = m
    bonus = min(8 * depth * depth, 1600)
    _history_update(S, S_HISTORY + board[move_from(m)] * 64 + move_to(m), bonus)
    ci = _cont_index(board, m)
    _cont_update(H, c1, ci, bonus)
    _cont_update(H, c2, ci, bonus)
    for j in range(tried):
        q = S[mb + j]
        if not (move_flag(q) & (F_CAPTURE | F_PROMO)):
            _history_update(S, S_HISTORY + board[move_from(q)] * 64 + move_to(q), -bonus)
            qi = _cont_index(board, q)
            _cont_update(H, c1, qi, -bonus)
            _cont_update(H, c2, qi, -bonus)


@recursive(f"i8({SEARCH_ARGS}, i8, i8, i8, i8)")
def qsearch(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply, alpha, beta, qdepth):
    S[S_PV_LEN + ply] = 0
    _tick(ctl)
    if ctl[C_ABORTED]:
        return 0
    if ply + 1 > ctl[C_SELDEPTH]:
        ctl[C_SELDEPTH] = ply + 1
    if ply >= MAX_PLY - 1:
        return _static_eval(T, bb, board, st, S, NET, ACC, ply)
    if st[ST_HALFMOVE] >= 100 or _insufficient_material(bb):
        return DRAW
    if _in_tables(ctl, bb):
        v = tbprobe.probe(bb, board, st, TB, TBI)
        if v != tbprobe.NOT_FOUND and tbprobe.trusted(v, st):
            ctl[C_TBHITS] += 1
            return tbprobe.score(v, ply)
    pv_node = beta - alpha > 1
    key = keys[st[ST_PLY]]
    mask = ctl[C_TT_MASK]
    epoch = ctl[C_TT_EPOCH]
    salt = U64(ctl[C_TT_SALT])
    ages = ctl[C_TT_AGES]
    use_tt = S[S_PARAMS + P_QSEARCH_TT] != 0
    d = probe(tt, mask, key, epoch, salt, ages) if use_tt else U64(0)
    bound = data_bound(d)
    tt_move = data_move(d) if bound else 0
    tt_score = score_from_tt(data_score(d), ply)
    if bound and not pv_node and _cuts(bound, tt_score, alpha, beta):
        return tt_score
    in_check = checkers_of(T, bb, st) != 0
    if in_check:
        best = -INF
        stand = -INF
        raw_eval = -INF
    else:
        raw_eval = data_eval(d) if bound else _static_eval(T, bb, board, st, S, NET, ACC, ply)
        stand = _sharpen(raw_eval, bound, tt_score) if bound else raw_eval
        if stand >= beta:
            if not bound and use_tt:
                store(tt, mask, key, epoch, salt, MOVE_NONE, stand, raw_eval, 0, BOUND_LOWER, ply, ages)
            return stand
        if stand > alpha:
            alpha = stand
        best = stand

    mb = S_MOVES + ply * MAX_MOVES
    sb = S_SCORES + ply * MAX_MOVES
    quiet_checks = qdepth == 0 and not in_check and S[S_PARAMS + P_QSEARCH_CHECKS] != 0
    n = generate(T, bb, st, S, mb, GEN_ALL if quiet_checks else GEN_NOISY) - mb
    if quiet_checks:
        # Keep the noisy moves and the quiet checks that do not hang the piece.
        info = check_squares(T, bb, st)
        kept = 0
        for i in range(n):
            m = S[mb + i]
            flag = move_flag(m)
            if flag & (F_CAPTURE | F_PROMO):
                if (flag & F_PROMO) and (flag & 3) != 3:
                    continue
            elif flag == F_KING_CASTLE or flag == F_QUEEN_CASTLE:
                if not gives_check(T, bb, board, st, m):
                    continue
            elif not (quiet_gives_check(T, board, info, m) and see_ge(T, bb, board, m, 0)):
                continue
            S[mb + kept] = m
            kept += 1
        n = kept
    if n == 0:
        return -MATE + ply if in_check else best
    _score_moves(T, bb, board, S, H, mb, sb, n, tt_move, ply, MOVE_NONE, -1, -1)
    best_move = MOVE_NONE
    old_alpha = alpha
    # A bare king beside a piece just promoted: its stand pat counts the new piece (without pawns left, as the
    # rule's known loss, engine/core/endgames.py, ~1000 cp below the draw taking it often gives), so that
    # capture is never futile.
    promoted_to = -1
    if popcount(bb[BB_COLOR + st[ST_SIDE]]) == 1 and st[ST_PLY] > 0:
        last = undo[st[ST_PLY] - 1, U_MOVE]
        if last != MOVE_NONE and move_flag(last) & F_PROMO:
            promoted_to = move_to(last)
    for i in range(n):
        m = _pick(S, mb, sb, i, n)
        flag = move_flag(m)
        if not in_check and flag & (F_CAPTURE | F_PROMO):
            order = S[sb + i]
            futile = False
            if not (flag & F_PROMO) and move_to(m) != promoted_to:
                victim = PAWN if flag == F_EP_CAPTURE else board[move_to(m)] & 7
                # Delta pruning: even winning the piece cannot lift the score to alpha.
                futile = stand + SEE_VALUE[victim] + S[S_PARAMS + P_DELTA_MARGIN] <= alpha
            # Captures that lose material (SEE < 0) are skipped too; but never a check, it may mate.
            if futile or order < 0 or (order == ORDER_TT and not see_ge(T, bb, board, m, 0)):
                if not gives_check(T, bb, board, st, m):
                    continue
        prefetch_bucket(tt, ctl[C_TT_MASK], key_after(T, board, st, keys, m))  # overlaps push_move
        nnue.push_move(NET, ACC, ply, board, m)
        make_move(T, bb, board, st, keys, undo, m)
        score = -qsearch(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply + 1, -beta, -alpha,
                         qdepth - 1)
        unmake_move(T, bb, board, st, keys, undo, m)
        if ctl[C_ABORTED]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                best_move = m
                if score >= beta:
                    break
                alpha = score
    if best >= beta:
        flag_bound = BOUND_LOWER
    elif best > old_alpha:
        flag_bound = BOUND_EXACT
    else:
        flag_bound = BOUND_UPPER
    if use_tt:
        store(tt, mask, key, epoch, salt, best_move, best, raw_eval, 0, flag_bound, ply, ages)
    return best


@njit(inline="always")
def _reverse_futility(S, bb, st, depth, ev, beta, improving):
    """Reverse futility: so far above beta that a shallow search will not fall back. Not where a bare king
    is scored by rule: its steps toward the mate are smaller than the margin, and the search must see them."""
    return (S[S_PARAMS + P_RFP] != 0 and depth <= 8 and abs(ev) < MATE_BOUND
            and ev - S[S_PARAMS + P_RFP_MARGIN] * (depth - improving) >= beta
            and lone_king(bb, st[ST_SIDE]) == NOT_KNOWN)


@njit(inline="always")
def _null_move_allowed(S, bb, st, undo, depth, ev, static_eval, beta):
    """Null move: worth trying when the eval beats beta. Not without pieces (zugzwang is common in pawn
    endings) and never twice in a row."""
    return (S[S_PARAMS + P_NULL_MOVE] != 0 and depth >= 3 and ev >= beta and static_eval >= beta
            and undo[st[ST_PLY] - 1, U_MOVE] != MOVE_NONE
            and ((bb[KNIGHT] | bb[BISHOP] | bb[ROOK] | bb[QUEEN]) & bb[BB_COLOR + st[ST_SIDE]]) != 0)


@njit(inline="always")
def _null_move_reduction(depth, ev, beta):
    return 3 + depth // 3 + min((ev - beta) // 200, 3)


@njit(inline="always")
def _razor(S, depth, ev, alpha):
    """Razoring: hopeless at low depth unless a capture sequence saves it (quiescence decides)."""
    return depth <= 3 and ev + S[S_PARAMS + P_RAZOR_BASE] + S[S_PARAMS + P_RAZOR_PER_PLY] * depth <= alpha


@njit(inline="always")
def _prunable(T, bb, board, S, m, quiet, order, depth, quiets, improving, in_check, ev, alpha):
    """A move not worth searching at low depth (the caller still searches it if it gives check): a late
    quiet move (LMP), a quiet move the eval cannot lift to alpha (futility), a move losing material (SEE)."""
    P = S_PARAMS
    if quiet:
        if S[P + P_LMP] != 0 and quiets >= LMP[improving, depth]:
            return True
        if (S[P + P_FUTILITY] != 0 and depth <= 6 and not in_check
                and ev + S[P + P_FUTILITY_BASE] + S[P + P_FUTILITY_PER_PLY] * depth <= alpha):
            return True
        return (S[P + P_SEE_PRUNING] != 0 and depth <= 6
                and not see_ge(T, bb, board, m, -S[P + P_SEE_QUIET_MARGIN] * depth))
    return (S[P + P_SEE_PRUNING] != 0 and depth <= 6 and order < 0
            and not see_ge(T, bb, board, m, -S[P + P_SEE_CAPTURE_MARGIN] * depth))


@njit(inline="always")
def _reduction(S, depth, searched, pv_node, cut_node, improving, check, quiet, order, new_depth):
    """Late-move reduction of a move searched after the first two (quiet or losing captures only)."""
    P = S_PARAMS
    r = S[S_LMR + min(depth, 63) * 64 + min(searched, 63)]
    if not pv_node:
        r += 1
    if cut_node:
        r += 1
    if improving:
        r -= 1
    if check:
        r = r - 1 if S[P + P_LMR_CHECKS] else 0
    if quiet:
        if order >= ORDER_COUNTER:
            r -= 1
        elif S[P + P_LMR_HISTORY]:
            cap = S[P + P_LMR_HISTORY_MAX]
            r -= max(-cap, min(cap, order // S[P + P_LMR_HISTORY]))
    return max(0, min(r, new_depth - 1))


@njit(inline="always")
def _singular_candidate(S, ply, depth, tt_move, bound, tt_depth, tt_score):
    """A node whose table move may be singular: deep enough, with a lower or exact table score searched
    nearly as deep, not a mate score."""
    return (S[S_PARAMS + P_SINGULAR] != 0 and ply > 0 and tt_move != MOVE_NONE
            and depth >= S[S_PARAMS + P_SINGULAR_DEPTH] and (bound == BOUND_LOWER or bound == BOUND_EXACT)
            and tt_depth >= depth - 3 and abs(tt_score) < MATE_BOUND)


@njit(inline="always")
def _excluded(S, ctl, m):
    """A root move already reported as an earlier multipv line of this iteration."""
    for k in range(ctl[C_EXCLUDED]):
        if S[S_EXCLUDED + k] == m:
            return True
    return False


@recursive(f"i8({SEARCH_ARGS}, i8, i8, i8, i8, b1)")
def negamax(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply, depth, alpha, beta, cut_node):
    if depth <= 0:
        return qsearch(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply, alpha, beta, 0)
    S[S_PV_LEN + ply] = 0
    _tick(ctl)
    if ctl[C_ABORTED]:
        return 0
    if ply + 1 > ctl[C_SELDEPTH]:
        ctl[C_SELDEPTH] = ply + 1
    pv_node = beta - alpha > 1
    root = ply == 0
    if not root:
        if st[ST_HALFMOVE] >= 100 or _insufficient_material(bb) or _fortress(S, bb) or _repetition(st, keys):
            return DRAW
        if ply >= MAX_PLY - 1:
            return _static_eval(T, bb, board, st, S, NET, ACC, ply)
        # Mate-distance pruning: no line from here can beat a mate already found nearer the root.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
        # The endgame tables: a position they hold scores by them (exact, so at any depth).
        if _in_tables(ctl, bb):
            v = tbprobe.probe(bb, board, st, TB, TBI)
            if v != tbprobe.NOT_FOUND and tbprobe.trusted(v, st):
                ctl[C_TBHITS] += 1
                return tbprobe.score(v, ply)

    # The transposition table: a deep enough entry settles the node; else its move is searched first.
    excluding = root and ctl[C_EXCLUDED] > 0
    singular_move = S[S_SINGULAR + ply]  # set while this node is searched again without its table move
    verifying = singular_move != MOVE_NONE
    key = keys[st[ST_PLY]]
    mask = ctl[C_TT_MASK]
    epoch = ctl[C_TT_EPOCH]
    salt = U64(ctl[C_TT_SALT])
    ages = ctl[C_TT_AGES]
    d = probe(tt, mask, key, epoch, salt, ages)
    bound = data_bound(d)
    tt_move = data_move(d) if bound else 0
    tt_score = score_from_tt(data_score(d), ply)
    if (bound and not pv_node and not excluding and not verifying and data_depth(d) >= depth
            and _cuts(bound, tt_score, alpha, beta) and _cut_trusted(d, epoch, tt_score)):
        return tt_score

    in_check = checkers_of(T, bb, st) != 0
    if in_check:
        static_eval = -INF
        ev = -INF
        if ply < 2 * ctl[C_DEPTH]:
            depth += 1  # check extension
    elif verifying:
        static_eval = ev = S[S_EVAL + ply]  # the same node, searched again without one move
    else:
        static_eval = data_eval(d) if bound else _static_eval(T, bb, board, st, S, NET, ACC, ply)
        ev = _sharpen(static_eval, bound, tt_score) if bound else static_eval
    S[S_EVAL + ply] = static_eval
    improving = 1 if (not in_check and ply >= 2 and static_eval > S[S_EVAL + ply - 2]) else 0

    # Whole-node pruning, before any move is generated.
    if not pv_node and not in_check and not root and not verifying:
        if _reverse_futility(S, bb, st, depth, ev, beta, improving):
            return ev
        if _null_move_allowed(S, bb, st, undo, depth, ev, static_eval, beta):
            # Give the opponent a free move; if we still beat beta, the node is a cut.
            r = _null_move_reduction(depth, ev, beta)
            S[S_CONT_INDEX + ply] = -1
            nnue.push_null(NET, ACC, ply)
            make_null(T, bb, board, st, keys, undo)
            prefetch_bucket(tt, ctl[C_TT_MASK], keys[st[ST_PLY]])
            score = -negamax(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply + 1, depth - r, -beta,
                             -beta + 1, not cut_node)
            unmake_null(T, bb, board, st, keys, undo)
            if ctl[C_ABORTED]:
                return 0
            if score >= beta:  # a mate or a table's win behind a null move is no proof: beta
                return beta if score >= TB_BOUND else score
        if _razor(S, depth, ev, alpha):
            q = qsearch(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply, alpha, alpha + 1, 0)
            if q <= alpha:
                return q

    # Internal iterative reduction: with no move from the table, search this node a ply shallower.
    if depth >= 4 and tt_move == MOVE_NONE and (pv_node or cut_node):
        depth -= 1

    # Singular extension: if every other move falls short of the table move's score by a margin that grows
    # with depth, the table move is forced and gets a ply more. If even without it the node beats beta, the
    # node is a cut (multi-cut); if the table move only beats beta, it gets a ply less.
    tt_extension = 0
    if not verifying and _singular_candidate(S, ply, depth, tt_move, bound, data_depth(d), tt_score):
        sbeta = tt_score - S[S_PARAMS + P_SINGULAR_MARGIN] * depth
        S[S_SINGULAR + ply] = tt_move
        score = negamax(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply, (depth - 1) // 2,
                        sbeta - 1, sbeta, cut_node)
        S[S_SINGULAR + ply] = MOVE_NONE
        if ctl[C_ABORTED]:
            return 0
        if score < sbeta:
            tt_extension = 1
        elif sbeta >= beta:
            return sbeta
        elif tt_score >= beta:
            tt_extension = -1

    mb = S_MOVES + ply * MAX_MOVES
    sb = S_SCORES + ply * MAX_MOVES
    n = generate(T, bb, st, S, mb, GEN_ALL) - mb
    if n == 0:
        return -MATE + ply if in_check else DRAW
    counter = MOVE_NONE
    cidx = -1
    if st[ST_PLY] > 0:
        prev = undo[st[ST_PLY] - 1, U_MOVE]
        if prev != MOVE_NONE:
            pto = move_to(prev)
            cidx = S_COUNTER + board[pto] * 64 + pto
            counter = S[cidx]
    c1 = -1
    c2 = -1
    if S[S_PARAMS + P_CONT_HISTORY]:
        c1 = S[S_CONT_INDEX + ply - 1] if ply >= 1 else -1
        c2 = S[S_CONT_INDEX + ply - 2] if ply >= 2 else -1
    _score_moves(T, bb, board, S, H, mb, sb, n, tt_move, ply, counter, c1, c2)

    best = -INF
    best_move = MOVE_NONE
    searched = 0
    quiets = 0
    old_alpha = alpha
    for i in range(n):
        m = _pick(S, mb, sb, i, n)
        if m == singular_move and verifying:
            continue
        if excluding and _excluded(S, ctl, m):
            continue
        quiet = not (move_flag(m) & (F_CAPTURE | F_PROMO))
        order = S[sb + i]
        check = -1  # gives_check(), computed only when a pruning or reduction decision needs it
        if (not root and best > -MATE_BOUND and depth <= 8
                and _prunable(T, bb, board, S, m, quiet, order, depth, quiets, improving, in_check, ev, alpha)):
            check = 1 if gives_check(T, bb, board, st, m) else 0
            if check == 0:  # checks are never pruned: the quiet move may mate
                continue

        S[S_CONT_INDEX + ply] = _cont_index(board, m)
        prefetch_bucket(tt, ctl[C_TT_MASK], key_after(T, board, st, keys, m))  # overlaps push_move
        nnue.push_move(NET, ACC, ply, board, m)
        make_move(T, bb, board, st, keys, undo, m)
        searched += 1
        if quiet:
            quiets += 1
        new_depth = depth - 1 + (tt_extension if m == tt_move else 0)
        if searched == 1:
            score = -negamax(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply + 1, new_depth, -beta,
                             -alpha, np.bool_(False) if pv_node else not cut_node)
        else:
            r = 0
            if S[S_PARAMS + P_LMR] and depth >= 3 and searched > 2 and (quiet or order < 0):
                if check < 0:  # the move is made: is the opponent in check?
                    check = 1 if checkers_of(T, bb, st) != 0 else 0
                r = _reduction(S, depth, searched, pv_node, cut_node, improving, check, quiet, order, new_depth)
            # np.bool_(): a literal True here would leave the recursive call unresolved in the pycc build.
            score = -negamax(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply + 1, new_depth - r,
                             -alpha - 1, -alpha, np.bool_(True))
            if score > alpha and r > 0:
                score = -negamax(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply + 1, new_depth,
                                 -alpha - 1, -alpha, not cut_node)
            if pv_node and score > alpha and score < beta:
                score = -negamax(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, ply + 1, new_depth,
                                 -beta, -alpha, np.bool_(False))
        unmake_move(T, bb, board, st, keys, undo, m)
        if ctl[C_ABORTED]:
            return 0

        if score > best:
            best = score
            if score > alpha:
                best_move = m
                if pv_node:
                    _update_pv(S, ply, m)
                    if root:
                        S[S_ROOT_SCORE] = score
                if score >= beta:
                    if quiet:
                        _reward_quiet(S, H, board, ply, depth, m, mb, i, cidx, c1, c2)
                    break
                alpha = score

    if searched == 0:
        # Every root move excluded (multipv beyond the legal moves), the table move left out of the only
        # legal move (singular search), or everything pruned.
        return -INF if excluding else alpha
    if not excluding and not verifying:
        if best >= beta:
            b = BOUND_LOWER
        elif pv_node and best > old_alpha:
            b = BOUND_EXACT
        else:
            b = BOUND_UPPER
        store(tt, mask, key, epoch, salt, best_move, best, static_eval, depth, b, ply, ages)
    return best


@njit(inline="always")
def _sort_lines(S, n):
    """Best line first: a later line can outscore an earlier one when their trees were pruned differently."""
    for i in range(1, n):
        j = i
        while j > 0 and S[S_LINE_SCORE + j] > S[S_LINE_SCORE + j - 1]:
            for base in (S_LINE_SCORE, S_LINE_LEN, S_LINE_SELDEPTH, S_EXCLUDED):
                t = S[base + j]
                S[base + j] = S[base + j - 1]
                S[base + j - 1] = t
            for c in range(PLY_ROWS):
                t = S[S_LINE_PV + j * PLY_ROWS + c]
                S[S_LINE_PV + j * PLY_ROWS + c] = S[S_LINE_PV + (j - 1) * PLY_ROWS + c]
                S[S_LINE_PV + (j - 1) * PLY_ROWS + c] = t
            j -= 1


@njit(_nrt=False)
def iterate(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI):
    """Search depth ctl[C_DEPTH] for ctl[C_MULTIPV] lines; record them unless aborted.

    Returns the number of lines completed (0 if the deadline, node limit or stop cut it short).
    """
    depth = ctl[C_DEPTH]
    nnue.refresh(NET, ACC, 0, bb, board)
    ctl[C_EXCLUDED] = 0
    ctl[C_SELDEPTH] = 0
    lines = 0
    for k in range(ctl[C_MULTIPV]):
        prev = S[S_LINE_SCORE + k]
        window = 20
        if S[S_PARAMS + P_ASPIRATION] and depth >= 5 and S[S_LINE_LEN + k] > 0 and abs(prev) < MATE_BOUND:
            alpha = max(prev - window, -INF)
            beta = min(prev + window, INF)
        else:
            alpha = -INF
            beta = INF
        score = 0
        while True:
            score = negamax(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI, 0, depth, alpha, beta,
                            np.bool_(False))
            if ctl[C_ABORTED]:
                # A root move that beat alpha before the cut was searched in full: worth keeping.
                ctl[C_PARTIAL] = 1 if k == 0 and S[S_PV_LEN] > 0 else 0
                return 0
            if score <= alpha and alpha > -INF:
                beta = (alpha + beta) // 2
                alpha = max(score - window, -INF)
            elif score >= beta and beta < INF:
                beta = min(score + window, INF)
            else:
                break
            window += window
            if window > 1000:
                alpha = -INF
                beta = INF
        n = S[S_PV_LEN]
        if n == 0 or score == -INF:
            break
        S[S_LINE_SCORE + k] = score
        S[S_LINE_LEN + k] = n
        S[S_LINE_SELDEPTH + k] = ctl[C_SELDEPTH]
        for j in range(n):
            S[S_LINE_PV + k * PLY_ROWS + j] = S[S_PV + j]
        S[S_EXCLUDED + k] = S[S_PV]
        ctl[C_EXCLUDED] = k + 1
        lines += 1
    _sort_lines(S, lines)
    for k in range(lines, ctl[C_MULTIPV]):
        S[S_LINE_LEN + k] = 0
    ctl[C_LINES] = lines
    return lines
