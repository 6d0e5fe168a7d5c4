"""An analysis as text for a terminal: `kibitz analyze` (cli.py) and `kibitz analyze --live` (live_view.py)
print it."""

from engine.pgn import movetext


def score_text(score):
    if "mate" in score:
        return f"mate in {score['mate']}" if score["mate"] > 0 else f"mated in {-score['mate']}"
    return f"{score['cp'] / 100:+.2f}"


def tablebase_text(a):
    """The endgame tables' answer as words, "White wins, mate in 23" or "draw" (its category is the side to move's)."""
    t = a["tablebase"]
    if t["category"] == "draw":
        return "draw"
    mover = a["side_to_move"].capitalize()
    winner = mover if t["category"] in ("win", "cursed-win") else ("Black" if mover == "White" else "White")
    if t["category"] in ("cursed-win", "blessed-loss"):  # the halfmove clock leaves too few moves for the mate
        return f"draw by the fifty-move rule ({winner} mates in {abs(t['dtm'])}, too late)"
    return f"{winner} wins, mate in {abs(t['dtm'])}"


def readable(a):
    lines = [f"Position  {a['fen']}  ({a['side_to_move']} to move)"]
    if a["game_over"]:
        lines.append(f"Game over: {a['game_over']} ({a['result']})")
        return "\n".join(lines)
    lines.append(f"Best move {a['best_move_san']} ({a['best_move']})"
                 + (f", expecting {a['ponder_san']}" if a["ponder_san"] else ""))
    lines.append(f"Score     {score_text(a['score'])} for {a['side_to_move']}, "
                 f"{score_text(a['score_white'])} from White's side")
    w = a["wdl"]
    lines.append(f"Chances   {w['win'] / 10:.1f}% win, {w['draw'] / 10:.1f}% draw, {w['loss'] / 10:.1f}% loss for "
                 f"{a['side_to_move']}; White's expected score {a['win_chance']:.1f}%")
    if a.get("tablebase"):
        lines.append(f"Tablebase {tablebase_text(a)}; keeping it: {', '.join(a['tablebase']['best_san'])}")
    lines.append(f"Search    depth {a['depth']}/{a['seldepth']}, {a['nodes']:,} nodes in {a['time_ms']} ms "
                 f"({a['nps']:,} nps, budget {a['budget_ms']} ms, {a['engine']['backend']})")
    for line in a["lines"]:
        pv = movetext(a["fen"], line["pv_san"])
        lines.append(f"  {line['multipv']}. {score_text(line['score_white']):>10}  {pv}")
    return "\n".join(lines)
