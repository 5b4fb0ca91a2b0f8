"""The fresh-process workload's figures: alternated pairs of whole processes, with 95% intervals.

Airflow runs each task in a fresh process, so whatever the capture does once per process (imports, the
JVM-side classes, the first session's set-up) is paid by every task. Each round of the workload runs
one process per side (:data:`~benchmarks.three_sides.FRESH_SIDE_NAMES`, the order turning every round),
each process one run of the small job; the CPU is the whole process tree's from its start (the task's
Python, the Spark JVM and anything the JVM started), the wall the process's from its creation to its
exit, measured by the parent. A round's processes ran minutes apart at most, so the ratios pair them
(:func:`~benchmarks.three_sides.paired_ratio_interval`): round ``i`` of one side against round ``i``
of the other.

Ours is measured twice: with the disk cache of compiled JVM classes (``lineage``, the cache filled by
the warm-up round) and with it off (``lineage_compiling``: every JVM compiles, as before the cache).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from benchmarks.figures import Figure, Target
from benchmarks.three_sides import FRESH_SIDE_NAMES, NAME, Run, paired_ratio_interval, side_summary

WORKLOAD = "fresh"
#: (figure suffix, numerator side, denominator side, target); each also as ``..._wall`` (info).
RATIOS: tuple[tuple[str, str, str, Target | None], ...] = (
    ("lineage_over_plain_cpu", "lineage", "plain", Target("<=", 1.03)),
    ("jar_over_plain_cpu", "jar", "plain", None),
    ("lineage_over_jar_cpu", "lineage", "jar", Target("<=", 1.0)),
    ("lineage_compiling_over_plain_cpu", "lineage_compiling", "plain", None),
    ("lineage_compiling_over_jar_cpu", "lineage_compiling", "jar", None),
    ("lineage_over_lineage_compiling_cpu", "lineage", "lineage_compiling", None),
)


def process_wall(run: Run) -> float:
    """The process's wall seconds (creation to exit), or the run's where the parent did not time it."""
    return float(run.get("process_wall_seconds") or run["wall_seconds"])


def figures(runs: Mapping[str, Sequence[Run]]) -> list[Figure]:
    """Paired CPU and wall ratios of the sides that ran, then each side's medians."""
    prefix = f"{NAME}_{WORKLOAD}"
    sides = [name for name in FRESH_SIDE_NAMES if runs.get(name)]
    found: list[Figure] = []
    for suffix, top, bottom, target in RATIOS:
        if top not in sides or bottom not in sides:
            continue
        pairs = min(len(runs[top]), len(runs[bottom]))
        tops, bottoms = runs[top][:pairs], runs[bottom][:pairs]
        centre, low, high = paired_ratio_interval(
            [run["cpu_seconds"] for run in tops], [run["cpu_seconds"] for run in bottoms]
        )
        details = {
            "ci95": [low, high],
            "pairs": pairs,
            "meaning": f"CPU of the whole process tree per fresh process, {top} over {bottom}: "
            "exp of the mean log ratio over alternated pairs, 95% t interval",
        }
        found.append(Figure(f"{prefix}_{suffix}", centre, target, details))
        centre, low, high = paired_ratio_interval(
            [process_wall(run) for run in tops], [process_wall(run) for run in bottoms]
        )
        meaning = (
            "the same, wall seconds from the process's creation to its exit (the shared machine's noise)"
        )
        wall = {"ci95": [low, high], "meaning": meaning}
        found.append(Figure(f"{prefix}_{suffix.removesuffix('_cpu')}_wall", centre, None, wall))
    for name in sides:
        summary = side_summary(runs[name])
        summary["process_wall_seconds"] = statistics.median(process_wall(run) for run in runs[name])
        found.append(Figure(f"{prefix}_{name}_cpu_seconds", summary["cpu_seconds"], None, summary))
    return found


__all__ = ["RATIOS", "WORKLOAD", "figures", "process_wall"]
