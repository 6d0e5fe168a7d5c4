"""benchmarks/match.py --record: a new row joins the Matches table, and nothing written by hand is lost."""

from benchmarks import common
from benchmarks.match import Limits, Match, Player, bench_signature, record_match
from training import report


def test_record_adds_the_row_and_keeps_the_rows_footnote_and_paragraphs(tmp_path, monkeypatch):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(
        "# Benchmarks\n\n## Matches\n\n`old command` — 2026-01-01, old machine\n\n"
        "| match | time control | games | W/D/L (Kibitz) | score | Elo difference [95%] | problems |\n"
        "|---|---|---|---|---|---|---|\n"
        "| Kibitz (bench 1) vs Stockfish 15.1, UCI_Elo 2600 | 10+0.1 | 2 | +1 =0 -1 | 50.0% | +0 [-1, +1] | 0 |\n\n"
        "Openings: the 2-move book. Bench 1 lost once on time (a note added by hand).\n\n"
        "Bench 1 is the first net: a paragraph written by hand.\n\n"
        "| a table of pairs | written | by hand |\n\n"
        "## Perft\n\nthe next section\n")
    monkeypatch.setattr(report, "DOC", doc)
    monkeypatch.setattr(common, "DOC", doc)
    a = Player("Kibitz", "python -m engine.uci", cwd=common.ROOT)
    b = Player("Kibitz", "python -m engine.uci", {"NullMove": 0}, cwd=common.ROOT)
    match = Match(a, b, Limits("10+0.1"), 2)
    match.scores = [1.0, 0.5]
    match.penta.add(1.0, 0.5)
    record_match(match, "Stockfish 15.1, UCI_Elo 2850", Limits("10+0.1"), "the new command")
    text = doc.read_text()
    assert "| Kibitz (bench 1) vs Stockfish 15.1, UCI_Elo 2600 |" in text
    new_row = f"| Kibitz (bench {bench_signature(common.ROOT)}) vs Stockfish 15.1, UCI_Elo 2850 | 10+0.1 | 2 |"
    assert new_row in text and "<!-- the new command -->" in text
    assert text.index("UCI_Elo 2600") < text.index("UCI_Elo 2850") < text.index("Openings:")
    assert "Bench 1 lost once on time (a note added by hand)." in text
    assert "Bench 1 is the first net: a paragraph written by hand." in text
    assert "| a table of pairs | written | by hand |" in text
    assert text.index("a paragraph written by hand") < text.index("## Perft")
    assert text.endswith("## Perft\n\nthe next section\n")
    assert "`old command`" not in text  # the section's stamp is the new run's
