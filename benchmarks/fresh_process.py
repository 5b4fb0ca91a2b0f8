"""A small task per fresh process (issue 23): plain PythonOperator vs this operator, alternating.

Each run is a new interpreter and a new JVM (:mod:`benchmarks.fresh_process_child`) running one
small read-join-aggregate-write job, so the figure includes what the in-process benchmarks
amortize: this library's imports, the plugin-free operator's start, the JVM-side functions and
compiled classes the first capture of a process builds. Figure: ratio of median process wall time
(from process creation to the task's end, lineage call included); target <= 1.02. The task's own
time (``execute`` + lineage call) is an info figure.
"""

from __future__ import annotations

import shutil
from typing import Any

from benchmarks.alternation import alternate, median, ratio
from benchmarks.environment import run_child_report
from benchmarks.figures import Figure, Target
from benchmarks.fresh_process_child import RESULT_PREFIX
from benchmarks.settings import Settings
from benchmarks.sides import LINEAGE, PLAIN

NAME = "fresh_process"
FULL_ROUNDS = 10
CHILD_TIMEOUT_SECONDS = 600


def run(settings: Settings) -> list[Figure]:
    scratch = settings.scratch(NAME)

    def one(side: str, number: int) -> dict[str, Any]:
        run_dir = scratch / f"{number}-{side}"
        try:
            return run_child_report(
                "benchmarks.fresh_process_child", [side, str(run_dir)], RESULT_PREFIX, CHILD_TIMEOUT_SECONDS
            )
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)

    runs = alternate(
        NAME,
        settings.rounds_or(FULL_ROUNDS),
        one,
        warmup_rounds=settings.warmup_rounds(),  # fills the bytecode cache
        seconds_of=lambda report: float(report["process_seconds"]),
        concurrent=settings.tiny,
    )
    return figures(runs)


def figures(runs: dict[str, list[dict[str, Any]]]) -> list[Figure]:
    def values(side: str, key: str) -> list[float]:
        return [float(report[key]) for report in runs[side]]

    wall = {side: values(side, "process_seconds") for side in (PLAIN, LINEAGE)}
    task = {side: values(side, "task_seconds") for side in (PLAIN, LINEAGE)}
    details = {
        "process_seconds": wall,
        "task_seconds": task,
        "import_seconds": {side: values(side, "import_seconds") for side in (PLAIN, LINEAGE)},
        "median_paired_ratio": median([ratio(b, a) for a, b in zip(wall[PLAIN], wall[LINEAGE], strict=True)]),
        "mean_ratio": ratio(sum(wall[LINEAGE]), sum(wall[PLAIN])),
        "lineage_capture": [report.get("capture") for report in runs[LINEAGE]],
        "lineage_facets_seconds": values(LINEAGE, "facets_seconds"),
    }
    return [
        Figure(
            f"{NAME}_wall_ratio",
            ratio(median(wall[LINEAGE]), median(wall[PLAIN])),
            Target("<=", 1.02),
            details,
        ),
        Figure(
            f"{NAME}_task_ratio",
            ratio(median(task[LINEAGE]), median(task[PLAIN])),
            None,
            {"meaning": "execute + lineage call only, in the same fresh processes"},
        ),
    ]
