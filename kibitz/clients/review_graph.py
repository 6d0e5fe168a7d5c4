"""A reviewed game's evaluation graph as SVG, written by hand (no plotting library): White's win%
after each ply (Lichess's formula from the centipawns, engine/review.py), White's area light and
Black's dark as Lichess draws it, with a dot on each inaccuracy, mistake and blunder.

    svg(game)    # game: a GameSummary of GET /jobs/{job_id}, as JSON
"""

from html import escape

WIDTH, HEIGHT, PAD = 720, 240, 28
COLOURS = {"inaccuracy": "#56b4e9", "mistake": "#e69f00", "blunder": "#db3031"}


def _point(i, value, n):
    x = PAD + (WIDTH - 2 * PAD) * (i / max(1, n - 1))
    y = PAD + (HEIGHT - 2 * PAD) * (1 - value / 100)
    return x, y


def svg(game):
    values = game["win_chances"]
    n = len(values)
    bottom = HEIGHT - PAD
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
             f'<rect x="{PAD}" y="{PAD}" width="{WIDTH - 2 * PAD}" height="{HEIGHT - 2 * PAD}" fill="#3b3b3b"/>']
    # White's area: under the curve, one polygon per run of known values
    run = []
    for i, v in enumerate(values + [None]):
        if v is not None:
            run.append(_point(i, v, n))
            continue
        if run:
            pts = [(run[0][0], bottom), *run, (run[-1][0], bottom)]
            parts.append('<polygon fill="#f0f0f0" points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
            parts.append('<polyline fill="none" stroke="#b0b0b0" stroke-width="1.5" points="' +
                         " ".join(f"{x:.1f},{y:.1f}" for x, y in run) + '"/>')
            run = []
    mid = PAD + (HEIGHT - 2 * PAD) / 2
    parts.append(f'<line x1="{PAD}" y1="{mid}" x2="{WIDTH - PAD}" y2="{mid}" stroke="#e69f00" stroke-width="0.8" '
                 f'stroke-dasharray="4 3"/>')
    for flag in game.get("flagged", []):
        ply = flag["ply"] + 1  # the position after the move
        if ply < n and values[ply] is not None:
            x, y = _point(ply, values[ply], n)
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{COLOURS[flag["judgement"]]}" '
                         f'stroke="#000" stroke-width="0.6"><title>{escape(flag["move"])}</title></circle>')
    title = f"{game['white']} - {game['black']} ({game['result']}): White's win%"
    parts.append(f'<text x="{PAD}" y="{PAD - 9}">{escape(title)}</text>')
    parts.append(f'<text x="{PAD - 4}" y="{PAD + 4}" text-anchor="end">100</text>')
    parts.append(f'<text x="{PAD - 4}" y="{mid + 4}" text-anchor="end">50</text>')
    parts.append(f'<text x="{PAD - 4}" y="{bottom + 4}" text-anchor="end">0</text>')
    parts.append(f'<text x="{WIDTH - PAD}" y="{bottom + 16}" text-anchor="end">ply {max(0, n - 1)}</text>')
    legend_x = WIDTH - PAD - 260
    for i, (name, colour) in enumerate(COLOURS.items()):
        x = legend_x + i * 90
        parts.append(f'<circle cx="{x}" cy="{PAD - 13}" r="4" fill="{colour}"/>'
                     f'<text x="{x + 7}" y="{PAD - 9}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
