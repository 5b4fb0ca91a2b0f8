"""A team's system test as a DAG: two small Spark tasks, then the task that checks their lineage.

``check_events`` compares what the run's tasks emitted with an expected-events file in Airflow's own
format. ``check_changed`` does the same with ``params.changed`` (by default the same file), so a
test can point one run's second check at a changed expectation and see it fail. ``check_backend``
reads the run's events from the lineage backend at ``params.backend`` (a Marquez API URL) when one
is given, as on a deployment whose tasks share no folder; else from the event store.
"""

from __future__ import annotations

import os
from pathlib import Path

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator
from lineage_operators.testing import AssertLineageOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
EXPECTED = Path(__file__).resolve().parent / "expected" / "lineage_assertion.json"


def write_orders(spark, base_dir: str) -> None:
    rows = [(1, "alice", 12.5), (2, "bob", 7.0), (3, "alice", 3.25)]
    frame = spark.createDataFrame(rows, "order_id INT, customer STRING, amount DOUBLE")
    frame.coalesce(1).write.mode("overwrite").parquet(f"{base_dir}/orders")


def summarize(spark, base_dir: str) -> None:
    orders = spark.read.parquet(f"{base_dir}/orders")
    totals = orders.groupBy("customer").sum("amount").withColumnRenamed("sum(amount)", "total")
    totals.coalesce(1).write.mode("overwrite").parquet(f"{base_dir}/totals")


with DAG(
    dag_id="lineage_assertion",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    is_paused_upon_creation=False,  # as a deployed system-test DAG someone switched on
    params={"changed": str(EXPECTED), "backend": ""},
) as dag:
    orders = LineageAwarePySparkOperator(
        task_id="write_orders", python_callable=write_orders, op_kwargs={"base_dir": BASE_DIR}
    )
    totals = LineageAwarePySparkOperator(
        task_id="summarize", python_callable=summarize, op_kwargs={"base_dir": BASE_DIR}
    )
    check = AssertLineageOperator(task_id="check_events", expected=EXPECTED)
    check_changed = AssertLineageOperator(task_id="check_changed", expected="{{ params.changed }}")
    check_backend = AssertLineageOperator(
        task_id="check_backend", expected=EXPECTED, backend="{{ params.backend }}"
    )
    orders >> totals >> [check, check_changed, check_backend]
