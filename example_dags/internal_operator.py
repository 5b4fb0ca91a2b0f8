"""An internal operator built by subclassing, and a task that fails mid-job.

`SnapshotOperator` is what a platform team writes once: it overrides `run_spark` and adds, with
`record_lineage`, a dataset Spark cannot see. `publish_snapshot` fails after it has read and written:
its FAIL event still lists what it touched, with the error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")


class SnapshotOperator(LineageAwarePySparkOperator):
    """Copy a Parquet dataset to a dated snapshot and write a manifest next to it."""

    template_fields = (*LineageAwarePySparkOperator.template_fields, "source", "target")

    def __init__(self, *, source: str, target: str, fail_after_write: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source = source
        self.target = target
        self.fail_after_write = fail_after_write

    def run_spark(self, spark, context) -> int:
        frame = spark.read.parquet(self.source)
        frame.write.mode("overwrite").parquet(self.target)
        rows = frame.count()
        if self.fail_after_write:
            raise ValueError(f"snapshot check failed: expected at least 1000 rows, found {rows}")
        Path(f"{self.target}_manifest.json").write_text(json.dumps({"rows": rows}))
        return rows

    def record_lineage(self, spark, context) -> None:
        if not self.fail_after_write:
            self.lineage.add_output(f"{self.target}_manifest.json")


def seed_events(spark, base_dir: str) -> None:
    spark.range(10).selectExpr("id", "id % 3 AS kind").write.mode("overwrite").parquet(f"{base_dir}/events")


with DAG(
    dag_id="example_internal_operator",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["example", "lineage"],
) as dag:
    seed = LineageAwarePySparkOperator(
        task_id="seed_events", python_callable=seed_events, op_kwargs={"base_dir": BASE_DIR}
    )
    snapshot = SnapshotOperator(
        task_id="snapshot_events",
        source=f"{BASE_DIR}/events",
        target=f"{BASE_DIR}/snapshots/events/{{{{ ds_nodash }}}}",
    )
    publish = SnapshotOperator(
        task_id="publish_snapshot",
        source=f"{BASE_DIR}/events",
        target=f"{BASE_DIR}/published/events",
        fail_after_write=True,
    )
    seed >> [snapshot, publish]
