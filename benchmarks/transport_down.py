"""Benchmark: a task with the lineage backend down vs up, with the recommended settings of docs/backends.md
(transport ``timeout`` 1 s, one retry, the provider's ``execution_timeout`` 3 s).

Each run is a fresh process running the DAG through real Airflow and the real provider
(:mod:`benchmarks.transport_child`). Figures: median wall time with the backend's port closed /
with it up, and with a server that never answers / up. Without the settings the provider's
defaults cost +19 s (closed) and +27 s (hanging) per task (issue 14).
"""

from __future__ import annotations

from typing import Any

from benchmarks.alternation import alternate, median, ratio
from benchmarks.environment import run_child_report
from benchmarks.figures import Figure, Target
from benchmarks.settings import Settings
from benchmarks.transport_child import RESULT_PREFIX

NAME = "transport_down"
STATES = ("up", "closed", "hanging")
FULL_ROUNDS = 3
# With the recommended settings a dead backend may cost a few seconds, not tens.
TARGET_RATIO = 2.0


def run(settings: Settings) -> list[Figure]:
    def one(state: str, number: int) -> dict[str, Any]:
        report = run_child_report("benchmarks.transport_child", [state], RESULT_PREFIX, timeout=600)
        if report["dag_state"] != "success":
            raise RuntimeError(f"{NAME}: the DAG run ended {report['dag_state']} with the backend {state}")
        return report

    runs = alternate(
        NAME,
        settings.rounds_or(FULL_ROUNDS),
        one,
        sides=STATES,
        seconds_of=lambda report: float(report["seconds"]),
        concurrent=settings.tiny,  # --tiny proves the harness only; its timings mean nothing
    )
    seconds = {state: median([float(r["seconds"]) for r in runs[state]]) for state in STATES}
    details = {f"{state}_seconds": round(value, 2) for state, value in seconds.items()}
    return [
        Figure(
            "transport_down_closed_ratio",
            ratio(seconds["closed"], seconds["up"]),
            Target("<=", TARGET_RATIO),
            details,
        ),
        Figure(
            "transport_down_hanging_ratio",
            ratio(seconds["hanging"], seconds["up"]),
            Target("<=", TARGET_RATIO),
            details,
        ),
    ]
