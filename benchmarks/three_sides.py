"""Three sides of the same workloads (issue 36): plain PySpark, this library's capture, openlineage-spark.

The sides (:data:`SIDES`):

* ``plain``: the plain ``PythonOperator`` of :mod:`benchmarks.sides`, no lineage at all;
* ``lineage``: ``LineageAwarePySparkOperator`` with capture on, as every other benchmark runs it,
  **without** the jar;
* ``jar``: the plain operator, its session built with the openlineage-spark listener
  (:func:`jar_conf`: ``spark.jars``, ``spark.extraListeners``, a file transport, dataset-level
  column lineage on), so the jar does its whole job, writing its events to a file;
* ``lineage_jar``: this library's operator in a session that also has the jar's listener: what the
  capture adds to a cluster where the jar is already installed.

Why one side per process. The jar's listener keeps process-wide state from its first start (a second
session in the same JVM with another transport location still wrote to the first one's file, and
pyspark's ``SparkSession.builder`` keeps every option set on it for the process's next sessions),
so a JVM that has run the jar's side cannot run a side without it. Each side therefore runs its
own processes, all of the same shape (one JVM, warm-up runs, measured runs, a fresh SparkSession
each), and the processes of the sides alternate, their order turning every cycle, so a slow drift
of the shared machine falls on every side alike. The fresh-process workload runs one process per
run anyway.

Figures (:func:`figures`) use CPU, not wall time: wall time sits at this machine's noise floor,
CPU seconds of the driver's Python plus the Spark JVM hardly move when other jobs share the cores.
Each ratio is ``exp(mean log cpu_a - mean log cpu_b)`` over the runs of the two sides (a ratio of
geometric means; the runs are not paired, they ran in different processes) with a 95% interval
from both sides' variances (:func:`ratio_interval`). Per side: median CPU seconds (Python, JVM,
total) and the median driver JVM peak heap (heap pools' peak usage, reset before each run).

The sides' processes run minutes apart, and on a loaded machine CPU seconds are not immune to
load: co-running work on the same cores slows every instruction (on 2026-11-28 a 4.3 process
whose JVM executor threads, the job's own work that no side changes, took 1.5 times the CPU they
took minutes earlier took 1.5 times the CPU in total). So every ratio comes twice: as measured,
and per job (``_per_job``): each run's CPU over the CPU of its Spark executor threads
(:func:`job_cpu_seconds`), which takes the machine's speed at the time out of the comparison.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.figures import Figure, Target
from benchmarks.sides import LINEAGE, PLAIN

JAR_LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"
JAR_NAMESPACE = "bench_three_sides"
NAME = "three_sides"


@dataclass(frozen=True)
class Side:
    """One side: the operator it runs (``plain`` or ``lineage`` of :mod:`benchmarks.sides`), with
    the jar's listener in its session or not."""

    name: str
    operator: str
    jar: bool
    #: this package's disk cache of compiled JVM classes on (``lineage_operators.spark.jvm.class_cache``)
    class_cache: bool = True


SIDES = (
    Side("plain", PLAIN, jar=False),
    Side("lineage", LINEAGE, jar=False),
    Side("jar", PLAIN, jar=True),
    Side("lineage_jar", LINEAGE, jar=True),
)
SIDE_NAMES = tuple(side.name for side in SIDES)
#: Ours with the class cache off (every JVM compiles the Java sources: the capture before the
#: cache), a side of the fresh-process workload only, so one run gives the before and the after.
COMPILING = Side("lineage_compiling", LINEAGE, jar=False, class_cache=False)
#: The fresh-process workload's sides: no ours+jar (a side that workload cannot afford: each process
#: is ~30 CPU-s), ours with the class cache and without.
FRESH_SIDE_NAMES = ("plain", "lineage", COMPILING.name, "jar")


def side_named(name: str) -> Side:
    for side in (*SIDES, COMPILING):
        if side.name == name:
            return side
    raise ValueError(f"unknown side {name!r}; known: {', '.join(SIDE_NAMES)}")


def jar_conf(jar_path: str, events_path: str, namespace: str = JAR_NAMESPACE) -> dict[str, str]:
    """The Spark conf that runs the openlineage-spark listener with a file transport."""
    return {
        "spark.jars": jar_path,
        "spark.extraListeners": JAR_LISTENER,
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": events_path,
        "spark.openlineage.namespace": namespace,
        "spark.openlineage.columnLineage.datasetLineageEnabled": "true",
    }


def side_conf(side: Side, jar_path: str | None, events_path: str) -> dict[str, str]:
    """The extra conf of ``side``'s sessions: the jar's where the side has it, none otherwise."""
    if not side.jar:
        return {}
    if not jar_path:
        raise ValueError(f"side {side.name!r} needs the openlineage-spark jar's path")
    return jar_conf(jar_path, events_path)


def ratio_interval(numerator: Sequence[float], denominator: Sequence[float]) -> tuple[float, float, float]:
    """Ratio of the geometric means of two unpaired samples, with a 95% interval (normal approximation
    on the difference of mean logs). NaN where a side has no positive value; NaN bounds where a
    side has fewer than two."""
    top = [math.log(value) for value in numerator if value > 0]
    bottom = [math.log(value) for value in denominator if value > 0]
    if not top or not bottom:
        return float("nan"), float("nan"), float("nan")
    centre = statistics.fmean(top) - statistics.fmean(bottom)
    if len(top) < 2 or len(bottom) < 2:
        return math.exp(centre), float("nan"), float("nan")
    error = math.sqrt(statistics.variance(top) / len(top) + statistics.variance(bottom) / len(bottom))
    half = statistics.NormalDist().inv_cdf(0.975) * error
    return math.exp(centre), math.exp(centre - half), math.exp(centre + half)


def t_quantile_975(degrees: int) -> float:
    """The 97.5% quantile of Student's t with ``degrees`` degrees of freedom (Cornish-Fisher
    expansion around the normal's: within 0.2% of the exact value from 5 degrees up)."""
    z = statistics.NormalDist().inv_cdf(0.975)
    v = float(degrees)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def paired_ratio_interval(
    numerator: Sequence[float], denominator: Sequence[float]
) -> tuple[float, float, float]:
    """Ratio of two sides over alternated pairs (pair ``i``: ``numerator[i]`` and ``denominator[i]``,
    run next to each other): ``exp`` of the mean log ratio of the pairs, with a 95% t interval.

    Pairing takes the machine's slow drift out of each pair's ratio, so the interval is the pairs'
    own spread. Pairs with a non-positive value are left out; NaN where no pair is left, NaN bounds
    with fewer than two."""
    logs = [math.log(a / b) for a, b in zip(numerator, denominator, strict=True) if a > 0 and b > 0]
    if not logs:
        return float("nan"), float("nan"), float("nan")
    centre = statistics.fmean(logs)
    if len(logs) < 2:
        return math.exp(centre), float("nan"), float("nan")
    half = t_quantile_975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(centre), math.exp(centre - half), math.exp(centre + half)


#: The ratios reported per workload: (figure suffix, numerator side, denominator side, target).
RATIOS: tuple[tuple[str, str, str, Target | None], ...] = (
    ("lineage_over_plain_cpu", "lineage", "plain", None),
    ("jar_over_plain_cpu", "jar", "plain", None),
    ("lineage_over_jar_cpu", "lineage", "jar", Target("<=", 1.0)),
    ("lineage_jar_over_jar_cpu", "lineage_jar", "jar", None),
)

Run = Mapping[str, Any]
EXECUTOR_THREADS = "Executor task"  # Spark's "Executor task launch worker for task N" threads


def job_cpu_seconds(run: Run) -> float:
    """CPU of the run's Spark executor threads (sampled thread groups): the job's own work."""
    groups: Mapping[str, float] = run.get("thread_groups") or {}
    return float(sum(seconds for name, seconds in groups.items() if name.startswith(EXECUTOR_THREADS)))


def per_job(runs: Sequence[Run]) -> list[float]:
    """Each run's CPU over its executor threads' CPU; empty if a run has no executor CPU."""
    jobs = [job_cpu_seconds(run) for run in runs]
    if not jobs or min(jobs) <= 0:
        return []
    return [run["cpu_seconds"] / job for run, job in zip(runs, jobs, strict=True)]


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def side_summary(runs: Sequence[Run]) -> dict[str, Any]:
    """Medians of one side's measured runs: CPU seconds (Python, JVM, both), peak heap, wall."""
    return {
        "runs": len(runs),
        "cpu_seconds": _median([run["cpu_seconds"] for run in runs]),
        "py_cpu_seconds": _median([run["py_cpu_seconds"] for run in runs]),
        "jvm_cpu_seconds": _median([run["jvm_cpu_seconds"] for run in runs]),
        "heap_peak_mib": _median([run["heap_peak_bytes"] / 2**20 for run in runs]),
        "wall_seconds": _median([run["wall_seconds"] for run in runs]),
        "job_cpu_seconds": _median([job_cpu_seconds(run) for run in runs]),
        "jar_events": _median([float(run.get("jar_events", 0)) for run in runs]),
    }


def figures(workload: str, runs: Mapping[str, Sequence[Run]], processes: int) -> list[Figure]:
    """The workload's figures from every measured run of each side (sides without runs are left out)."""
    prefix = f"{NAME}_{workload}"
    summaries = {name: side_summary(runs[name]) for name in SIDE_NAMES if runs.get(name)}
    cpu = {name: [run["cpu_seconds"] for run in runs[name]] for name in summaries}
    found: list[Figure] = []
    for suffix, top, bottom, target in RATIOS:
        if top not in cpu or bottom not in cpu:
            continue
        centre, low, high = ratio_interval(cpu[top], cpu[bottom])
        details = {
            "ci95": [low, high],
            "runs": {top: len(cpu[top]), bottom: len(cpu[bottom])},
            "processes_per_side": processes,
            "meaning": f"CPU (driver Python + Spark JVM) per run, {top} over {bottom}: "
            "ratio of geometric means",
        }
        found.append(Figure(f"{prefix}_{suffix}", centre, target, details))
        top_per_job, bottom_per_job = per_job(runs[top]), per_job(runs[bottom])
        if top_per_job and bottom_per_job:
            centre, low, high = ratio_interval(top_per_job, bottom_per_job)
            meaning = "the same, each run's CPU over its Spark executor threads' CPU (the job's own work)"
            found.append(
                Figure(f"{prefix}_{suffix}_per_job", centre, None, {"ci95": [low, high], "meaning": meaning})
            )
    for name, summary in summaries.items():
        found.append(Figure(f"{prefix}_{name}_cpu_seconds", summary["cpu_seconds"], None, summary))
        found.append(Figure(f"{prefix}_{name}_heap_peak_mib", summary["heap_peak_mib"], None))
    return found
