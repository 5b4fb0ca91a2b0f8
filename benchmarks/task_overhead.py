"""Benchmark 1, task overhead: the same PySpark task, plain PythonOperator vs this library's operator.

Both sides run in this process, alternating (the order turns every round), each with a fresh
SparkSession (the JVM stays up between runs, as it would not across real tasks; four warm-up rounds
absorb its start and its JIT warm-up: the JIT compiler threads' CPU per run fell from 5.6 s to a
steady ~2.5 s over the first seven or eight runs on pyspark 3.5, and both sides' times with it, so
with two warm-up rounds the measured rounds still drifted by several percent).
The library side's time is ``execute`` with capture on plus ``get_openlineage_facets_on_complete``.
Figure: median library time / median plain time; target <= 1.02.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any

from benchmarks import task_workload
from benchmarks.alternation import alternate, median, progress, ratio
from benchmarks.figures import Figure, Target
from benchmarks.probe import CaptureProbe, ProbeReport
from benchmarks.settings import Settings
from benchmarks.sides import LINEAGE, PLAIN, SideRun, run_side

NAME = "task_overhead"
DAG_ID = "bench_task_overhead"
FULL_ROUNDS = 4
WARMUP_ROUNDS = 4


@dataclass
class Outcome:
    run: SideRun
    capture: ProbeReport | None


def run(settings: Settings) -> list[Figure]:
    size = task_workload.TINY if settings.tiny else task_workload.FULL
    scratch = settings.scratch(NAME)
    probe = CaptureProbe()
    with probe.installed() as capture_landed:
        if not capture_landed:
            progress(f"{NAME}: SparkLineageCapture is not there yet; the library side runs without capture")

        def one(side: str, number: int) -> Outcome:
            run_dir = scratch / f"{number}-{side}"
            probe.reset()
            try:
                outcome = run_side(
                    side,
                    DAG_ID,
                    task_workload.task_workload,
                    {"base_dir": str(run_dir / "data"), "tables": size.tables, "rows": size.rows},
                    warehouse_dir=str(run_dir / "warehouse"),
                )
            finally:
                shutil.rmtree(run_dir, ignore_errors=True)
            return Outcome(outcome, probe.report() if side == LINEAGE else None)

        runs = alternate(
            NAME,
            settings.rounds_or(FULL_ROUNDS),
            one,
            warmup_rounds=settings.warmup_rounds(WARMUP_ROUNDS),
            seconds_of=lambda outcome: outcome.run.seconds,
        )
    return figures(runs, capture_landed, size)


def figures(
    runs: dict[str, list[Outcome]], capture_landed: bool, size: task_workload.TaskWorkloadSize
) -> list[Figure]:
    plain = [o.run.seconds for o in runs[PLAIN]]
    lineage = [o.run.seconds for o in runs[LINEAGE]]
    busy = [o.capture.busy_seconds for o in runs[LINEAGE] if o.capture]
    lifecycle = [o.capture.lifecycle_seconds for o in runs[LINEAGE] if o.capture]
    facets = [o.run.facets_seconds for o in runs[LINEAGE]]
    paired = [ratio(b, a) for a, b in zip(plain, lineage, strict=True)]
    last = runs[LINEAGE][-1]
    details: dict[str, Any] = {
        "capture_landed": capture_landed,
        "workload": {"tables": size.tables, "rows": size.rows, "spark_actions": size.actions},
        "plain_seconds": plain,
        "lineage_seconds": lineage,
        "median_paired_ratio": median(paired),
        "median_plain_seconds": median(plain),
        "median_lineage_seconds": median(lineage),
        "median_capture_busy_seconds": median(busy),
        "median_facets_seconds": median(facets),
        "last_capture": last.capture.as_json() if last.capture else None,
        "last_datasets": _dataset_counts(last.run.lineage),
    }
    overhead = Figure(f"{NAME}_ratio", ratio(median(lineage), median(plain)), Target("<=", 1.02), details)
    capture_share = Figure(
        f"{NAME}_capture_fraction",
        ratio(median(busy) + median(facets), median(lineage))
        if busy
        else ratio(median(facets), median(lineage)),
        None,
        {"meaning": "capture busy time + facets time, as a fraction of the library side's task time"},
    )
    on_task_thread = Figure(
        f"{NAME}_task_thread_fraction",
        ratio(median(lifecycle) + median(facets), median(lineage)),
        None,
        {
            "meaning": "capture start + stop + the lineage call (the part on the task's own thread), "
            "as a fraction of the library side's task time: the overhead's floor, measured within "
            "each run and so not swamped by the machine's noise"
        },
    )
    mean_ratio = Figure(
        f"{NAME}_mean_ratio",
        ratio(sum(lineage), sum(plain)),
        None,
        {
            "meaning": "ratio of mean task times: pyspark's SparkContext.stop() waits for its accumulator "
            "server's 0.5 s poll, so both sides' times step in 0.5 s and a median can only move by a "
            "whole step; the mean estimates the expected cost"
        },
    )
    return [overhead, capture_share, on_task_thread, mean_ratio]


def _dataset_counts(lineage: Any) -> dict[str, int]:
    if lineage is None:
        return {"inputs": 0, "outputs": 0}
    return {"inputs": len(lineage.inputs or []), "outputs": len(lineage.outputs or [])}
