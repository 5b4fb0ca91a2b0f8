"""The ordinary PySpark task both the overhead and the memory benchmarks run.

Shaped like a daily batch job: per table, write raw Parquet, read it back, aggregate, join the
aggregate back, count and collect; then a temporary view and a CTAS. That is ``6 * tables + 2``
Spark actions, each one a query execution the capture's listener sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class TaskWorkloadSize:
    tables: int
    rows: int

    @property
    def actions(self) -> int:
        return 6 * self.tables + 2


FULL = TaskWorkloadSize(tables=10, rows=200_000)
TINY = TaskWorkloadSize(tables=1, rows=1_000)


def task_workload(spark: SparkSession, base_dir: str, tables: int, rows: int) -> int:
    """Run the workload under ``base_dir``; returns the number of rows the CTAS wrote."""
    from pyspark.sql import functions as F

    for index in range(tables):
        raw_path, agg_path, joined_path = (f"{base_dir}/{kind}_{index}" for kind in ("raw", "agg", "joined"))
        generated = spark.range(rows).selectExpr(
            "id",
            f"(id * {index + 7}) % 97 AS k",
            "CAST(id AS DOUBLE) * 1.5 AS v",
            "concat('n', id % 1000) AS name",
        )
        generated.write.mode("overwrite").parquet(raw_path)
        raw = spark.read.parquet(raw_path)
        aggregated = raw.groupBy("k").agg(F.sum("v").alias("total"), F.count("*").alias("n"))
        aggregated.write.mode("overwrite").parquet(agg_path)
        joined = raw.join(spark.read.parquet(agg_path), "k").where(F.col("v") > F.col("total") / F.col("n"))
        joined.write.mode("overwrite").parquet(joined_path)
        spark.read.parquet(joined_path).count()
        raw.groupBy("name").agg(F.max("v").alias("top")).orderBy("name").limit(10).collect()
        spark.read.parquet(agg_path).agg(F.sum("n")).collect()
    spark.read.parquet(f"{base_dir}/joined_0").createOrReplaceTempView("joined_all")
    spark.sql(
        "CREATE TABLE bench_ctas USING parquet AS "
        "SELECT k, sum(v) AS total, count(*) AS n FROM joined_all GROUP BY k"
    )
    return int(spark.table("bench_ctas").count())
