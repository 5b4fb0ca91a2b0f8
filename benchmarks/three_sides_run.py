"""The three-side benchmark's parent: starts the sides' processes in turn, makes figures of their reports.

``python -m benchmarks.run --only three_sides_task three_sides_tiny_actions three_sides_large_plans
three_sides_fresh`` (on request only: they are not part of ``make bench``). See
:mod:`benchmarks.three_sides` for the sides and the figures.

In-process workloads: each cycle runs one process per side (:mod:`benchmarks.three_sides_child`,
``WARMUP`` warm-up runs then ``--rounds`` measured runs), in the sides' order, reversed every other
cycle (:func:`schedule`); ``--processes`` sets the cycles (default 1). ``fresh``
(:mod:`benchmarks.three_sides_fresh`): one warm-up round (a process per side: it fills the bytecode
cache every side reads and the class cache of ours) and then ``--rounds`` rounds of one fresh process
per side, the order turning every round, each process one run of the fresh-process job, timed from
its creation to its exit here.

The jar comes from the project's test-only fetch script (:mod:`tests.support.maven_jars`: pinned,
verified, cached outside the repository), for the Scala line of the installed pyspark.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import time
from collections.abc import Callable
from typing import Any

from benchmarks.alternation import progress, round_order
from benchmarks.environment import run_child_report
from benchmarks.figures import Figure
from benchmarks.settings import Settings
from benchmarks.three_sides import FRESH_SIDE_NAMES, SIDE_NAMES, figures, side_named
from benchmarks.three_sides_child import RESULT_PREFIX
from benchmarks.three_sides_fresh import figures as fresh_figures

IN_PROCESS_WORKLOADS = ("task", "tiny_actions", "large_plans")
FRESH = "fresh"
# Modest on purpose: a full run of the four workloads on one line is ~1,300 CPU seconds, and this
# shared 2-core machine gives a benchmark about one core.
FULL_ROUNDS = {"task": 3, "tiny_actions": 3, "large_plans": 3, FRESH: 20}
WARMUP_RUNS = 1  # per in-process child: its first run carries the JIT's first compilations (~40 s CPU)
CHILD_TIMEOUT_SECONDS = 900


def jar_path() -> str:
    """The openlineage-spark jar for the installed pyspark (fetched and verified on first use)."""
    from tests.support.maven_jars import fetch, openlineage_spark_jar_name

    return str(fetch(openlineage_spark_jar_name(importlib.metadata.version("pyspark"))))


def schedule(cycles: int, sides: tuple[str, ...] = SIDE_NAMES) -> list[str]:
    """The order of the sides' processes: the sides in order, then reversed, and so on."""
    return [side for cycle in range(cycles) for side in round_order(sides, cycle)]


def child_arguments(
    workload: str, side: str, work_dir: str, *, rounds: int, warmup: int, tiny: bool, jar: str
) -> list[str]:
    """The child's command line (see :mod:`benchmarks.three_sides_child`)."""
    return [workload, side, work_dir, str(rounds), str(warmup), "1" if tiny else "0", jar]


def class_cache_environment(side: str, cache_dir: str) -> dict[str, str]:
    """Where the side's processes keep the compiled JVM classes: ``off`` for the compiling side, else a
    folder of this run (filled by the warm-up round, never the user's own cache)."""
    from lineage_operators.spark.jvm.class_cache import ENV_VAR

    return {ENV_VAR: cache_dir if side_named(side).class_cache else "off"}


def run_workload(settings: Settings, workload: str) -> list[Figure]:
    scratch = settings.scratch(f"three_sides_{workload}")
    jar = jar_path()
    rounds = settings.rounds_or(FULL_ROUNDS[workload])
    sides = FRESH_SIDE_NAMES if workload == FRESH else SIDE_NAMES
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}

    def child(side: str, number: int, child_rounds: int, warmup: int) -> dict[str, Any]:
        work_dir = scratch / f"{number}-{side}"
        arguments = child_arguments(
            workload, side, str(work_dir), rounds=child_rounds, warmup=warmup, tiny=settings.tiny, jar=jar
        )
        started = time.perf_counter()
        try:
            report = run_child_report(
                "benchmarks.three_sides_child",
                arguments,
                RESULT_PREFIX,
                CHILD_TIMEOUT_SECONDS,
                pass_stderr=True,
                environment=class_cache_environment(side, str(scratch / "jvm-classes")),
            )
        finally:
            shutil.rmtree(work_dir, ignore_errors=True)
        report["process_wall_seconds"] = time.perf_counter() - started
        return report

    if workload == FRESH:
        warmup = settings.warmup_rounds(1)
        order = schedule(warmup + rounds, sides)
        for number, side in enumerate(order):
            progress(f"three_sides {workload}: process {number + 1}/{len(order)} ({side})")
            report = child(side, number, 1, 0)
            if number >= warmup * len(sides):
                wall = report["process_wall_seconds"]
                runs[side].extend({**run, "process_wall_seconds": wall} for run in report["runs"])
        found = fresh_figures(runs)
        if found:
            found[0].details["runs_by_side"] = runs  # every run, so the figures can be made again
        return found
    processes = settings.processes_or(1)
    order = schedule(processes)
    for number, side in enumerate(order):
        progress(f"three_sides {workload}: process {number + 1}/{len(order)} ({side})")
        runs[side].extend(child(side, number, rounds, settings.warmup_rounds(WARMUP_RUNS))["runs"])
    found = figures(workload, runs, processes)
    if found:  # what each run did, for profiles and to prove each side's lineage ran
        for key in ("thread_groups", "jar_events", "outputs"):
            found[0].details[key] = {side: [run[key] for run in runs[side]] for side in SIDE_NAMES}
        found[0].details["runs_by_side"] = runs  # every run, so the figures can be made again
    return found


def runner(workload: str) -> Callable[[Settings], list[Figure]]:
    """The ``benchmarks.run`` entry of one workload."""
    return lambda settings: run_workload(settings, workload)


BENCHMARKS = {f"three_sides_{workload}": runner(workload) for workload in (*IN_PROCESS_WORKLOADS, FRESH)}
