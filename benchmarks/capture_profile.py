"""Per-execution capture cost in one process: ``python -m benchmarks.capture_profile [--actions N]``.

Not a benchmark (no baseline, no ratio): a profile to see what each execution costs the capture
and where, with round trips counted (:mod:`benchmarks.execution_costs`). Runs the tiny-actions
workload (:mod:`benchmarks.tiny_actions_workload`) and the task-overhead workload under a
:class:`SparkLineageCapture` in one local SparkSession, once to warm up (one-time set-up: the
JVM-side functions, compiled classes) and ``--repeat`` times measured; prints per execution kind
(write / other) and per root command the median / p90 / max ms and py4j round trips.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.environment import SPARK_MASTER, configure_process_environment, spark_conf

configure_process_environment()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.capture_profile")
    parser.add_argument("--writes", type=int, default=30)
    parser.add_argument("--counts", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--compare",
        action="store_true",
        help="also run each workload with the step-by-step reading (before the one-call read), same process",
    )
    arguments = parser.parse_args(argv)

    from pyspark.sql import SparkSession

    from benchmarks import task_workload
    from benchmarks.execution_costs import ExecutionCostProbe, as_json, distribution
    from benchmarks.tiny_actions_workload import tiny_actions
    from lineage_operators.spark.capture.classic import SparkLineageCapture

    scratch = Path(tempfile.mkdtemp(prefix="capture-profile-"))
    builder = SparkSession.builder.master(SPARK_MASTER)
    for key, value in spark_conf("capture_profile", str(scratch / "warehouse")).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    probe = ExecutionCostProbe()
    report: dict[str, Any] = {}
    try:
        with probe.installed():
            for number in range(arguments.repeat + 1):
                jobs = [
                    ("tiny_actions", tiny_actions, {"writes": arguments.writes, "counts": arguments.counts}),
                    ("task_workload", task_workload.task_workload, {"tables": 1, "rows": 1000}),
                ]
                modes = ("one-call", "step-by-step") if arguments.compare else ("one-call",)
                for (name, job, kwargs), mode in ((j, m) for j in jobs for m in modes):
                    _reading(mode)
                    spark.sql("DROP TABLE IF EXISTS bench_ctas")
                    probe.reset()
                    capture = SparkLineageCapture(spark)
                    capture.start()
                    try:
                        job(spark, base_dir=str(scratch / f"{name}-{mode}-{number}"), **kwargs)
                    finally:
                        result = capture.stop()
                    costs = probe.costs()
                    label = "warm-up" if number == 0 else f"run {number}"
                    done = f"{len(costs)} executions, complete={result.complete}"
                    print(f"== {name} [{mode}] ({label}): {done}")
                    _print(costs, distribution(costs))
                    if number:
                        report.setdefault(f"{name} [{mode}]", []).append(
                            {"distribution": distribution(costs), "executions": as_json(costs)}
                        )
    finally:
        _reading("one-call")
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    if arguments.json:
        arguments.json.write_text(json.dumps(report, indent=1))
    return 0


_ONE_CALL: list[Any] = []


def _reading(mode: str) -> None:
    """Switch the capture between the one-call read (executions queued JVM-side, read as they are
    taken) and the step-by-step reading (a py4j callback per execution)."""
    from lineage_operators.spark.plan import batch as plan_batch
    from lineage_operators.spark.plan import reader as plan

    if not _ONE_CALL:
        _ONE_CALL.append(plan_batch.batch_reader)
    chosen = _ONE_CALL[0] if mode == "one-call" else (lambda t: None)
    plan.batch_reader = plan_batch.batch_reader = chosen  # type: ignore[assignment]


def _print(costs: list[Any], dist: dict[str, Any]) -> None:
    for kind, values in dist.items():
        ms, trips = values["ms"], values["round_trips"]
        if not ms.get("count"):
            continue
        print(
            f"  {kind:6} n={ms['count']:4d}  ms median {ms['median']:7.2f} p90 {ms['p90']:7.2f} "
            f"max {ms['max']:8.2f} sum {ms['sum']:8.1f}  round trips median {trips['median']:.0f} "
            f"max {trips['max']:.0f}"
        )
    by_root: dict[str, list[Any]] = defaultdict(list)
    for cost in costs:
        by_root[f"{cost.kind}:{cost.root}"].append(cost)
    for key, chosen in sorted(by_root.items()):
        print(
            f"    {key:60} n={len(chosen):4d} ms median {statistics.median(c.ms for c in chosen):7.2f}"
            f" round trips median {statistics.median(c.round_trips for c in chosen):.0f}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
