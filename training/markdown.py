"""A markdown table: the text of every printed report, training's (training/wdl.py) and the benchmarks'
(benchmarks/report.py writes them into docs/)."""


def table(headers, rows):
    """A markdown table."""
    cells = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"
    out = [fmt(cells[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt(r) for r in cells[1:]]
    return "\n".join(out)
