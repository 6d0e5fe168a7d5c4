"""Data layout shared by the compiled core and the plain-Python side.

Pure constants, no numba: the Lambda runtime imports this beside the compiled module.
Numba freezes module-level ints into compile-time constants, so the core pays nothing to use them.

Squares: a1 = 0, b1 = 1, ..., h8 = 63 (little-endian rank-file).
"""

import numpy as np

# --- colours, piece types and piece codes -------------------------------------------------------
WHITE, BLACK = 0, 1
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
# A piece code is type | colour << 3: white pawn 1 .. white king 6, black pawn 9 .. black king 14.
EMPTY = 0
NO_SQ = 64

PIECE_CHARS = " PNBRQK  pnbrqk "  # indexed by piece code

# --- castling rights (bits of st[ST_CASTLE]) -----------------------------------------------------
CASTLE_WK, CASTLE_WQ, CASTLE_BK, CASTLE_BQ = 1, 2, 4, 8
# Right i (bit 1 << i) belongs to colour i >> 1 and wing i & 1 (0 king side, 1 queen side). Its rook's
# start square is st[ST_CASTLE_ROOK + i]; standard chess's a1/h1/a8/h8 unless the game is Chess960.
CASTLE_ROOK_DEFAULT = (7, 0, 63, 56)

# --- bitboards: bb[type] for both colours, bb[BB_COLOR + colour], bb[BB_ALL] --------------------
BB_ALL = 0
BB_COLOR = 8
N_BB = 10

# --- scalar state: st[...] (int32) --------------------------------------------------------------
ST_SIDE = 0  # side to move
ST_CASTLE = 1  # castling rights bits
ST_EP = 2  # en-passant target square, or NO_SQ; set only when a capture there is pseudo-legal
ST_HALFMOVE = 3  # plies since the last capture or pawn move
ST_FULLMOVE = 4
ST_PLY = 5  # index of the current position in keys[] / undo[] (moves made since the game array began)
ST_CASTLE_ROOK = 6  # [4] each castling right's rook start square (constant through a game)
ST_CHESS960 = 10  # 1 when some right's king or rook does not stand on standard chess's square: castling
#                  then takes the general (slower) path; 0 keeps standard chess's fast one
ST_CASTLE_KEEP = 16  # [64] the rights that survive a move from or onto each square (king and rook squares)
N_ST = ST_CASTLE_KEEP + 64

# --- undo stack: undo[ply, ...] describes the move played from position `ply` ------------------
U_MOVE = 0
U_CAPTURED = 1
U_CASTLE = 2
U_EP = 3
U_HALFMOVE = 4
N_UNDO = 8

# --- moves (int32): from | to << 6 | flag << 12 ----------------------------------------------
# Castling is the king's move to its destination (g1/c1/g8/c8) with F_KING_CASTLE or F_QUEEN_CASTLE, in
# Chess960 too (from may equal to there); the rook comes from st[ST_CASTLE_ROOK + right] and goes to the
# f or d file. UCI text (engine/moves.py) writes Chess960 castling king-to-rook (b1a1).
# Flags follow the chessprogramming-wiki encoding: bit 2 (4) = capture, bit 3 (8) = promotion,
# the low two bits of a promotion flag give the piece (knight, bishop, rook, queen).
F_QUIET = 0
F_DOUBLE_PUSH = 1
F_KING_CASTLE = 2
F_QUEEN_CASTLE = 3
F_CAPTURE = 4
F_EP_CAPTURE = 5
F_PROMO = 8  # + 0..3 for N, B, R, Q; + F_CAPTURE for a capturing promotion
MOVE_NONE = 0  # a1a1 can never be a move
MAX_MOVES = 256  # more than the 218 any legal position allows

# --- tables: one uint64 array T holds every precomputed bitboard and key, at these offsets ------
T_KNIGHT = 0  # [64]
T_KING = T_KNIGHT + 64  # [64]
T_PAWN = T_KING + 64  # [2][64] attacks of a pawn of each colour
T_BETWEEN = T_PAWN + 128  # [64][64] squares strictly between two aligned squares
T_LINE = T_BETWEEN + 4096  # [64][64] the whole line through two aligned squares
T_ROOK_MASK = T_LINE + 4096  # [64] relevant occupancy
T_ROOK_MAGIC = T_ROOK_MASK + 64
T_ROOK_SHIFT = T_ROOK_MAGIC + 64
T_ROOK_BASE = T_ROOK_SHIFT + 64  # offset of each square's slice in the attack table
T_BISHOP_MASK = T_ROOK_BASE + 64
T_BISHOP_MAGIC = T_BISHOP_MASK + 64
T_BISHOP_SHIFT = T_BISHOP_MAGIC + 64
T_BISHOP_BASE = T_BISHOP_SHIFT + 64
T_ROOK_RAYS = T_BISHOP_BASE + 64  # [64] rook attacks on an empty board
T_BISHOP_RAYS = T_ROOK_RAYS + 64
T_ZOBRIST_PSQ = T_BISHOP_RAYS + 64  # [16][64] by piece code
T_ZOBRIST_CASTLE = T_ZOBRIST_PSQ + 16 * 64  # [16] by rights mask
T_ZOBRIST_EP = T_ZOBRIST_CASTLE + 16  # [8] by file
T_ZOBRIST_SIDE = T_ZOBRIST_EP + 8  # [1] black to move
T_SLIDER = T_ZOBRIST_SIDE + 8  # sliding attack tables start here
ROOK_TABLE_SIZE = 102400
BISHOP_TABLE_SIZE = 5248
T_ZOBRIST_CASTLE_FILE = T_SLIDER + ROOK_TABLE_SIZE + BISHOP_TABLE_SIZE  # [4 right][8 file] a held
#                  right's rook file (Chess960); 0 for the standard file, so standard keys are unchanged
T_SIZE = T_ZOBRIST_CASTLE_FILE + 32

# --- limits ---------------------------------------------------------------------------------------
MAX_PLY = 128  # deepest search line
HISTORY_SLACK = MAX_PLY + 16  # room past the game's moves in keys[] and undo[]

U64 = np.uint64

# --- move generation kinds -------------------------------------------------------------------------
GEN_ALL = 0  # every legal move
GEN_NOISY = 1  # captures, en passant, queen promotions (quiescence); every evasion when in check

# --- scores ----------------------------------------------------------------------------------------
INF = 32001
MATE = 32000  # mate at the root; mate in n plies scores MATE - n
MATE_BOUND = MATE - 2 * MAX_PLY  # |score| above this is a mate score
DRAW = 0
# A position of the endgame tables won for the side to move in d plies, found at ply p, scores TB_WIN - p - d
# (lost: the negation): ordered by the distance, below every mate the search finds itself.
TB_WIN = MATE_BOUND - 1
TB_BOUND = MATE_BOUND - 512  # |score| at or above this: a table's win or loss (or a mate), ply-relative

# --- search scratch: one int32 array S per search, at these offsets ------------------------------
MAX_MULTIPV = 5
PLY_ROWS = MAX_PLY + 8
S_KILLERS = 0  # [PLY_ROWS][2]
S_HISTORY = S_KILLERS + PLY_ROWS * 2  # [16 piece][64 to] quiet-move history
S_COUNTER = S_HISTORY + 16 * 64  # [16 piece][64 to] of the previous move -> its refutation
S_MOVES = S_COUNTER + 16 * 64  # [PLY_ROWS][MAX_MOVES] move lists
S_SCORES = S_MOVES + PLY_ROWS * MAX_MOVES  # [PLY_ROWS][MAX_MOVES] their ordering scores
S_PV = S_SCORES + PLY_ROWS * MAX_MOVES  # [PLY_ROWS][PLY_ROWS] triangular PV table
S_PV_LEN = S_PV + PLY_ROWS * PLY_ROWS  # [PLY_ROWS]
S_EVAL = S_PV_LEN + PLY_ROWS  # [PLY_ROWS] static eval per ply (for "improving")
S_EXCLUDED = S_EVAL + PLY_ROWS  # [MAX_MULTIPV] root moves skipped (lines already found)
S_LINE_SCORE = S_EXCLUDED + MAX_MULTIPV  # [MAX_MULTIPV] results of the last completed iteration
S_LINE_LEN = S_LINE_SCORE + MAX_MULTIPV
S_LINE_SELDEPTH = S_LINE_LEN + MAX_MULTIPV
S_LINE_PV = S_LINE_SELDEPTH + MAX_MULTIPV  # [MAX_MULTIPV][PLY_ROWS]
S_PARAMS = S_LINE_PV + MAX_MULTIPV * PLY_ROWS  # tunable weights, see engine/params.py
S_LMR = S_PARAMS + 256  # [64 depth][64 move number] late-move reductions, filled from the params
S_ROOT_SCORE = S_LMR + 64 * 64  # score of the root move now in PV row 0 (kept for a cut-short iteration)
S_CONT_INDEX = S_ROOT_SCORE + 8  # [PLY_ROWS] the move made at each ply as piece * 64 + to (continuation history)
S_SINGULAR = S_CONT_INDEX + PLY_ROWS  # [PLY_ROWS] the move a singular-extension search leaves out, per ply
S_SIZE = S_SINGULAR + PLY_ROWS

# --- continuation history: one int16 array per search, [12 * 64 previous move][12 * 64 move] -------
CONT_MOVES = 12 * 64  # a move as (piece type and colour, 0..11) * 64 + destination
CONT_SIZE = CONT_MOVES * CONT_MOVES

# --- the learned evaluation (engine/nnue.py): one int16 array holds the net, at these offsets ---------
NNUE_HIDDEN = 256  # accumulator width; a net file must match it
NNUE_QA = 255  # accumulator weights and biases are scaled by QA (an activation of 1.0 is QA)
NNUE_QB = 1024  # output weights are scaled by QB (int64 sums: a fine step costs nothing)
NNUE_SCALE = 400  # the net's output times SCALE is centipawns
NNUE_SHIFT = 6  # activations squared are >> SHIFT (<= 1016: 16 bits, and 512 of them times QB-scaled
#                weights sum within int32)
NNUE_OUT_DIV = NNUE_QA * NNUE_QA * NNUE_QB >> NNUE_SHIFT  # the output sum's unit
NNUE_BUCKETS = 8  # output layers a net may have, one per range of piece counts (engine/nnue.py's bucket_of)
NET_W1 = 0  # [768 feature][NNUE_HIDDEN] accumulator weights
NET_B1 = NET_W1 + 768 * NNUE_HIDDEN  # [NNUE_HIDDEN]
NET_W2 = NET_B1 + NNUE_HIDDEN  # [NNUE_BUCKETS][2][NNUE_HIDDEN] output weights, side to move's half first
NET_B2 = NET_W2 + NNUE_BUCKETS * 2 * NNUE_HIDDEN  # [NNUE_BUCKETS] output biases, int32 as (low, high) int16
NET_BUCKET_OF = NET_B2 + NNUE_BUCKETS * 2  # [65] the output bucket of each piece count: a table, so that a
#                net of one bucket reads bucket 0 everywhere and its arithmetic is what it was before buckets
NET_SIZE = NET_BUCKET_OF + 65
# Accumulators, one int16 array per search: [PLY_ROWS + 1 ply][2 perspective][NNUE_HIDDEN], ply 0 the root.
ACC_SIZE = (PLY_ROWS + 1) * 2 * NNUE_HIDDEN

# --- search control: one int64 array ctl per search ----------------------------------------------
C_NODES = 0
C_SELDEPTH = 1
C_STOP = 2  # set by another thread (UCI `stop`): the search ends as soon as it sees it
C_DEADLINE = 3  # CLOCK_MONOTONIC ns at which the search must stop; 0 = none
C_NODE_LIMIT = 4  # 0 = none
C_ABORTED = 5  # set by the search when it stopped early; the iteration's results are partial
C_DEPTH = 6  # the iteration being searched
C_MULTIPV = 7
C_EXCLUDED = 8  # how many root moves are excluded (multipv lines found so far this iteration)
C_LINES = 9  # lines completed in the last iteration
C_ROOT_PLY = 10  # st[ST_PLY] at the root (to tell game history from the search tree)
C_TT_MASK = 11  # number of TT buckets - 1
C_TT_EPOCH = 12  # 1..31: entries stamped with another epoch belong to another search (unless C_TT_AGES)
C_TT_SALT = 13  # XORed into stored keys, so no search can ever match another's entries
C_PARTIAL = 14  # the cut-short iteration already has a new best root move (PV row 0, S_ROOT_SCORE)
C_TT_AGES = 15  # 0..30: entries of that many earlier epochs count too (the same game's searches, UCI); 0 = none
C_TABLEBASES = 16  # 1: positions of the endgame tables loaded so far score by them (engine/core/tbprobe.py)
C_TBHITS = 17  # table probes that answered
N_CTL = 18

# --- endgame tables: one flat uint8 array of every table's bytes, and one int64 index array TBI --------
# TBI[TBI_ROWS + tid * TBI_ROW + TB_*]: where table tid's bytes start in the flat array, a side's size,
# whether it has pawns, whether it is loaded (set once its bytes are in), whether a search wanted it (set by
# the search, read by engine/tablebase.py's loader), its piece count and its pieces' codes (4 bits each, the
# index's order). TBI[TBI_KEYS + material key] = tid * 2 + 1 if the position's colours are swapped, or -1.
TB_OFF, TB_NSIDE, TB_PAWNFUL, TB_LOADED, TB_WANT, TB_PIECES, TB_ORDER = 0, 1, 2, 3, 4, 5, 6
TBI_ROW = 8
TBI_ROWS = 8
TBI_MAX_TABLES = 64
TBI_KEYS = TBI_ROWS + TBI_MAX_TABLES * TBI_ROW
TBI_SIZE = TBI_KEYS + 243 * 243
TB_DRAW = 254  # a table's byte for a draw (else the distance to mate in plies: odd, the side to move mates)
TT_EPOCHS = 31  # epoch values 1..31 fit a table entry's five spare bits
