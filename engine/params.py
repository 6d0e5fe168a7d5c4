"""Tunable evaluation and search parameters.

They live in the search scratch array (S[S_PARAMS + index]) rather than in the compiled code, so a
match can compare two settings of the same build (UCI `setoption`, listed when KIBITZ_TUNING=1).
Values are centipawns unless said otherwise. Each term's measured gain is in docs/strength.md.
"""

# name, default, min, max
PARAMS = [
    ("Tempo", 10, 0, 50),
    ("BishopPairMg", 30, 0, 100),
    ("BishopPairEg", 50, 0, 150),
    ("PassedMg", 100, 0, 300),  # percent scale of the passed-pawn bonus by rank (mg)
    ("PassedEg", 100, 0, 300),
    ("DoubledMg", 10, 0, 60),
    ("DoubledEg", 20, 0, 60),
    ("IsolatedMg", 10, 0, 60),
    ("IsolatedEg", 15, 0, 60),
    ("ConnectedMg", 100, 0, 300),  # percent scale of the connected-pawn bonus by rank
    ("ConnectedEg", 100, 0, 300),
    ("MobilityMg", 100, 0, 300),  # percent scale of the mobility tables
    ("MobilityEg", 100, 0, 300),
    ("KingSafety", 100, 0, 300),  # percent scale of the king-attack penalty
    ("PawnShield", 12, 0, 50),
    ("Nnue", 1, 0, 1),  # 1: the learned evaluation (engine/nnue.py, the default); 0: the hand-written one
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
    # refinements, each decided by SPRT (docs/strength.md)
    ("ContHistory", 1, 0, 1),  # continuation history (the moves 1 and 2 plies back) in quiet ordering and LMR
    ("CaptureHistory", 0, 0, 1),  # capture history in capture ordering
    ("Correction", 0, 0, 1),  # static eval corrected by the pawn structure's error statistics
    ("Singular", 0, 0, 1),  # singular extensions, with multi-cut and negative extensions
    ("SingularDepth", 8, 4, 16),  # from this depth
    ("SingularMargin", 2, 0, 8),  # singular beta = table score - SingularMargin per ply
    ("ProbCut", 0, 0, 1),
    ("ProbCutMargin", 200, 50, 500),  # a capture that beats beta + margin in a reduced search cuts
    ("LmrTtPv", 0, 0, 1),  # reduce less at nodes that have been on a principal variation
    ("HistoryPruning", 0, 0, 1),  # quiet moves with history below -margin per ply skipped at low depth
    ("HistoryPruneMargin", 2000, 0, 16000),
    ("KeepTable", 1, 0, 1),  # UCI games: the transposition table is kept from move to move (engine/game_memory.py)
    ("KeepHistory", 1, 0, 1),  # UCI games: and the move-ordering histories
    ("TimeStability", 0, 0, 1),  # clock games: scale the soft time limit by best-move stability and score falls
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
]

INDEX = {name: i for i, (name, *_rest) in enumerate(PARAMS)}
DEFAULTS = [default for _, default, _, _ in PARAMS]

# Indices as module constants for the compiled code (numba freezes them).
P_TEMPO = INDEX["Tempo"]
P_BISHOP_PAIR_MG = INDEX["BishopPairMg"]
P_BISHOP_PAIR_EG = INDEX["BishopPairEg"]
P_PASSED_MG = INDEX["PassedMg"]
P_PASSED_EG = INDEX["PassedEg"]
P_DOUBLED_MG = INDEX["DoubledMg"]
P_DOUBLED_EG = INDEX["DoubledEg"]
P_ISOLATED_MG = INDEX["IsolatedMg"]
P_ISOLATED_EG = INDEX["IsolatedEg"]
P_CONNECTED_MG = INDEX["ConnectedMg"]
P_CONNECTED_EG = INDEX["ConnectedEg"]
P_MOBILITY_MG = INDEX["MobilityMg"]
P_MOBILITY_EG = INDEX["MobilityEg"]
P_KING_SAFETY = INDEX["KingSafety"]
P_PAWN_SHIELD = INDEX["PawnShield"]
P_NNUE = INDEX["Nnue"]
P_CONT_HISTORY = INDEX["ContHistory"]
P_CAPTURE_HISTORY = INDEX["CaptureHistory"]
P_CORRECTION = INDEX["Correction"]
P_SINGULAR = INDEX["Singular"]
P_SINGULAR_DEPTH = INDEX["SingularDepth"]
P_SINGULAR_MARGIN = INDEX["SingularMargin"]
P_PROBCUT = INDEX["ProbCut"]
P_PROBCUT_MARGIN = INDEX["ProbCutMargin"]
P_LMR_TT_PV = INDEX["LmrTtPv"]
P_HISTORY_PRUNING = INDEX["HistoryPruning"]
P_HISTORY_PRUNE_MARGIN = INDEX["HistoryPruneMargin"]
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
P_RAZOR_BASE = INDEX["RazorBase"]
P_RAZOR_PER_PLY = INDEX["RazorPerPly"]
P_FUTILITY_BASE = INDEX["FutilityBase"]
P_FUTILITY_PER_PLY = INDEX["FutilityPerPly"]
P_SEE_QUIET_MARGIN = INDEX["SeeQuietMargin"]
P_SEE_CAPTURE_MARGIN = INDEX["SeeCaptureMargin"]
P_DELTA_MARGIN = INDEX["DeltaMargin"]
