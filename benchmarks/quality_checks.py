"""Benchmark: ten declared data-quality checks in flight, against what users run instead.

One Spark session in this process copies the same 1M-row Parquet table (an ETL step: read, write
Parquet), alternating four sides:

* ``plain``: the write alone;
* ``metrics``: the write of a DataFrame the user observes for its metrics only (``rowCount`` and each
  column's null count: the ``dataQualityMetrics`` facet's cheapest source, no declared check);
* ``checked``: the write under :func:`lineage_operators.quality.observe.checking` with ten checks (the
  aggregates ride on the write's own job);
* ``second_pass``: the plain write followed by what a validation task (Great Expectations, Soda, Deequ)
  does: a second Spark job that reads the written dataset back and computes the same ten checks' aggregates
  in one query.

Per side: the JVM's CPU seconds (the real work), the wall time, and the number of Spark jobs (read from
the job group's status tracker).

Figures: what the in-flight checks add over the plain write as a share of what the second pass adds
(target <= 0.5), metrics alone over plain (target <= 1.05), checked over plain (info: the aggregates are
per-row work, dearest on this cheapest of writes), wall-time ratio (info: at this machine's noise floor),
extra Spark jobs per checked write (target == 0).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from benchmarks.alternation import alternate, median, progress, ratio
from benchmarks.environment import SPARK_MASTER, spark_conf
from benchmarks.figures import Figure, Target
from benchmarks.settings import Settings
from benchmarks.thread_cpu import process_cpu

FULL_ROWS = 1_000_000
TINY_ROWS = 10_000
PLAIN, METRICS, CHECKED, SECOND_PASS = "plain", "metrics", "checked", "second_pass"
SIDES = (PLAIN, METRICS, CHECKED, SECOND_PASS)


@dataclass
class WriteRun:
    seconds: float
    cpu_seconds: float
    jobs: int


def ten_checks() -> list[Any]:
    from lineage_operators.quality import between, expression, in_set, not_null, row_count, unique

    return [
        not_null("id"),
        not_null("amount"),
        not_null("customer"),
        unique("id"),
        between("amount", 0, 1000),
        between("quantity", 1, 100),
        in_set("status", ["new", "paid", "shipped"]),
        row_count(min=1),
        expression("amount >= 0 OR status = 'new'", name="amount_sign"),
        expression("length(customer) <= 12", name="customer_length"),
    ]


def _frame(spark: Any, rows: int) -> Any:
    return spark.range(rows).selectExpr(
        "id",
        "CAST(id % 997 AS DOUBLE) AS amount",
        "CAST(id % 100 + 1 AS INT) AS quantity",
        "element_at(array('new', 'paid', 'shipped'), CAST(id % 3 + 1 AS INT)) AS status",
        "concat('c', CAST(id % 5000 AS STRING)) AS customer",
    )


def _metrics_only(frame: Any) -> Any:
    """The frame observed for ``rowCount`` and each column's ``nullCount`` (the metric names
    :mod:`lineage_operators.quality.metrics` reads), as a user adds metrics with no check."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    nulls = [F.sum(F.col(c).isNull().cast("int")).alias(f"{c}.nullCount") for c in frame.columns]
    return frame.observe(Observation("metrics"), F.count(F.lit(1)).alias("rowCount"), *nulls)


def _second_pass(spark: Any, path: str, aggregates: dict[str, str]) -> None:
    """A validation step's one aggregate query over the written data: the same aggregates."""
    spark.read.parquet(path).selectExpr(*(f"{sql} AS `{name}`" for name, sql in aggregates.items())).collect()


def run(settings: Settings) -> list[Figure]:
    from pyspark.sql import SparkSession

    from lineage_operators.quality import DataQuality
    from lineage_operators.quality.checks import observation_aggregates
    from lineage_operators.quality.observe import checking

    rows = TINY_ROWS if settings.tiny else FULL_ROWS
    scratch = settings.scratch("quality_checks")
    builder = SparkSession.builder.master(SPARK_MASTER)
    for key, value in spark_conf("bench-quality-checks", str(scratch / "warehouse")).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    source = str(scratch / "source")
    _frame(spark, rows).write.mode("overwrite").parquet(source)
    frame = spark.read.parquet(source)
    targets = {side: str(scratch / side) for side in SIDES}
    checks = ten_checks()
    spec = DataQuality({targets[CHECKED]: checks})
    aggregates = observation_aggregates(checks)

    def write(side: str, number: int) -> WriteRun:
        group = f"quality-{side}-{number}"
        sc = spark.sparkContext
        sc.setJobGroup(group, group)
        cpu, started = process_cpu(jvm_pid), time.perf_counter()
        try:
            with checking(spec if side == CHECKED else None):
                written = _metrics_only(frame) if side == METRICS else frame
                written.write.mode("overwrite").parquet(targets[side])
            if side == SECOND_PASS:
                _second_pass(spark, targets[side], aggregates)
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)
        return WriteRun(
            time.perf_counter() - started,
            process_cpu(jvm_pid) - cpu,
            len(sc.statusTracker().getJobIdsForGroup(group)),
        )

    try:
        runs = alternate(
            "quality_checks",
            settings.rounds_or(5),
            write,
            warmup_rounds=settings.warmup_rounds(),
            sides=SIDES,
            seconds_of=lambda r: r.seconds,
        )
    finally:
        spark.stop()
    return figures(runs, rows, len(checks))


def figures(runs: dict[str, list[WriteRun]], rows: int, checks: int) -> list[Figure]:
    """The figures of the four sides' runs (medians of JVM CPU seconds per side)."""
    cpu = {side: median([r.cpu_seconds for r in side_runs]) for side, side_runs in runs.items()}
    plain = cpu[PLAIN]
    extra_jobs = max(c.jobs for c in runs[CHECKED]) - min(p.jobs for p in runs[PLAIN])
    details = {
        "rows": rows,
        "checks": checks,
        "cpu_seconds": {side: [r.cpu_seconds for r in side_runs] for side, side_runs in runs.items()},
        "seconds": {side: [r.seconds for r in side_runs] for side, side_runs in runs.items()},
        "jobs": {side: [r.jobs for r in side_runs] for side, side_runs in runs.items()},
        "cpu_median": cpu,
    }
    progress(f"quality_checks: jobs per write {details['jobs']}; median CPU s {cpu}")
    return [
        Figure(
            "quality_checks_in_flight_over_second_pass",
            ratio(cpu[CHECKED] - plain, cpu[SECOND_PASS] - plain),
            Target("<=", 0.5),
            details,
        ),
        Figure("quality_checks_metrics_cpu_ratio", ratio(cpu[METRICS], plain), Target("<=", 1.05)),
        Figure("quality_checks_cpu_ratio", ratio(cpu[CHECKED], plain)),
        Figure(
            "quality_checks_wall_ratio",
            ratio(median([r.seconds for r in runs[CHECKED]]), median([r.seconds for r in runs[PLAIN]])),
        ),
        Figure("quality_checks_extra_jobs", float(extra_jobs), Target("==", 0)),
    ]
