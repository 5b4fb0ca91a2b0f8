"""Data-quality checks that fail: ``strict`` (``on_failure="fail"``) must fail its task after the
write, ``lenient`` (``@task.lineage_pyspark``, the default ``report``) must succeed; both report
the checks in their lineage. ``unfinished``'s checked write fails mid-job: its FAIL event lists the
checks as skipped."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG, task

from lineage_operators import LineageAwarePySparkOperator
from lineage_operators.quality import DataQuality, not_null, row_count

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
ROWS = [(1, "alice"), (2, None), (3, None)]


def write_customers(spark, path: str) -> None:
    spark.createDataFrame(ROWS, "id INT, customer STRING").write.mode("overwrite").parquet(path)


def write_until_a_broken_row(spark, path: str) -> None:
    rows = spark.createDataFrame(ROWS, "id INT, customer STRING")
    broken = rows.selectExpr("id", "IF(id = 3, raise_error('broken row'), customer) AS customer")
    broken.write.mode("overwrite").parquet(path)


with DAG(
    dag_id="data_quality_fail",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
) as dag:
    LineageAwarePySparkOperator(
        task_id="strict",
        python_callable=write_customers,
        op_kwargs={"path": f"{BASE_DIR}/strict"},
        data_quality=DataQuality(
            {f"{BASE_DIR}/strict": [not_null("customer"), row_count(min=1)]}, on_failure="fail"
        ),
    )

    @task.lineage_pyspark(data_quality={f"{BASE_DIR}/lenient": not_null("customer")})
    def lenient(spark=None) -> None:
        write_customers(spark, f"{BASE_DIR}/lenient")

    lenient()

    LineageAwarePySparkOperator(
        task_id="unfinished",
        python_callable=write_until_a_broken_row,
        op_kwargs={"path": f"{BASE_DIR}/unfinished"},
        data_quality={f"{BASE_DIR}/unfinished": [not_null("customer"), row_count(min=1)]},
    )
