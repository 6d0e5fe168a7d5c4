"""`bench`: a fixed search over varied positions whose total node count is the engine's signature.

Any change to search or evaluation changes the count; a change that should not (a refactor) must
leave it alone. Commits that change it say `Bench: N`.
"""

import time

BENCH_DEPTH = 14
BENCH_HASH_MB = 16
SIGNATURE = 5908853  # total nodes of run(); tests/test_bench.py holds the engine to it

# Openings, middlegames with tactics, and endgames; a mix of sources (CPW perft positions, WAC, ECM).
POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pp3ppp/4pn2/2pp4/3P4/2N1PN2/PPP2PPP/R1BQKB1R w KQkq - 0 5",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 4 8",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    "4k2r/1q1p1pp1/p3p3/1pb1P3/2r3P1/P1N1P2p/1PP1Q2P/2R1R1K1 b k - 0 1",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
    "r2q1rk1/1b1nbppp/pp1ppn2/8/2PNP3/1PN1B3/P3BPPP/R2Q1RK1 w - - 0 11",
    "3r1rk1/p1q2ppp/1pb1pn2/2p5/2P5/1P2PN2/PB1Q1PPP/3R1RK1 w - - 0 16",
    "2kr3r/ppp2ppp/2n1b3/2b1P3/8/2N2N2/PPP2PPP/R1B1K2R w KQ - 0 12",
    "r1bqk2r/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQK2R w KQkq - 0 7",
    "8/8/1p1k4/1P1p4/3P1K2/8/8/8 w - - 0 1",
    "8/8/8/3k4/8/4K3/4P3/8 w - - 0 1",
    "8/5pk1/6p1/8/3R4/6P1/5PKP/1r6 w - - 0 40",
    "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1",
    "8/8/3k4/8/2KB4/3N4/8/8 w - - 0 1",
    "2r3k1/5pp1/p3p2p/1p1pP3/3P1P2/1P1Q2P1/P6P/6K1 b - - 0 30",
    "r5k1/5ppp/2p5/p1p5/P1P2P2/1P2q2P/6P1/3Q2K1 w - - 0 30",
    "1k6/1p4p1/p1p1r2p/2P2p2/1P1P4/P4P2/5K1P/4R3 w - - 0 35",
    "8/p4pk1/1p4p1/3P3p/2P5/1P4P1/P4P1P/6K1 w - - 0 35",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17",
]


def run(depth=BENCH_DEPTH, hash_mb=BENCH_HASH_MB, report=None):
    """Search every position to `depth`; returns (total nodes, seconds)."""
    from engine import analyse

    total = 0
    t0 = time.perf_counter()
    for i, fen in enumerate(POSITIONS):
        r = analyse(fen, depth=depth, hash_mb=hash_mb, tablebases=False,  # the search's nodes, not the tables'
                    profile="game")  # the defaults of engine/params.py, as tuned
        total += r.nodes
        if report:
            report(f"info string bench {i + 1}/{len(POSITIONS)} {r.best_move} {r.score.uci()} nodes {r.nodes}")
    return total, time.perf_counter() - t0
