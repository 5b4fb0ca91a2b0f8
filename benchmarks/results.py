"""Keep ``benchmarks/RESULTS.md`` current: a recorded run replaces its figures in place.

RESULTS.md is what a user reads to judge the overhead, so it holds one screen: per figure with a
target, the latest value on each Spark line with its date; the three-side comparison per
workload (which :mod:`benchmarks.plot` draws); and per line the machine and versions of its last
run, so that figures from different machines or releases are never compared by accident. It
used to be a diary that every run appended to; the dated findings now live in ``docs/history.md``.

Each table sits between two marker comments (:func:`begin` / :func:`end`); everything else in
the file is prose this module never touches. :func:`update` is a pure function over the text;
:func:`record` reads, updates and writes the file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from benchmarks.figures import Figure, format_number

RESULTS_FILE = Path(__file__).resolve().parent / "RESULTS.md"

#: The tables :func:`update` maintains, by marker name.
CURRENT = "current-figures"
THREE_SIDES = "three-sides"
RUNS = "runs"
CURRENT_HEADER = ("figure", "target")
THREE_SIDES_HEADER = (
    "pyspark",
    "workload",
    "ours / plain",
    "jar / plain",
    "ours / jar",
    "ours+jar / jar",
    "date",
)
RUNS_HEADER = ("pyspark", "last recorded", "machine", "versions")
#: Three-side figures: ``three_sides_<workload>_<ratio>_per_job`` fills the column of ``<ratio>``.
THREE_SIDES_PREFIX = "three_sides_"
THREE_SIDES_RATIOS = {
    "lineage_over_plain_cpu": "ours / plain",
    "jar_over_plain_cpu": "jar / plain",
    "lineage_over_jar_cpu": "ours / jar",
    "lineage_jar_over_jar_cpu": "ours+jar / jar",
}
PER_JOB = "_per_job"
#: The fresh-process workload's ratios are recorded as measured (:mod:`benchmarks.three_sides_fresh`).
FRESH_PREFIX = f"{THREE_SIDES_PREFIX}fresh_"


def begin(name: str) -> str:
    return f"<!-- begin {name}: benchmarks/results.py rewrites this table at every recorded run -->"


def end(name: str) -> str:
    return f"<!-- end {name} -->"


@dataclass
class Table:
    """A Markdown table as cells: ``header`` names the columns, each row as many cells."""

    header: list[str]
    rows: list[list[str]] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str, default_header: Sequence[str]) -> Table:
        """The table in ``text`` (its first line the header, its second the rule); empty text gives
        an empty table with ``default_header``."""
        lines = [line.strip() for line in text.strip().splitlines() if line.strip().startswith("|")]
        if not lines:
            return cls(list(default_header))
        cells = [_cells(line) for line in lines]
        return cls(cells[0], [row + [""] * (len(cells[0]) - len(row)) for row in cells[2:]])

    def column(self, name: str) -> int:
        """The column's index; a new column at the end if there is none of that name."""
        if name not in self.header:
            self.header.append(name)
            for row in self.rows:
                row.append("")
        return self.header.index(name)

    def row(self, key: Sequence[str]) -> list[str]:
        """The row whose first cells are ``key``; a new row at the end if none."""
        for row in self.rows:
            if row[: len(key)] == list(key):
                return row
        row = [*key, *[""] * (len(self.header) - len(key))]
        self.rows.append(row)
        return row

    def set(self, key: Sequence[str], column: str, value: str) -> None:
        index = self.column(column)
        self.row(key)[index] = value

    def render(self) -> str:
        lines = [self.header, ["---"] * len(self.header), *self.rows]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


@dataclass(frozen=True)
class Run:
    """What a recorded run says about where it ran: its date, Spark line, machine and versions."""

    when: datetime
    line: str
    machine: str
    versions: str

    @property
    def date(self) -> str:
        return self.when.strftime("%Y-%m-%d")


def spark_line(pyspark_version: str) -> str:
    """``4.3.0`` -> ``4.3``: figures are kept per line; the run's exact versions sit in the runs table."""
    match = re.match(r"(\d+)\.(\d+)", pyspark_version)
    return f"{match.group(1)}.{match.group(2)}" if match else pyspark_version


def figure_cell(figure: Figure, date: str) -> str:
    """``1.009 met, 2026-11-25``; a missed target in bold, so it is the first thing one sees."""
    value = format_number(figure.value)
    if figure.met is False:
        return f"**{value} missed**, {date}"
    return f"{value} met, {date}"


def interval_cell(figure: Figure) -> str:
    """``0.947 [0.84-1.07]``: the ratio with its 95% interval when the figure has one."""
    low, high = figure.details.get("ci95", [math.nan, math.nan])
    interval = "" if math.isnan(low) or math.isnan(high) else f" [{low:.2f}-{high:.2f}]"
    return f"{figure.value:.3f}{interval}"


def three_sides_key(name: str) -> tuple[str, str] | None:
    """``three_sides_tiny_actions_jar_over_plain_cpu_per_job`` -> (``tiny_actions``, ``jar / plain``);
    ``three_sides_fresh_<ratio>`` (as measured, paired) likewise; ``None`` for any other figure (the
    per-side CPU seconds and heaps stay in the JSON output)."""
    if not name.startswith(THREE_SIDES_PREFIX):
        return None
    if name.endswith(PER_JOB):
        rest = name[len(THREE_SIDES_PREFIX) : -len(PER_JOB)]
    elif name.startswith(FRESH_PREFIX):  # whole processes: paired ratios as measured, no per-job form
        rest = name[len(THREE_SIDES_PREFIX) :]
    else:
        return None
    for suffix, column in THREE_SIDES_RATIOS.items():
        if rest.endswith(f"_{suffix}"):
            return rest[: -len(suffix) - 1], column
    return None


def update(text: str, figures: Sequence[Figure], run: Run) -> str:
    """RESULTS.md's text with ``figures`` of ``run`` in place of that line's older ones.

    A figure with a target replaces its cell in the current-figures table (the column of the run's
    Spark line; its target as the figure states it now); a three-side per-job ratio its cell in the
    three-sides table; other figures (``info``) are context for one run and are not kept. A table
    missing from the text is added at its end; rows and columns keep their order, new ones follow.
    """
    tables = {
        CURRENT: Table.parse(_section(text, CURRENT) or "", CURRENT_HEADER),
        THREE_SIDES: Table.parse(_section(text, THREE_SIDES) or "", THREE_SIDES_HEADER),
        RUNS: Table.parse(_section(text, RUNS) or "", RUNS_HEADER),
    }
    changed = set()
    touched = dict.fromkeys(key[0] for key in map(three_sides_key, (f.name for f in figures)) if key)
    for workload in touched:  # in the figures' order: a new row's place must not depend on hashing
        for (
            column
        ) in THREE_SIDES_RATIOS.values():  # a ratio this run did not measure is not left dated as its
            tables[THREE_SIDES].set((run.line, workload), column, "")
    for figure in figures:
        three_sides = three_sides_key(figure.name)
        if three_sides is not None:
            workload, column = three_sides
            tables[THREE_SIDES].set((run.line, workload), column, interval_cell(figure))
            tables[THREE_SIDES].set((run.line, workload), "date", run.date)
            changed.add(THREE_SIDES)
        if figure.target is not None:
            key = (f"`{figure.name}`",)
            tables[CURRENT].set(key, "target", str(figure.target))
            tables[CURRENT].set(key, f"pyspark {run.line}", figure_cell(figure, run.date))
            changed.add(CURRENT)
    if changed:
        runs = tables[RUNS]
        runs.set((run.line,), "last recorded", run.when.strftime("%Y-%m-%d %H:%M"))
        runs.set((run.line,), "machine", run.machine)
        runs.set((run.line,), "versions", run.versions)
        changed.add(RUNS)
    for name in (CURRENT, THREE_SIDES, RUNS):
        if name in changed:
            text = _replace_section(text, name, tables[name].render())
    return text


def three_sides_rows(text: str) -> list[dict[str, str]]:
    """The three-sides table of RESULTS.md as one mapping per row (column name -> cell), for the plot."""
    table = Table.parse(_section(text, THREE_SIDES) or "", THREE_SIDES_HEADER)
    return [dict(zip(table.header, row, strict=True)) for row in table.rows]


def record(path: Path, figures: Sequence[Figure], run: Run) -> bool:
    """Update the file (created if missing); False when no figure of the run is kept there."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    updated = update(text, figures, run)
    if updated == text:
        return False
    path.write_text(updated)
    return True


def _section(text: str, name: str) -> str | None:
    start, stop = text.find(begin(name)), text.find(end(name))
    if start < 0 or stop < start:
        return None
    return text[start + len(begin(name)) : stop]


def _replace_section(text: str, name: str, body: str) -> str:
    block = f"{begin(name)}\n{body}\n{end(name)}"
    start, stop = text.find(begin(name)), text.find(end(name))
    if start < 0 or stop < start:
        return text.rstrip("\n") + "\n\n" + block + "\n"
    return text[:start] + block + text[stop + len(end(name)) :]


def run_of(when: datetime, versions: Mapping[str, str], machine: str) -> Run:
    """The :class:`Run` of a benchmark run in this environment (``benchmarks.environment.versions``)."""
    described = ", ".join(f"{label} {version}" for label, version in versions.items())
    return Run(when, spark_line(versions.get("pyspark", "absent")), machine, described)
