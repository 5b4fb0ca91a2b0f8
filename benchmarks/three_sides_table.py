"""The three-side figures as one Markdown table for RESULTS.md, from ``benchmarks.run --json`` files.

``python -m benchmarks.three_sides_table LINE:PATH [LINE:PATH ...]``, e.g.
``4.3.0:/tmp/4.3-task.json 3.5.9:/tmp/3.5-task.json``: one row per Spark line and workload, in the
order given. Written by hand these rows were a source of copying slips; this keeps them equal to
what the runs measured.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.three_sides import NAME, RATIOS, SIDE_NAMES

HEADER = (
    "| pyspark | workload | CPU | ours / plain | jar / plain | **ours / jar** | ours+jar / jar "
    "| CPU s: plain, ours, jar, ours+jar | JVM peak heap MiB: plain, ours, jar, ours+jar | runs per side |"
)
RULE = "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | ---: |"
#: The rows of a workload: the ratios as measured, then per job (see :mod:`benchmarks.three_sides`).
MEASURES = (("as measured", ""), ("per job", "_per_job"))


def workloads_of(figures: Iterable[Mapping[str, Any]]) -> list[str]:
    """The workloads whose figures are in ``figures`` (``three_sides_<workload>_<ratio>``), in order."""
    found: list[str] = []
    suffix = f"_{RATIOS[0][0]}"
    for figure in figures:
        name = str(figure["name"])
        if name.startswith(f"{NAME}_") and name.endswith(suffix):
            found.append(name[len(NAME) + 1 : -len(suffix)])
    return found


def ratio_cell(figure: Mapping[str, Any] | None) -> str:
    """``1.023 [0.98-1.07]``; ``-`` where the figure is missing."""
    if figure is None:
        return "-"
    low, high = figure.get("details", {}).get("ci95", [math.nan, math.nan])
    interval = "" if math.isnan(low) or math.isnan(high) else f" [{low:.2f}-{high:.2f}]"
    return f"{figure['value']:.3f}{interval}"


def row(
    line: str, workload: str, figures: Sequence[Mapping[str, Any]], measure: tuple[str, str] = MEASURES[0]
) -> str:
    by_name = {str(figure["name"]): figure for figure in figures}
    prefix = f"{NAME}_{workload}"
    label, ending = measure
    ratios = [ratio_cell(by_name.get(f"{prefix}_{suffix}{ending}")) for suffix, *_ in RATIOS]

    def per_side(kind: str) -> str:
        values = [by_name.get(f"{prefix}_{side}_{kind}") for side in SIDE_NAMES]
        return ", ".join(
            "-" if v is None else f"{v['value']:.1f}" if kind == "cpu_seconds" else f"{v['value']:.0f}"
            for v in values
        )

    runs = by_name.get(f"{prefix}_plain_cpu_seconds", {}).get("details", {}).get("runs", "-")
    if ending:  # the per-side columns belong to the first row
        return "| " + " | ".join([line, workload, label, *ratios, "", "", ""]) + " |"
    cells = [line, workload, label, *ratios, per_side("cpu_seconds"), per_side("heap_peak_mib"), str(runs)]
    return "| " + " | ".join(cells) + " |"


def table(lines: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> str:
    """Two rows per (line, workload) of each ``(line, figures)`` given: as measured, per job."""
    rows = [
        row(line, workload, figures, measure)
        for line, figures in lines
        for workload in workloads_of(figures)
        for measure in MEASURES
    ]
    return "\n".join([HEADER, RULE, *rows])


def main(argv: list[str]) -> None:
    lines = []
    for argument in argv:
        line, _, path = argument.partition(":")
        lines.append((line, json.loads(Path(path).read_text())))
    print(table(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
