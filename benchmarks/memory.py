"""Benchmark 4, memory: peak resident memory of the task's process tree, with capture vs without.

Each run is a fresh process (:mod:`benchmarks.memory_child`) running the overhead benchmark's
task, alternating sides. The figure uses the kernel's per-process high-water marks (``VmHWM``)
summed over the driver and the Spark JVM, read when the task is done and both are still alive.
Both sides load what a task process of a deployment with OpenLineage enabled loads (the provider's
listener and client; on the lineage side also this package's plugin), see the child's docstring.
(Sampling the tree's RSS from outside was tried and rejected: it also catches the short-lived
launcher JVM that ``spark-submit`` runs before the real one.) Target: median ratio <= 1.05.

The same runs give the task's wall time as a fresh process (imports, JVM start, first-use set-up
included), reported as an info figure: the in-process overhead benchmark cannot see those costs.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import task_workload
from benchmarks.alternation import alternate, median, ratio
from benchmarks.environment import run_child_report
from benchmarks.figures import Figure, Target
from benchmarks.memory_child import RESULT_PREFIX
from benchmarks.settings import Settings
from benchmarks.sides import LINEAGE, PLAIN

NAME = "memory"
FULL_ROUNDS = 3
CHILD_TIMEOUT_SECONDS = 600


@dataclass
class MemoryRun:
    peak_rss_bytes: int
    task_seconds: float
    process_seconds: float
    peaks_by_process: dict[str, int] = field(default_factory=dict)
    plugins_rss_bytes: int = 0


def run(settings: Settings) -> list[Figure]:
    size = task_workload.TINY if settings.tiny else task_workload.FULL
    scratch = settings.scratch(NAME)
    warmup = settings.warmup_rounds()

    def one(side: str, number: int) -> MemoryRun:
        run_dir = scratch / f"{number}-{side}"
        try:
            # The warm-up round only fills the bytecode cache: the tiny size does that as well.
            return run_child(side, run_dir, task_workload.TINY if number < warmup else size)
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)

    runs = alternate(
        NAME,
        settings.rounds_or(FULL_ROUNDS),
        one,
        warmup_rounds=warmup,
        seconds_of=lambda r: r.process_seconds,
        concurrent=settings.tiny,
        concurrent_warmup=True,
    )
    return figures(runs)


def run_child(side: str, run_dir: Path, size: task_workload.TaskWorkloadSize) -> MemoryRun:
    args = [side, str(run_dir), str(size.tables), str(size.rows)]
    report = run_child_report("benchmarks.memory_child", args, RESULT_PREFIX, CHILD_TIMEOUT_SECONDS)
    return MemoryRun(
        peak_rss_bytes=report["peak_rss_bytes"],
        task_seconds=report["task_seconds"],
        process_seconds=report["process_seconds"],
        peaks_by_process=report["peaks_by_process"],
        plugins_rss_bytes=report["plugins_rss_bytes"],
    )


def _peak_of(kind: str, peaks_by_process: dict[str, int]) -> float:
    """Sum of the peaks of the processes whose name starts with ``kind`` (``python``, ``java``)."""
    return float(sum(peak for key, peak in peaks_by_process.items() if key.split(" ", 1)[1].startswith(kind)))


def figures(runs: dict[str, list[MemoryRun]]) -> list[Figure]:
    def values(side: str, attribute: str) -> list[float]:
        return [float(getattr(r, attribute)) for r in runs[side]]

    details: dict[str, Any] = {
        side: {
            "peak_rss_bytes": values(side, "peak_rss_bytes"),
            "last_peaks_by_process": runs[side][-1].peaks_by_process,
        }
        for side in (PLAIN, LINEAGE)
    }
    for side in (PLAIN, LINEAGE):
        for kind in ("python", "java"):
            details[side][f"{kind}_peak_bytes"] = [_peak_of(kind, r.peaks_by_process) for r in runs[side]]
    python_extra = median(details[LINEAGE]["python_peak_bytes"]) - median(details[PLAIN]["python_peak_bytes"])
    for side in (PLAIN, LINEAGE):
        details[side]["plugins_rss_bytes"] = values(side, "plugins_rss_bytes")
    # The baseline before 2026-11-25: a plain task process without the OpenLineage provider loaded.
    plain_without_provider = median(values(PLAIN, "peak_rss_bytes")) - median(
        values(PLAIN, "plugins_rss_bytes")
    )
    java_ratio = ratio(median(details[LINEAGE]["java_peak_bytes"]), median(details[PLAIN]["java_peak_bytes"]))
    peak = ratio(median(values(LINEAGE, "peak_rss_bytes")), median(values(PLAIN, "peak_rss_bytes")))
    cold = {side: values(side, "process_seconds") for side in (PLAIN, LINEAGE)}
    task = {side: values(side, "task_seconds") for side in (PLAIN, LINEAGE)}
    return [
        Figure(f"{NAME}_peak_rss_ratio", peak, Target("<=", 1.05), details),
        Figure(
            f"{NAME}_peak_rss_ratio_without_provider_baseline",
            ratio(median(values(LINEAGE, "peak_rss_bytes")), plain_without_provider),
            None,
            {"meaning": "over the plain task's peak less what the provider's listener and client took"},
        ),
        Figure(f"{NAME}_peak_rss_ratio_jvm", java_ratio, None, {"meaning": "the Spark JVM alone"}),
        Figure(f"{NAME}_python_extra_mib", python_extra / 2**20, None, {"meaning": "driver Python, median"}),
        Figure(
            "fresh_process_task_time_ratio",
            ratio(median(cold[LINEAGE]), median(cold[PLAIN])),
            None,
            {"process_seconds": cold, "task_seconds": task},
        ),
    ]
