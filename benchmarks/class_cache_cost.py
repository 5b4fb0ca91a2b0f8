"""What the disk cache of compiled JVM classes saves a fresh driver JVM: ``--only class_cache``.

Each process starts pyspark's gateway JVM (Spark's classes on its class path, no SparkContext), then
makes ready the four classes a capture of a small job uses (``Handles``, ``ExecutionReader``,
``PlanWriter``, ``RddJobReader``) through :mod:`lineage_operators.spark.jvm.classes`, with the cache
off (``compiled``: Janino compiles each source, as every task did before the cache) or filled by the
warm-up round (``cached``: defined from the stored bytes). Measured: the driver Python's CPU plus the
JVM's over that step and the two seconds after it (the JIT compiles the Janino code it ran on its own
threads), and the step's wall time. The processes alternate, ``--rounds`` pairs (default 20) after one
warm-up pair; ratios over the pairs with a 95% t interval
(:func:`benchmarks.three_sides.paired_ratio_interval`).

This isolates the cache's effect; the fresh-process workload of :mod:`benchmarks.three_sides_fresh`
gives the whole task's figures, whose per-process noise (~40 CPU-s a process) hides a one-second step
unless many rounds run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from benchmarks.alternation import progress, round_order
from benchmarks.environment import run_child_report
from benchmarks.figures import Figure
from benchmarks.settings import Settings
from benchmarks.three_sides import paired_ratio_interval

RESULT_PREFIX = "CLASS_CACHE_RESULT "
SIDES = ("compiled", "cached")
SOURCES = (
    ("Handles.java", "lineage_operators.Handles"),
    ("ExecutionReader.java", "lineage_operators.ExecutionReader"),
    ("PlanWriter.java", "lineage_operators.PlanWriter"),
    ("RddJobReader.java", "lineage_operators.RddJobReader"),
)
JIT_SETTLE_SECONDS = 2.0
FULL_ROUNDS = 20


def measure() -> dict[str, Any]:
    """In this fresh process: the CPU and wall of making the classes ready (see the module)."""
    from pyspark import SparkContext

    from benchmarks.thread_cpu import process_cpu
    from lineage_operators.spark.jvm import classes
    from lineage_operators.spark.jvm.tools import JvmTools

    SparkContext._ensure_initialized()
    gateway = SparkContext._gateway
    tools = JvmTools(gateway)
    pid = int(gateway.jvm.java.lang.ProcessHandle.current().pid())
    _ = tools.line  # the Spark line, read by any capture at start anyway
    time.sleep(JIT_SETTLE_SECONDS)
    py, jvm, started = time.process_time(), process_cpu(pid), time.perf_counter()
    for file_name, class_name in SOURCES:
        assert classes.compiled_instance(tools, file_name, class_name, "benchmark") is not None
    wall = time.perf_counter() - started
    time.sleep(JIT_SETTLE_SECONDS)
    cpu = (time.process_time() - py) + (process_cpu(pid) - jvm)
    return {"cpu_seconds": cpu, "wall_seconds": wall}


def run(settings: Settings) -> list[Figure]:
    from lineage_operators.spark.jvm.class_cache import ENV_VAR

    cache = settings.scratch("class_cache") / "jvm-classes"
    rounds = settings.rounds_or(FULL_ROUNDS)
    warmup = settings.warmup_rounds(1)
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
    for number in range(warmup + rounds):
        for side in round_order(("cached", "compiled") if number < warmup else SIDES, number):
            environment = {ENV_VAR: str(cache) if side == "cached" else "off"}
            report = run_child_report(
                "benchmarks.class_cache_cost", [side], RESULT_PREFIX, 600, environment=environment
            )
            tag = "warm-up" if number < warmup else f"round {number - warmup + 1}/{rounds}"
            cpu, wall = report["cpu_seconds"], report["wall_seconds"]
            progress(f"class_cache {side}: {tag} cpu {cpu:.3f}s wall {wall:.3f}s")
            if number >= warmup:
                runs[side].append(report)
    found = []
    for measure_name in ("cpu", "wall"):
        key = f"{measure_name}_seconds"
        centre, low, high = paired_ratio_interval(
            [run[key] for run in runs["cached"]], [run[key] for run in runs["compiled"]]
        )
        saved = sorted(b[key] - a[key] for a, b in zip(runs["cached"], runs["compiled"], strict=True))
        details = {
            "ci95": [low, high],
            "pairs": len(saved),
            "median_saved_seconds": saved[len(saved) // 2] if saved else float("nan"),
            "median_compiled_seconds": sorted(run[key] for run in runs["compiled"])[len(saved) // 2],
            "median_cached_seconds": sorted(run[key] for run in runs["cached"])[len(saved) // 2],
            "runs_by_side": runs,
        }
        found.append(Figure(f"class_cache_cached_over_compiled_{measure_name}", centre, None, details))
    return found


def main(argv: list[str]) -> None:
    from benchmarks.environment import configure_process_environment

    configure_process_environment()
    report = measure()
    report["side"] = argv[0]
    report["pid"] = os.getpid()
    print(RESULT_PREFIX + json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
