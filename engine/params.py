"""Tunable search parameters.

They live in the search scratch array (S[S_PARAMS + index]) rather than in the compiled code, so a
match can compare two settings of the same build (UCI `setoption`, listed when KIBITZ_TUNING=1).
Values are centipawns unless said otherwise. Each term's measured gain is in docs/strength.md.
"""

# name, default, min, max
PARAMS = [
    # search
    ("NullMove", 1, 0, 1),
    ("Lmr", 1, 0, 1),
    ("LmrBase", 75, 0, 300),  # reduction = (LmrBase + 100 ln(depth) ln(move number) / (LmrDivisor/100)) / 100
    ("LmrDivisor", 225, 100, 600),
    ("LmrHistory", 6000, 0, 100000),  # history per ply of reduction removed (good history) or added (bad); 0 = off
    ("LmrHistoryMax", 2, 0, 4),  # cap on that adjustment, plies
    ("Futility", 1, 0, 1),
    ("ReverseFutility", 1, 0, 1),
    ("Aspiration", 1, 0, 1),
    ("Lmp", 1, 0, 1),
    ("SeePruning", 1, 0, 1),
    ("QsearchTT", 1, 0, 1),  # probe and store the transposition table in quiescence search
    ("QsearchChecks", 1, 0, 1),  # quiet checks (not losing material) at the first quiescence ply
    ("LmrChecks", 0, 0, 1),  # reduce moves that give check (one ply less than other moves); 0: never
    # refinements, each decided by SPRT (docs/strength.md; the ones that lost were deleted after commit fddcce6)
    ("ContHistory", 1, 0, 1),  # continuation history (the moves 1 and 2 plies back) in quiet ordering and LMR
    ("KeepTable", 1, 0, 1),  # UCI games: the transposition table is kept from move to move (engine/game_memory.py)
    ("KeepHistory", 1, 0, 1),  # UCI games: and the move-ordering histories
    ("TimeStability", 0, 0, 1),  # clock games: more time when the best move changes or the score falls
    # clock games: percent of the increment in each move's base time (engine/time_manager.py for_clock); at
    # 75 Kibitz ends 10+0.1 games with ~2.3 s of its clock unused (docs/benchmarks.md "Clock use")
    ("TimeIncShare", 75, 0, 200),
    # clock games without movestogo: the moves the clock left is shared over (for_clock); at 30 Kibitz had
    # spent 5 s of 10 by move 20 of its lost games against Stockfish, which had spent all of its own
    ("TimeMovesToGo", 30, 8, 60),
    # singular extensions, with multi-cut and negative extensions: lost twice at 10k-30k nodes (too shallow
    # to trigger), won at 10+0.1 from depth 10 (issue 32, docs/strength.md)
    ("Singular", 1, 0, 1),
    ("SingularDepth", 10, 4, 16),  # from this depth
    ("SingularMargin", 2, 0, 8),  # singular beta = table score - SingularMargin per ply of depth
    # search margins (centipawns; "per ply" ones are multiplied by the remaining depth)
    # reverse futility: static eval - RfpMargin per ply (less one if improving) >= beta; 75 until WAC showed
    # it returning before threats were seen (docs/strength.md)
    ("RfpMargin", 100, 0, 300),
    ("RazorBase", 200, 0, 1000),  # razoring: eval + RazorBase + RazorPerPly per ply <= alpha goes to qsearch
    ("RazorPerPly", 250, 0, 1000),
    ("FutilityBase", 100, 0, 1000),  # futility: quiet moves skipped when eval + base + per ply <= alpha
    ("FutilityPerPly", 90, 0, 500),
    ("SeeQuietMargin", 70, 0, 300),  # SEE pruning: a quiet move losing more than this per ply is skipped
    ("SeeCaptureMargin", 100, 0, 300),  # and a bad capture losing more than this per ply
    ("DeltaMargin", 150, 0, 1000),  # delta pruning in qsearch: stand pat + victim + DeltaMargin <= alpha
    # evaluation: the net's score shrunk toward a draw where the side ahead has no pawns and at most a minor
    # more, or the wrong bishop's rook pawns (engine/core/endgames.py drawish_scale)
    ("DrawScale", 1, 0, 1),
    # the net's score x EgScale/64 with 30 or less of material (P=1, N=B=3, R=5, Q=9, both sides), rising
    # linearly to x 1 at 60: its endgame scores need ~1.6x its middlegame's to win as often (the WDL fit's
    # a(m), docs/wdl.md), so without it the search trades into endings it overrates; 64 = off
    ("EgScale", 40, 16, 64),
]

INDEX = {name: i for i, (name, *_rest) in enumerate(PARAMS)}
DEFAULTS = [default for _, default, _, _ in PARAMS]

# Indices as module constants for the compiled code (numba freezes them).
P_CONT_HISTORY = INDEX["ContHistory"]
P_NULL_MOVE = INDEX["NullMove"]
P_LMR = INDEX["Lmr"]
P_FUTILITY = INDEX["Futility"]
P_RFP = INDEX["ReverseFutility"]
P_ASPIRATION = INDEX["Aspiration"]
P_LMP = INDEX["Lmp"]
P_SEE_PRUNING = INDEX["SeePruning"]
P_QSEARCH_TT = INDEX["QsearchTT"]
P_QSEARCH_CHECKS = INDEX["QsearchChecks"]
P_LMR_CHECKS = INDEX["LmrChecks"]
P_LMR_HISTORY = INDEX["LmrHistory"]
P_LMR_HISTORY_MAX = INDEX["LmrHistoryMax"]
P_RFP_MARGIN = INDEX["RfpMargin"]
P_SINGULAR = INDEX["Singular"]
P_SINGULAR_DEPTH = INDEX["SingularDepth"]
P_SINGULAR_MARGIN = INDEX["SingularMargin"]
P_RAZOR_BASE = INDEX["RazorBase"]
P_RAZOR_PER_PLY = INDEX["RazorPerPly"]
P_FUTILITY_BASE = INDEX["FutilityBase"]
P_FUTILITY_PER_PLY = INDEX["FutilityPerPly"]
P_SEE_QUIET_MARGIN = INDEX["SeeQuietMargin"]
P_SEE_CAPTURE_MARGIN = INDEX["SeeCaptureMargin"]
P_DELTA_MARGIN = INDEX["DeltaMargin"]
P_DRAW_SCALE = INDEX["DrawScale"]
P_EG_SCALE = INDEX["EgScale"]
