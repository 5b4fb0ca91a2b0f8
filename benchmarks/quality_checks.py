"""Benchmark: a write with 10 declared data-quality checks against the same write without them.

One Spark session in this process copies the same 1M-row Parquet table (an ETL step: read, write
Parquet), alternating the plain write and the checked one
(:func:`lineage_operators.quality.observe.checking` with ten checks: the aggregates ride on the
write's own job). Per side: the JVM's CPU seconds (the real
work the aggregates add), the wall time, and the number of Spark jobs the write ran (read from
the job group's status tracker).

Figures: checked/plain JVM CPU (target <= 1.10), checked/plain wall time (info: at this machine's
noise floor), extra Spark jobs per checked write (target == 0).
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
PLAIN, CHECKED = "plain", "checked"


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


def run(settings: Settings) -> list[Figure]:
    from pyspark.sql import SparkSession

    from lineage_operators.quality import DataQuality
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
    targets = {PLAIN: str(scratch / "plain"), CHECKED: str(scratch / "checked")}
    spec = DataQuality({targets[CHECKED]: ten_checks()})

    def write(side: str, number: int) -> WriteRun:
        group = f"quality-{side}-{number}"
        sc = spark.sparkContext
        sc.setJobGroup(group, group)
        cpu, started = process_cpu(jvm_pid), time.perf_counter()
        try:
            with checking(spec if side == CHECKED else None):
                frame.write.mode("overwrite").parquet(targets[side])
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
            sides=(PLAIN, CHECKED),
            seconds_of=lambda r: r.seconds,
        )
    finally:
        spark.stop()
    plain, checked = runs[PLAIN], runs[CHECKED]
    extra_jobs = max(c.jobs for c in checked) - min(p.jobs for p in plain)
    details = {
        "rows": rows,
        "checks": len(spec.checks[targets[CHECKED]]),
        "cpu_seconds": {PLAIN: [r.cpu_seconds for r in plain], CHECKED: [r.cpu_seconds for r in checked]},
        "seconds": {PLAIN: [r.seconds for r in plain], CHECKED: [r.seconds for r in checked]},
        "jobs": {PLAIN: [r.jobs for r in plain], CHECKED: [r.jobs for r in checked]},
    }
    progress(f"quality_checks: jobs per write {details['jobs']}")
    return [
        Figure(
            "quality_checks_cpu_ratio",
            ratio(median([r.cpu_seconds for r in checked]), median([r.cpu_seconds for r in plain])),
            Target("<=", 1.10),
            details,
        ),
        Figure(
            "quality_checks_wall_ratio",
            ratio(median([r.seconds for r in checked]), median([r.seconds for r in plain])),
        ),
        Figure("quality_checks_extra_jobs", float(extra_jobs), Target("==", 0)),
    ]
