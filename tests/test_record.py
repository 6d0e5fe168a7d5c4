"""--record (benchmarks/report.py record(), and benchmarks/match.py's Matches table through it): the recorded
part of a section is replaced, a new row joins the Matches table, and nothing written by hand is lost."""

from benchmarks import common, report
from benchmarks.match import Limits, Match, Player, bench_signature, record_match


def test_record_adds_the_row_and_keeps_the_rows_footnote_and_paragraphs(tmp_path, monkeypatch):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(
        "# Benchmarks\n\n## Matches\n\n`old command` — 2026-01-01, old machine\n\n"
        "| match | time control | games | W/D/L (Kibitz) | score | Elo difference [95%] | problems |\n"
        "|---|---|---|---|---|---|---|\n"
        "| Kibitz (bench 1) vs Stockfish 15.1, UCI_Elo 2600 | 10+0.1 | 2 | +1 =0 -1 | 50.0% | +0 [-1, +1] | 0 |\n\n"
        "Openings: the 2-move book. Bench 1 lost once on time (a note added by hand).\n\n"
        f"{report.KEEP_BELOW}\n\n"
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
    assert text.index("UCI_Elo 2600") < text.index("UCI_Elo 2850") < text.index("Openings:") < text.index(
        report.KEEP_BELOW) < text.index("a paragraph written by hand")
    assert text.count(report.KEEP_BELOW) == 1
    assert "Bench 1 lost once on time (a note added by hand)." in text
    assert "Bench 1 is the first net: a paragraph written by hand." in text
    assert "| a table of pairs | written | by hand |" in text
    assert text.index("a paragraph written by hand") < text.index("## Perft")
    assert text.endswith("## Perft\n\nthe next section\n")
    assert "`old command`" not in text  # the section's stamp is the new run's
    # A run with --a-opt says so in its row: two runs of one build must not read as the same row.
    record_match(match, "Stockfish 15.1, UCI_Elo 2850", Limits("10+0.1"), "with options",
                 ["TimeStability=1", "Contempt=10"])
    assert (f"| Kibitz (bench {bench_signature(common.ROOT)}, TimeStability=1, Contempt=10) vs Stockfish 15.1, "
            "UCI_Elo 2850 | 10+0.1 | 2 |") in doc.read_text()


def test_record_replaces_the_recorded_part_and_keeps_what_is_below_the_mark(tmp_path, monkeypatch):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# Benchmarks\n\n## WAC\n\n`old command` — 2026-01-01, old machine\n\n| old table |\n\n"
                   f"{report.KEEP_BELOW}\n\nAn earlier run, written by hand.\n\n## Perft\n\nthe next section\n")
    monkeypatch.setattr(report, "DOC", doc)
    for run in ("| first rerun |", "| second rerun |"):
        report.record("WAC", run, "python -m benchmarks.search wac --record")
        text = doc.read_text()
        assert run in text and "| old table |" not in text and "`old command`" not in text
        assert text.count(report.KEEP_BELOW) == 1
        assert text.index(run) < text.index(report.KEEP_BELOW) < text.index("An earlier run, written by hand.")
        assert text.endswith("An earlier run, written by hand.\n\n## Perft\n\nthe next section\n")
    assert "| first rerun |" not in text


def test_record_replaces_a_section_without_the_mark_whole_and_marks_it(tmp_path, monkeypatch):
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## WAC\n\n| old table |\n\nold text\n\n## Perft\n\nthe next section\n")
    monkeypatch.setattr(report, "DOC", doc)
    report.record("WAC", "| new table |", "the command")
    report.record("Clock use", "| a new section |", "another command")
    text = doc.read_text()
    assert "old text" not in text and "| old table |" not in text
    assert text.index("| new table |") < text.index(report.KEEP_BELOW) < text.index("## Perft")
    assert text.index("## Perft\n\nthe next section\n") < text.index("## Clock use")  # appended at the end
    assert text.endswith(f"| a new section |\n\n{report.KEEP_BELOW}\n") and text.count(report.KEEP_BELOW) == 2


def test_every_section_of_the_benchmarks_page_has_the_mark_at_most_once():
    sections = report.DOC.read_text().split("\n## ")[1:]
    assert len(sections) > 20
    marked = [s.splitlines()[0] for s in sections if report.KEEP_BELOW in s]
    assert all(s.count(report.KEEP_BELOW) <= 1 for s in sections)
    assert {"Matches", "WAC", "API answers judged by Stockfish", "Clock use", "WDL model"} <= set(marked)


def test_one_writer_keeps_a_marked_table_row_per_name_and_a_marked_block_per_run(tmp_path):
    """benchmarks/report.py is the one docs writer (issue 67): match.py's SPRT rows (record_row) and spsa.py's
    runs (write_block) go through it, as the sections do."""
    doc = tmp_path / "strength.md"
    doc.write_text("# Playing strength\n\nintro\n")
    header = ["change", "games", "result"]
    heading = "## Changes decided by SPRT\n\nA is the change."
    report.record_row(doc, "<!-- sprt -->", header, ["first", "10", "H1"], "cmd one", heading)
    report.record_row(doc, "<!-- sprt -->", header, ["second", "20", "H0"], "cmd two", heading)
    report.record_row(doc, "<!-- sprt -->", header, ["first", "30", "H0"], "cmd three", heading)
    text = doc.read_text()
    assert text.count("## Changes decided by SPRT") == 1 and text.count("<!-- sprt -->") == 2
    block = text.split("<!-- sprt -->")[1]
    rows = [line for line in block.splitlines() if line.startswith("| ") and "change" not in line]
    assert [r.split("|")[1].strip() for r in rows] == ["second", "first"]
    assert rows[1].endswith("<!-- cmd three -->") and "| 30 " in rows[1] and "cmd one" not in text
    report.write_block(doc, "<!-- spsa a -->", "<!-- /spsa a -->", "run a, 10 iterations", "## SPSA runs")
    report.write_block(doc, "<!-- spsa a -->", "<!-- /spsa a -->", "run a, 20 iterations", "## SPSA runs")
    text = doc.read_text()
    assert "run a, 20 iterations" in text and "10 iterations" not in text and text.count("## SPSA runs") == 1
    assert text.startswith("# Playing strength\n\nintro\n") and text.index("<!-- sprt -->") < text.index("## SPSA")
