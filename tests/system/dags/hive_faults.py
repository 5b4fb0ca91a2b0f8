"""The Hive metastore unreachable at session start (tests/system/test_hive_faults.py): our task and the
same code without us, each building its own session, as tasks of their own processes do.

The sessions have Hive support pointed at a port nobody listens on, with the metastore client's connect
retries made short (the same conf on both sides): a connect cycle gives up in seconds, a few of them,
enough that one more by us would show. ``healthy``: the run's measure of our cost, the same code on a
session without Hive support. ``untouched``: the code reads a CSV file and writes Parquet, touching no
table: the task succeeds, as without us, if nothing of ours asks the metastore. ``table``: the same, then
it reads a table: the task fails on the metastore, as without us, and reports what it touched before.
"""

from __future__ import annotations

import os
from typing import Any

from tests.support.fault_tasks import fault_dag

# dag.test() parses this file again; Airflow's safe mode reads only files that name "airflow" and "dag"

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
DEAD_PORT = os.environ.get("LINEAGE_TEST_DEAD_PORT", "9")
SCHEMA = "order_id int, customer string, amount double"
LOCAL = {
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.warehouse.dir": f"{BASE_DIR}/warehouse",
    # said, not left out: a JVM launched by a session with Hive support keeps its conf as system properties,
    # which every later session of the process reads
    "spark.sql.catalogImplementation": "in-memory",
}
#: Hive support on a metastore nobody serves; its client gives up after one retry 5 s later, per try of
#: Spark's (two): a connect cycle of ~10 s, which one more by us could not hide.
UNREACHABLE = {
    **LOCAL,
    "spark.sql.catalogImplementation": "hive",
    "spark.hadoop.hive.metastore.uris": f"thrift://127.0.0.1:{DEAD_PORT}",
    "spark.hadoop.hive.metastore.connect.retries": "1",
    "spark.hadoop.hive.metastore.client.connect.retry.delay": "5s",
    "spark.hadoop.hive.metastore.client.socket.timeout": "5s",
}


def copy(spark: Any, side: str) -> None:
    """The task's code: a CSV file into Parquet, by path."""
    frame = spark.read.schema(SCHEMA).option("header", "true").csv(f"{BASE_DIR}/orders.csv")
    frame.write.mode("overwrite").parquet(f"{BASE_DIR}/out/{side}")


def copy_then_table(spark: Any, side: str) -> None:
    """The same, then a table of the metastore: the first thing that asks it."""
    copy(spark, side)
    spark.table("faults.orders").count()


dag = fault_dag(
    "hive_faults",
    __file__,
    {"healthy": copy, "untouched": copy, "table": copy_then_table},
    master="local[1]",
    conf=UNREACHABLE,
    pair_conf={"healthy": LOCAL},
)
