"""Many tiny Spark executions in one task (issue 23): plain PythonOperator vs this operator.

The task runs :func:`benchmarks.tiny_actions_workload.tiny_actions` (150 small Parquet writes and
50 counts; ``many_tiny_actions_500``: 375 + 125), in this process, alternating sides, each with a
fresh SparkSession, one warm-up round, as :mod:`benchmarks.task_overhead` does. Column lineage is
on (the operator's default), so every write's plan goes through the plan writer.

Figures: the ratio of median task times (target <= 1.03), and what each execution costs the
capture, measured within the run: the per-execution processing on the capture's reader thread
(``PlanReader.read``), median over the measured rounds' executions, non-writes (target <= 2 ms)
and writes (<= 5 ms); the Python listener callbacks on Spark's listener-bus thread, ms per
execution (info; none where executions are queued JVM-side, the default). The
distributions (median, p90, max, sum, py4j round trips) are in the JSON details.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any

from benchmarks import tiny_actions_workload as workload
from benchmarks.alternation import alternate, median, progress, ratio
from benchmarks.execution_costs import ExecutionCost, as_json, distribution, summary
from benchmarks.figures import Figure, Target
from benchmarks.probe import CaptureProbe, ProbeReport
from benchmarks.settings import Settings
from benchmarks.sides import LINEAGE, PLAIN, SideRun, run_side

NAME = "many_tiny_actions"
FULL_ROUNDS = 10


@dataclass
class Outcome:
    run: SideRun
    capture: ProbeReport | None
    executions: list[ExecutionCost]
    callback_ms: list[float]


def run(settings: Settings) -> list[Figure]:
    return _run(settings, NAME, workload.FULL)


def run_500(settings: Settings) -> list[Figure]:
    return _run(settings, f"{NAME}_500", workload.LARGE)


def _run(settings: Settings, name: str, full: workload.TinyActionsSize) -> list[Figure]:
    size = workload.TINY if settings.tiny else full
    scratch = settings.scratch(name)
    probe = CaptureProbe()
    with probe.installed() as capture_landed:
        if not capture_landed:
            progress(f"{name}: SparkLineageCapture is missing; the library side runs without capture")

        def one(side: str, number: int) -> Outcome:
            run_dir = scratch / f"{number}-{side}"
            probe.reset()
            try:
                outcome = run_side(
                    side,
                    f"bench_{name}",
                    workload.tiny_actions,
                    {"base_dir": str(run_dir / "data"), "writes": size.writes, "counts": size.counts},
                    warehouse_dir=str(run_dir / "warehouse"),
                )
            finally:
                shutil.rmtree(run_dir, ignore_errors=True)
            if side != LINEAGE:
                return Outcome(outcome, None, [], [])
            return Outcome(outcome, probe.report(), probe.execution_costs.costs(), _callbacks(probe))

        runs = alternate(
            name,
            settings.rounds_or(FULL_ROUNDS),
            one,
            warmup_rounds=settings.warmup_rounds(),
            seconds_of=lambda outcome: outcome.run.seconds,
        )
    return figures(name, runs, size)


def _callbacks(probe: CaptureProbe) -> list[float]:
    return [
        (i.ended - i.started) * 1000
        for i in list(probe._intervals)
        if i.method.endswith(("onSuccess", "onFailure"))
    ]


def figures(name: str, runs: dict[str, list[Outcome]], size: workload.TinyActionsSize) -> list[Figure]:
    plain = [o.run.seconds for o in runs[PLAIN]]
    lineage = [o.run.seconds for o in runs[LINEAGE]]
    executions = [cost for o in runs[LINEAGE] for cost in o.executions]
    callbacks = [ms for o in runs[LINEAGE] for ms in o.callback_ms]
    per_kind = distribution(executions)
    busy = [o.capture.busy_seconds for o in runs[LINEAGE] if o.capture]
    details: dict[str, Any] = {
        "workload": {"writes": size.writes, "counts": size.counts, "spark_actions": size.actions},
        "plain_seconds": plain,
        "lineage_seconds": lineage,
        "median_paired_ratio": median([ratio(b, a) for a, b in zip(plain, lineage, strict=True)]),
        "mean_ratio": ratio(sum(lineage), sum(plain)),
        "median_capture_busy_seconds": median(busy) if busy else None,
        "executions": per_kind,
        "callback_ms": summary(callbacks),
        "last_run_executions": as_json(runs[LINEAGE][-1].executions),
    }

    def median_ms(kind: str) -> float:
        return float(per_kind[kind]["ms"].get("median", float("nan")))

    def meaning(kind: str, label: str) -> dict[str, Any]:
        return {"meaning": f"per-execution processing (reader thread), {label}", **per_kind[kind]}

    return [
        Figure(f"{name}_ratio", ratio(median(lineage), median(plain)), Target("<=", 1.03), details),
        Figure(
            f"{name}_execution_ms_other",
            median_ms("other"),
            Target("<=", 2.0),
            meaning("other", "non-writes"),
        ),
        Figure(
            f"{name}_execution_ms_write", median_ms("write"), Target("<=", 5.0), meaning("write", "writes")
        ),
        Figure(
            f"{name}_callback_ms",
            sum(callbacks) / len(executions) if executions else float("nan"),
            None,
            {
                "meaning": "Python listener callbacks on Spark's listener-bus thread, ms per execution "
                "(medians before 2026-11-27); none where executions are queued JVM-side",
                "callbacks": len(callbacks),
                "executions": len(executions),
            },
        ),
    ]
