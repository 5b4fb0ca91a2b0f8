"""Append a dated row per figure to ``benchmarks/RESULTS.md``.

The file is prose followed by one table, which stays its last block, so a run appends rows at the
end. Every row repeats machine and versions: rows from different machines or releases must
never be compared by accident.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from benchmarks.figures import Figure, format_number

RESULTS_FILE = Path(__file__).resolve().parent / "RESULTS.md"
TABLE_HEADER = "| date | figure | value | target | met? | machine | versions |"
TABLE_RULE = "| --- | --- | ---: | --- | --- | --- | --- |"


def rows(figures: Sequence[Figure], when: datetime, machine: str, versions: str) -> list[str]:
    date = when.strftime("%Y-%m-%d %H:%M")
    lines = []
    for figure in figures:
        target = str(figure.target) if figure.target else "info"
        met = {True: "yes", False: "**no**", None: "-"}[figure.met]
        cells = [date, figure.name, format_number(figure.value), target, met, machine, versions]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def append(path: Path, figures: Sequence[Figure], when: datetime, machine: str, versions: str) -> None:
    """Add the rows; write the table header first if the file has no table yet."""
    text = path.read_text() if path.exists() else ""
    prefix = ""
    if TABLE_HEADER not in text:
        prefix = ("\n" if text and not text.endswith("\n\n") else "") + f"{TABLE_HEADER}\n{TABLE_RULE}\n"
    elif text and not text.endswith("\n"):
        prefix = "\n"
    with path.open("a") as results:
        results.write(prefix + "\n".join(rows(figures, when, machine, versions)) + "\n")
