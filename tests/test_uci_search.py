"""The UCI program searching: go with limits, stop, info lines, bestmove/ponder, and python-chess as a client."""

import subprocess
import sys
import time

import chess
import chess.engine
import numpy as np

from engine.time_manager import budget
from tests.conftest import LATE_MS, ROOT

UCI = [sys.executable, "-m", "engine.uci"]


class Engine:
    """A UCI engine subprocess driven line by line."""

    def __init__(self):
        self.proc = subprocess.Popen(UCI, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix, timeout=30):
        lines = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline().rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines
        raise TimeoutError(f"no {prefix!r} within {timeout} s: {lines[-5:]}")

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def test_go_depth_prints_info_per_iteration_and_bestmove():
    e = Engine()
    e.send("position startpos moves e2e4")
    e.send("go depth 8")
    lines = e.until("bestmove")
    e.close()
    infos = [line for line in lines if line.startswith("info depth")]
    assert [int(line.split()[2]) for line in infos] == list(range(1, 9))
    for word in ("seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time", "pv"):
        assert f" {word} " in infos[-1]
    best = lines[-1].split()
    assert best[0] == "bestmove" and chess.Move.from_uci(best[1]) in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
    assert best[2] == "ponder"


def test_stop_ends_go_infinite_and_isready_answers_while_searching():
    e = Engine()
    e.send("position startpos")
    e.send("go infinite")
    time.sleep(0.5)
    e.send("isready")
    assert e.until("readyok", timeout=2)[-1] == "readyok"
    e.send("stop")
    lines = e.until("bestmove", timeout=LATE_MS / 1000)  # an infinite search never ends by itself: `stop` ended it
    assert lines[-1].split()[1] in {m.uci() for m in chess.Board().legal_moves}
    e.close()


def test_go_movetime_and_clock_limits():
    e = Engine()
    e.send("position startpos")
    e.send("isready")
    e.until("readyok")  # started: the time from here on is the search's
    t0 = time.monotonic()
    e.send("go movetime 300")
    e.until("bestmove", timeout=5)
    assert 299 <= (time.monotonic() - t0) * 1000 < 300 + LATE_MS  # the time ended it, and on time
    clock = budget(0, wtime=2000, btime=2000).hard_ms  # a few per cent of a 2 s clock: 195 ms
    t0 = time.monotonic()
    e.send("go wtime 2000 btime 2000 winc 0 binc 0")
    e.until("bestmove", timeout=5)
    assert (time.monotonic() - t0) * 1000 < clock + LATE_MS
    e.send("go nodes 5000")
    lines = e.until("bestmove")
    assert lines[-1].startswith("bestmove ")
    e.close()


def test_multipv_option_and_checkmated_root():
    e = Engine()
    e.send("setoption name MultiPV value 3")
    e.send("position startpos")
    e.send("go depth 5")
    lines = e.until("bestmove")
    assert {line.split(" multipv ")[1].split()[0] for line in lines if " depth 5 " in line} == {"1", "2", "3"}
    e.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    e.send("go depth 5")
    assert e.until("bestmove")[-1] == "bestmove (none)"
    e.close()


def test_python_chess_drives_the_engine():
    engine = chess.engine.SimpleEngine.popen_uci(UCI, cwd=ROOT)
    try:
        assert engine.id["name"].startswith("Kibitz")
        board = chess.Board()
        for _ in range(6):
            result = engine.play(board, chess.engine.Limit(time=0.05))
            assert result.move in board.legal_moves
            board.push(result.move)
        infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=2)
        assert len(infos) == 2 and all(info["pv"][0] in board.legal_moves for info in infos)
        engine.configure({"Hash": 8})
        mate = engine.analyse(chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"), chess.engine.Limit(depth=4))
        assert mate["score"].relative == chess.engine.Mate(1)
    finally:
        engine.quit()


def test_isready_faults_the_hash_table_in_before_the_first_go():
    import io

    from engine import tt_pool
    from engine.uci import UciSession

    tt_pool._spare = None
    session = UciSession(out=io.StringIO())
    session.handle("setoption name Hash value 2")
    session.handle("isready")
    table, used = tt_pool._spare
    assert table.nbytes == 2 * 1024 * 1024 and used == 0
    session.handle("setoption name Hash value 1")  # a smaller table fits in the one there is
    session.handle("isready")
    assert tt_pool._spare[0] is table
    assert session.out.getvalue().count("readyok") == 2


def _nodes_of_go(session, out, command):
    """Nodes of the last info line of one `go` in an in-process UciSession."""
    start = len(out.getvalue())
    session.handle(command)
    session.wait()
    infos = [line for line in out.getvalue()[start:].splitlines() if line.startswith("info depth")]
    return int(infos[-1].split(" nodes ")[1].split()[0])


def test_a_game_keeps_its_table_from_move_to_move_and_ucinewgame_forgets_it():
    """KeepTable (the default): the second search of a position finds the first one's entries and needs
    fewer nodes for the same depth; after ucinewgame, or with KeepTable=0 and KeepHistory=0, every search
    starts afresh and, at one thread and a fixed depth, repeats the first exactly."""
    import io

    from engine.uci import UciSession

    out = io.StringIO()
    session = UciSession(out=out)
    session.handle("position startpos moves e2e4 e7e5 g1f3")
    fresh = _nodes_of_go(session, out, "go depth 9")
    assert _nodes_of_go(session, out, "go depth 9") < fresh / 2
    session.handle("ucinewgame")
    session.handle("position startpos moves e2e4 e7e5 g1f3")
    assert _nodes_of_go(session, out, "go depth 9") == fresh
    # as `setoption name KeepTable value 0` sets it with KIBITZ_TUNING=1
    session.params.update({"KeepTable": 0, "KeepHistory": 0})
    assert _nodes_of_go(session, out, "go depth 9") == fresh
    assert _nodes_of_go(session, out, "go depth 9") == fresh
    session.handle("quit")


def test_a_game_table_ranks_old_entries_below_new_ones_and_never_matches_another_salt():
    """Entries of the game's earlier searches are probed within `ages`; another search's never are."""
    from engine import native
    from engine.game_memory import GameMemory

    game = GameMemory()
    try:
        table, epoch, salt, ages = game.take_table(1 << 10)
        assert (epoch, ages) == (1, 0) and not table.any()
        key = np.uint64(0x123456789ABCDEF)
        data = np.uint64((5 + 8) << 48 | 2 << 56 | epoch << 58 | 777)  # depth 5, lower bound, move 777
        i = int(key & np.uint64((1 << 10) - 1)) * 4
        table[i], table[i + 1] = key ^ np.uint64(salt & 0xFFFFFFFFFFFFFFFF) ^ data, data
        table2, epoch2, salt2, ages2 = game.take_table(1 << 10)
        assert table2 is table and salt2 == salt and (epoch2, ages2) == (2, 1)
        probe = native.core.tt_probe
        s = np.uint64(salt & 0xFFFFFFFFFFFFFFFF)
        assert probe(table, (1 << 10) - 1, key, epoch2, s, ages2) == data  # the game's last search
        assert probe(table, (1 << 10) - 1, key, epoch2, s, 0) == 0  # a fresh search of the same salt
        assert probe(table, (1 << 10) - 1, key, epoch2, s ^ np.uint64(1), ages2) == 0  # another salt
    finally:
        game.close()


def test_keep_history_carries_the_main_thread_histories_to_the_next_move_and_not_the_killers():
    """KeepHistory: the second search of a game starts with the first one's quiet-move history (so it
    searches a different tree than a fresh one); killers and lines start empty; ucinewgame forgets it all."""
    import io

    from engine.layout import S_HISTORY, S_KILLERS, S_LINE_LEN
    from engine.uci import UciSession

    out = io.StringIO()
    session = UciSession(out=out)
    session.params.update({"KeepTable": 0, "KeepHistory": 1})
    session.handle("position startpos moves e2e4 e7e5 g1f3")
    fresh = _nodes_of_go(session, out, "go depth 9")
    S, _, cont = session.game.arrays
    assert S[S_HISTORY:S_HISTORY + 1024].any() and cont.any()
    history = S[S_HISTORY:S_HISTORY + 1024].copy()
    arrays = session.game.take_arrays()
    assert arrays[0] is S and np.array_equal(S[S_HISTORY:S_HISTORY + 1024], history)
    assert not S[S_KILLERS:S_HISTORY].any() and not S[S_LINE_LEN]
    session.game.arrays = arrays
    assert _nodes_of_go(session, out, "go depth 9") != fresh
    session.handle("ucinewgame")
    assert session.game.arrays is None
    session.handle("position startpos moves e2e4 e7e5 g1f3")
    assert _nodes_of_go(session, out, "go depth 9") == fresh
    session.handle("quit")


def test_singular_extensions_change_the_deep_tree_and_still_find_the_forced_win():
    """Singular (on by default since issue 32): at depth 14 (the trigger is depth 10) the table move's
    verification search and its extension change the tree; the best move of a forced line stays found."""
    import io

    from engine.uci import UciSession

    out = io.StringIO()
    session = UciSession(out=out)
    session.params.update({"Singular": 0})  # as `setoption name Singular value 0` sets it with KIBITZ_TUNING=1
    session.handle("position fen r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    off = _nodes_of_go(session, out, "go depth 14")
    session.handle("ucinewgame")
    session.params.update({"Singular": 1})  # as `setoption name Singular value 1` sets it with KIBITZ_TUNING=1
    session.handle("position fen r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    assert _nodes_of_go(session, out, "go depth 14") != off
    # WAC.001: the queen move that mates (Qg6) is still the best move with the extension on
    session.handle("ucinewgame")
    session.handle("position fen 2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1")
    session.handle("go depth 12")  # net-i8 sees the mate from depth 12, with or without the extension
    session.wait()
    assert out.getvalue().strip().splitlines()[-1].startswith("bestmove g3g6")
    session.handle("quit")


def test_tablebases_option_answers_from_the_tables_with_tbhits():
    """Tablebases on: a KQvKR position is answered by the table (a mate score, tbhits > 0); off: searched."""
    fen = "8/8/8/8/5kr1/7Q/K7/8 w - - 0 1"
    e = Engine()
    e.send("setoption name Tablebases value true")
    e.send(f"position fen {fen}")
    e.send("go depth 4")
    on = e.until("bestmove")
    e.send("setoption name Tablebases value false")
    e.send("go depth 4")
    off = e.until("bestmove")
    e.close()
    info_on = [line for line in on if line.startswith("info depth")][-1].split()
    assert info_on[info_on.index("score") + 1] == "mate" and int(info_on[info_on.index("tbhits") + 1]) > 0
    info_off = [line for line in off if line.startswith("info depth")][-1].split()
    assert info_off[info_off.index("tbhits") + 1] == "0" and int(info_off[info_off.index("nodes") + 1]) > 0
