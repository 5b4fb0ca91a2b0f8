"""The three-side comparison as a bar chart: ``python -m benchmarks.plot [RESULTS.md] [SVG]``.

A table of 4 ratios x 4 workloads x 2 Spark lines reads badly; bars of each side's CPU over
plain PySpark's, side by side per workload, show at a glance which side costs what. Drawn from
the three-sides table of RESULTS.md (the recorded figures, so the picture never disagrees with
the numbers), as plain SVG text: no plotting library, no fonts to embed, a stable diff.
``benchmarks.run`` redraws it at every recorded run.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from benchmarks.results import RESULTS_FILE, three_sides_rows

SVG_FILE = RESULTS_FILE.with_name("three_sides.svg")
#: The bars of a workload: label, colour. Each is that side's CPU over plain's, per job.
SIDES = (("ours", "#2f7ebc"), ("openlineage-spark jar", "#e08a2c"), ("ours + jar", "#7a5aa6"))
WIDTH_PER_WORKLOAD = 120
HEIGHT = 300
TOP, BOTTOM, LEFT = 50, 60, 50
BAR = 24


@dataclass(frozen=True)
class Ratio:
    """A ratio and its 95% interval (``nan``-free: missing bounds are ``None``)."""

    value: float
    low: float | None = None
    high: float | None = None


def parse_ratio(cell: str) -> Ratio | None:
    """``0.947 [0.84-1.07]`` -> Ratio(0.947, 0.84, 1.07); ``1.024`` -> no interval; ``-`` -> None."""
    match = re.fullmatch(r"\s*([0-9.]+)(?:\s*\[([0-9.]+)-([0-9.]+)\])?\s*", cell)
    if not match:
        return None
    value, low, high = match.groups()
    return Ratio(float(value), float(low) if low else None, float(high) if high else None)


def side_ratios(row: Mapping[str, str]) -> list[Ratio | None]:
    """Ours, the jar's and both together, each over plain. Ours+jar over plain is the product of
    ours+jar over the jar and the jar over plain (ratios of geometric means multiply exactly); its
    interval is not derived, so it is drawn without one."""
    ours = parse_ratio(row.get("ours / plain", ""))
    jar = parse_ratio(row.get("jar / plain", ""))
    both_over_jar = parse_ratio(row.get("ours+jar / jar", ""))
    both = Ratio(both_over_jar.value * jar.value) if both_over_jar and jar else None
    return [ours, jar, both]


def svg(rows: Sequence[Mapping[str, str]]) -> str:
    """One panel per Spark line, a group of bars per workload, a line at 1 (plain PySpark)."""
    lines = list(dict.fromkeys(row["pyspark"] for row in rows))
    by_line = {line: [row for row in rows if row["pyspark"] == line] for line in lines}
    ratios = [r for row in rows for r in side_ratios(row) if r is not None]
    extremes = [
        1.0,
        *(r.value for r in ratios),
        *(b for r in ratios for b in (r.low, r.high) if b is not None),
    ]
    low = min(0.6, round(min(extremes) - 0.1, 1))
    high = round(max(extremes) + 0.1, 1)
    panel_width = LEFT + WIDTH_PER_WORKLOAD * max((len(group) for group in by_line.values()), default=1)
    width = panel_width * max(len(lines), 1) + 20
    height = HEIGHT + TOP + BOTTOM

    def y(value: float) -> float:
        return TOP + HEIGHT * (high - value) / (high - low)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 30}" '
        f'viewBox="0 0 {width} {height + 30}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height + 30}" fill="white"/>',
        '<text x="10" y="20" font-size="14" font-weight="bold">CPU of each side over plain PySpark, per job '
        "(lower is cheaper; whiskers: 95% interval)</text>",
    ]
    for index, line in enumerate(lines):
        left = index * panel_width + LEFT
        out.append(f'<text x="{left}" y="{TOP - 12}" font-weight="bold">pyspark {escape(line)}</text>')
        tick = low
        while tick <= high + 1e-9:
            out.append(
                f'<line x1="{left}" x2="{left + panel_width - LEFT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                f'stroke="#ddd"/><text x="{left - 6}" y="{y(tick) + 4:.1f}" '
                f'text-anchor="end">{tick:.1f}</text>'
            )
            tick = round(tick + 0.2, 1)
        for slot, row in enumerate(by_line[line]):
            centre = left + WIDTH_PER_WORKLOAD * (slot + 0.5)
            out.append(
                f'<text x="{centre:.1f}" y="{TOP + HEIGHT + 18}" text-anchor="middle">'
                f"{escape(row['workload'])}</text>"
            )
            for bar, (ratio, (_, colour)) in enumerate(zip(side_ratios(row), SIDES, strict=True)):
                if ratio is None:
                    continue
                x = centre + (bar - 1.5) * BAR
                top, base = y(max(ratio.value, low)), y(low)
                out.append(
                    f'<rect x="{x:.1f}" y="{top:.1f}" width="{BAR - 2}" height="{base - top:.1f}" '
                    f'fill="{colour}">'
                    f"<title>{ratio.value:.3f}</title></rect>"
                )
                if ratio.low is not None and ratio.high is not None:
                    middle = x + (BAR - 2) / 2
                    out.append(
                        f'<line x1="{middle:.1f}" x2="{middle:.1f}" y1="{y(min(ratio.high, high)):.1f}" '
                        f'y2="{y(max(ratio.low, low)):.1f}" stroke="black"/>'
                    )
        out.append(
            f'<line x1="{left}" x2="{left + panel_width - LEFT}" y1="{y(1.0):.1f}" y2="{y(1.0):.1f}" '
            f'stroke="black" stroke-dasharray="4 3"/>'
        )
    for bar, (label, colour) in enumerate((("plain PySpark = 1", "none"), *SIDES)):
        x = LEFT + bar * 180
        style = (
            'fill="none" stroke="black" stroke-dasharray="4 3"' if colour == "none" else f'fill="{colour}"'
        )
        out.append(
            f'<rect x="{x}" y="{height}" width="14" height="14" {style}/>'
            f'<text x="{x + 20}" y="{height + 12}">{escape(label)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write(results: Path = RESULTS_FILE, target: Path = SVG_FILE) -> bool:
    """Draw the file's three-sides table; False (nothing written) when it has no rows."""
    rows = three_sides_rows(results.read_text())
    if not rows:
        return False
    target.write_text(svg(rows))
    return True


def main(argv: list[str]) -> None:
    results = Path(argv[0]) if argv else RESULTS_FILE
    target = Path(argv[1]) if len(argv) > 1 else results.with_name(SVG_FILE.name)
    print(f"wrote {target}" if write(results, target) else f"no three-sides rows in {results}")


if __name__ == "__main__":
    main(sys.argv[1:])
