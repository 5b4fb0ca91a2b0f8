"""Benchmark 5, capture plugin on tasks that never touch Spark: a DAG of 50 plain
``PythonOperator``s run with ``dag.test()``, without and with the plugin armed for every task.

Both sides alternate in one child process (:mod:`benchmarks.plugin_child`), which sets up its own
Airflow home and database once. Figure: median CPU-time ratio (with / without), target <= 1.02;
wall-time ratio and how many tasks the plugin armed per run are in the details.
"""

from __future__ import annotations

from typing import Any

from benchmarks.alternation import median, progress, ratio
from benchmarks.environment import run_child_report
from benchmarks.figures import Figure, Target
from benchmarks.plugin_child import RESULT_PREFIX, WITH, WITHOUT
from benchmarks.settings import Settings

NAME = "plugin"
TASKS = 50
FULL_ROUNDS = 4
CHILD_TIMEOUT_SECONDS = 3000


def run(settings: Settings) -> list[Figure]:
    tasks = 5 if settings.tiny else TASKS
    rounds, warmup = settings.rounds_or(FULL_ROUNDS), settings.warmup_rounds()
    progress(f"{NAME}: {warmup} warm-up + {rounds} rounds of a {tasks}-task DAG per side, in one child")
    report = run_child_report(
        "benchmarks.plugin_child",
        [str(rounds), str(warmup), str(tasks)],
        RESULT_PREFIX,
        CHILD_TIMEOUT_SECONDS,
    )
    return figures(report)


def figures(report: dict[str, Any]) -> list[Figure]:
    results = report["results"]
    without, with_plugin = results[WITHOUT], results[WITH]
    details: dict[str, Any] = {
        "tasks": report["tasks"],
        "armed_per_run": report["armed_per_run"],
        "without_cpu_seconds": without["cpu"],
        "with_cpu_seconds": with_plugin["cpu"],
        "without_wall_seconds": without["wall"],
        "with_wall_seconds": with_plugin["wall"],
        "wall_ratio": ratio(median(with_plugin["wall"]), median(without["wall"])),
    }
    return [
        Figure(
            f"{NAME}_plain_dag_cpu_ratio",
            ratio(median(with_plugin["cpu"]), median(without["cpu"])),
            Target("<=", 1.02),
            details,
        ),
        Figure(f"{NAME}_plain_dag_wall_ratio", details["wall_ratio"], None, {}),
    ]
