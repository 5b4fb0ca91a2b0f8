"""One process of the three-side benchmark: one side, one workload; prints one JSON line.

Run as ``python -m benchmarks.three_sides_child WORKLOAD SIDE WORK_DIR ROUNDS WARMUP TINY [JAR]``
(``TINY`` ``1`` or ``0``; ``JAR`` the openlineage-spark jar, needed by the jar's sides). The
parent (:mod:`benchmarks.three_sides_run`) alternates these processes over the sides; see
:mod:`benchmarks.three_sides` for why each side has processes of its own.

In-process workloads (``task``, ``tiny_actions``, ``large_plans``): the JVM is started first (for
the jar's sides with the jar on its class path, as ``spark.jars`` at launch puts it), then
``WARMUP + ROUNDS`` runs, each a fresh SparkSession through the side's operator; per measured run:
the driver Python's CPU (``os.times``), the JVM's CPU (``/proc/<pid>/stat``, ended threads
included), the JVM's heap peak (every heap pool's peak usage, reset before the run; their sum
bounds the heap's peak from above), CPU per JVM thread group (sampled every 0.2 s, for
profiles only), and the jar's events written. ``fresh``: one run of the fresh-process job, its
CPU counted from the process's start (interpreter, imports, JVM start included), of the whole
process tree (the JVM and whatever it started).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

RESULT_PREFIX = "THREE_SIDES_RESULT "
WORKLOADS = ("task", "tiny_actions", "large_plans", "fresh")
DAG_ID = "bench_three_sides"
# The overhead task at 4 tables x 100k rows (26 actions, as connect_overhead runs it): four
# sides' processes at the full size would not fit a line's run into 15 minutes on this machine.
TASK_TABLES, TASK_ROWS = 4, 100_000


class JvmMeter:
    """CPU, heap peak and thread groups of the Spark JVM this process talks to."""

    def __init__(self) -> None:
        from pyspark import SparkContext

        from benchmarks.thread_cpu import ThreadSampler

        jvm = SparkContext._jvm
        assert jvm is not None
        self.pid = int(jvm.java.lang.ProcessHandle.current().pid())
        pools = jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
        self._heap_pools = [pool for pool in pools if pool.getType().name() == "HEAP"]
        self._sampler = ThreadSampler(self.pid, interval_s=0.2)

    def cpu_seconds(self) -> float:
        from benchmarks.thread_cpu import process_cpu

        return process_cpu(self.pid)

    def reset_heap_peak(self) -> None:
        for pool in self._heap_pools:
            pool.resetPeakUsage()

    def heap_peak_bytes(self) -> int:
        return sum(int(pool.getPeakUsage().getUsed()) for pool in self._heap_pools)

    def threads(self) -> Threads:
        return self._sampler.snapshot()


def start_jvm(extra_conf: Mapping[str, str]) -> JvmMeter:
    """Launch pyspark's gateway JVM (no SparkContext yet) with the side's conf at launch."""
    from pyspark import SparkConf, SparkContext

    conf = SparkConf()
    for key, value in extra_conf.items():
        conf.set(key, value)
    SparkContext._ensure_initialized(conf=conf)
    return JvmMeter()


def python_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


Threads = dict[int, tuple[str, float]]


def thread_groups(before: Threads, after: Threads) -> dict[str, float]:
    """CPU seconds per thread group (trailing numbers dropped) between two samples; >= 50 ms only."""
    from benchmarks.thread_cpu import _group

    groups: dict[str, float] = defaultdict(float)
    for tid, (name, seconds) in after.items():
        groups[_group(name)] += seconds - before.get(tid, (name, 0.0))[1]
    ordered = sorted(groups.items(), key=lambda kv: -kv[1])
    return {key: round(value, 2) for key, value in ordered if value >= 0.05}


def count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as events:
        return sum(1 for _ in events)


def workload_runner(workload: str, tiny: bool, work_dir: Path) -> Callable[..., Any]:
    """``run(operator_side, run_dir, extra_conf) -> SideRun`` for ``workload``; data it needs
    (the large-plan files) are made here, outside any measured run."""
    from benchmarks.sides import run_side, run_task_workload

    if workload == "task":
        from benchmarks import task_workload

        size = task_workload.TINY if tiny else task_workload.TaskWorkloadSize(TASK_TABLES, TASK_ROWS)
        return lambda side, run_dir, conf: run_task_workload(side, DAG_ID, size, run_dir, conf)
    if workload == "tiny_actions":
        from benchmarks import tiny_actions_workload as tiny_actions

        actions = tiny_actions.TINY if tiny else tiny_actions.FULL
        kwargs = {"writes": actions.writes, "counts": actions.counts}
        return lambda side, run_dir, conf: run_side(
            side,
            DAG_ID,
            tiny_actions.tiny_actions,
            {"base_dir": str(run_dir / "data"), **kwargs},
            warehouse_dir=str(run_dir / "warehouse"),
            extra_conf=conf,
        )
    if workload == "large_plans":
        from benchmarks import large_job
        from benchmarks.large_plans import generate_data

        data = generate_data(work_dir / "large", large_job.TINY_UNIT if tiny else large_job.FULL_UNIT)
        return lambda side, run_dir, conf: run_side(
            side,
            DAG_ID,
            large_job.large_plan_job,
            {"data_root": str(data.root), "shape": data.shape, "output": str(run_dir / "out")},
            warehouse_dir=str(run_dir / "warehouse"),
            extra_conf=conf,
        )
    if workload == "fresh":
        from benchmarks.fresh_process_child import small_job

        return lambda side, run_dir, conf: run_side(
            side,
            DAG_ID,
            small_job,
            {"base_dir": str(run_dir / "data")},
            warehouse_dir=str(run_dir / "warehouse"),
            extra_conf=conf,
        )
    raise ValueError(f"unknown workload {workload!r}; known: {', '.join(WORKLOADS)}")


def measure(
    workload: str, side_name: str, work_dir: Path, *, rounds: int, warmup: int, tiny: bool, jar: str | None
) -> dict[str, Any]:
    from benchmarks.alternation import progress
    from benchmarks.environment import steady_spark_stop
    from benchmarks.thread_cpu import descendants_cpu
    from benchmarks.three_sides import side_conf, side_named

    side = side_named(side_name)
    events = work_dir / "jar-events.jsonl"
    conf = side_conf(side, jar, str(events))
    if workload == "fresh":
        from benchmarks.memory_child import load_task_process_plugins

        load_task_process_plugins(side.operator)
    steady_spark_stop()
    meter = start_jvm(conf)
    run = workload_runner(workload, tiny, work_dir)
    measured: list[dict[str, Any]] = []
    for number in range(warmup + rounds):
        run_dir = work_dir / f"run-{number}"
        events_before = count_lines(events)
        threads_before = meter.threads()
        meter.reset_heap_peak()
        py_before, jvm_before = python_cpu_seconds(), meter.cpu_seconds()
        started = time.perf_counter()
        try:
            outcome = run(side.operator, run_dir, conf)
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)
        wall = time.perf_counter() - started
        py_after, jvm_after = python_cpu_seconds(), meter.cpu_seconds()
        if workload == "fresh":  # the whole process tree: from its start, not from the run's
            py_before, jvm_before = 0.0, 0.0
            jvm_after = descendants_cpu(os.getpid())
        record: dict[str, Any] = {
            "wall_seconds": wall,
            "py_cpu_seconds": py_after - py_before,
            "jvm_cpu_seconds": jvm_after - jvm_before,
            "cpu_seconds": (py_after - py_before) + (jvm_after - jvm_before),
            "heap_peak_bytes": meter.heap_peak_bytes(),
            "jar_events": count_lines(events) - events_before,
            "outputs": len(outcome.lineage.outputs or []) if outcome.lineage is not None else None,
            "thread_groups": thread_groups(threads_before, meter.threads()),
        }
        tag = "warm-up" if number < warmup else f"round {number - warmup + 1}/{rounds}"
        progress(
            f"three_sides {workload} {side_name}: {tag} cpu {record['cpu_seconds']:.2f}s wall {wall:.2f}s "
            f"heap peak {record['heap_peak_bytes'] / 2**20:.0f} MiB, jar events {record['jar_events']}"
        )
        if number >= warmup:
            measured.append(record)
    return {"workload": workload, "side": side_name, "runs": measured}


def main(argv: list[str]) -> None:
    from benchmarks.environment import configure_process_environment

    configure_process_environment()
    workload, side, work_dir = argv[0], argv[1], Path(argv[2])
    rounds, warmup, tiny = int(argv[3]), int(argv[4]), argv[5] == "1"
    jar = argv[6] if len(argv) > 6 and argv[6] else None
    work_dir.mkdir(parents=True, exist_ok=True)
    report = measure(workload, side, work_dir, rounds=rounds, warmup=warmup, tiny=tiny, jar=jar)
    print(RESULT_PREFIX + json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
