"""benchmarks/losses.py: the move at which the opponent's own score first reached a margin in A's losses."""

import json

from benchmarks import losses


def journal(tmp_path, pgns):
    path = tmp_path / "m.jsonl"
    lines = [json.dumps({"settings": {"limits": "10+0.1"}})]
    lines += [json.dumps({"pair": 0, "scores": [0.0, 1.0], "problems": [], "pgn": pgns}), "{torn"]
    path.write_text("\n".join(lines) + "\n")
    return path


# Scores are the mover's, from White's side. B (Black) reaches +1.6 for itself (-1.6) after its second
# move, when A (White) still read its position as +0.2; each side spends 0.5 s a move net of the increment.
LOST_AS_WHITE = ('[White "A"]\n[Black "B"]\n[Result "0-1"]\n\n'
                 '1. e4 { [%clk 0:00:09.6] [%eval 0.30] } 1... e5 { [%clk 0:00:09.6] [%eval -0.40] } '
                 '2. Nf3 { [%clk 0:00:09.2] [%eval 0.20] } 2... Nc6 { [%clk 0:00:09.2] [%eval -1.60] } '
                 '3. Bc4 { [%clk 0:00:08.8] [%eval -3.00] } 3... Nf6 { [%clk 0:00:08.8] [%eval #-2] } 0-1')


def test_the_turn_is_the_first_move_the_opponent_scores_the_margin_for_itself(tmp_path):
    base, inc, lost = losses.lost_games(journal(tmp_path, [LOST_AS_WHITE]))
    assert (base, inc) == (10.0, 0.1) and len(lost) == 1
    a_white, plies = lost[0]
    assert a_white and plies[5] == (False, -losses.MATE, 8.8)
    move, a_score, a_spent, b_spent = losses.turning_point(base, inc, a_white, plies, 1.5)
    assert (move, a_score) == (2, 0.2)
    assert abs(a_spent - 1.0) < 1e-9 and abs(b_spent - 1.0) < 1e-9
    assert losses.turning_point(base, inc, a_white, plies, 5.0)[0] == 3  # only the mate reaches +5


def test_only_a_s_losses_count_whatever_its_colour(tmp_path):
    won_as_black = LOST_AS_WHITE.replace('[White "A"]\n[Black "B"]', '[White "B"]\n[Black "A"]')
    drawn = LOST_AS_WHITE.replace('[Result "0-1"]', '[Result "1/2-1/2"]')
    lost_as_black = won_as_black.replace('[Result "0-1"]', '[Result "1-0"]')
    _, _, lost = losses.lost_games(journal(tmp_path, [won_as_black, drawn, lost_as_black]))
    assert [a_white for a_white, _ in lost] == [False]
    # as Black, A's own scores are the negated ones: B (White) never reaches +1.5 for itself
    assert losses.turning_point(10.0, 0.1, False, lost[0][1], 1.5) is None


def test_the_report_counts_losses_by_when_they_turned(tmp_path):
    text, n = losses.report([journal(tmp_path, [LOST_AS_WHITE, LOST_AS_WHITE])], 1.5)
    first = next(line for line in text.splitlines() if line.startswith("| moves 1-20"))
    assert n == 2 and [c.strip() for c in first.strip("|").split("|")][1:4] == ["2", "0", "0.20"]
