"""The UCI program as a subprocess: handshake, position, go perft, d, errors."""

import subprocess
import sys

from tests.conftest import ROOT


def uci(*commands, timeout=60):
    proc = subprocess.run(
        [sys.executable, "-m", "engine.uci"],
        input="\n".join(commands + ("quit",)) + "\n",
        capture_output=True, text=True, cwd=ROOT, timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_handshake():
    out = uci("uci", "isready")
    assert out[0].startswith("id name Kibitz")
    assert "uciok" in out and out[-1] == "readyok"


def test_go_perft_prints_divide_and_total():
    out = uci("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "go perft 3")
    lines = [line for line in out if ": " in line and not line.startswith(("info", "Nodes"))]
    assert len(lines) == 48
    assert sum(int(line.split(": ")[1]) for line in lines) == 97862
    assert "Nodes searched: 97862" in out
    assert "e1g1: 2059" in out  # castling in UCI notation


def test_position_with_moves_and_d():
    out = uci("position startpos moves e2e4 c7c5 g1f3", "d")
    assert "Fen: rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2" in out
    assert any(line.startswith("Key: ") and len(line) == 21 for line in out)
    assert any(line.startswith("info string backend aot") for line in out)


def test_bad_input_is_reported_not_fatal():
    out = uci("position fen 8/8/8 w - - 0 1", "position startpos moves e2e5", "go perft x", "frobnicate", "isready")
    errors = [line for line in out if line.startswith("info string")]
    assert "board field" in errors[0]
    assert "e2e5 is not legal" in errors[1]
    assert "go perft needs a depth" in errors[2]
    assert "unknown command" in errors[3]
    assert out[-1] == "readyok"


def test_uci_chess960_option_castling_king_to_rook():
    # Chess960 start 96 (bbqnrnkr): after Nf1-e3 and Nf8-e6, both sides may castle where the king stands.
    fen = "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1"
    out = uci("uci", "setoption name UCI_Chess960 value true", f"position fen {fen} moves f1e3 f8e6 g1h1",
              "d", "go perft 1", "go depth 3")
    assert "option name UCI_Chess960 type check default false" in out
    assert "Fen: bbqnr1kr/pppppppp/4n3/8/8/4N3/PPPPPPPP/BBQNRRK1 b kq - 3 2" in out
    assert "g8h8: 1" in out  # black's castling, king-to-rook
    assert any(line.startswith("bestmove ") for line in out)
    assert not any(line.startswith("info string error") for line in out)


def test_uci_chess960_off_refuses_960_castling_rights():
    out = uci("position fen bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1", "isready")
    assert any(line.startswith("info string error") and "castling" in line for line in out)
    out = uci("setoption name UCI_Chess960 value true",
              "position fen bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w HEhe - 0 1", "d")
    assert "Fen: bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1" in out
