"""The Kafka broker stopped mid-stream (tests/kafka/test_kafka_faults.py): our task and the same code
without us, healthy first (the run's measure of our cost), then each meeting the fault.

Each side streams topic :data:`TOPIC` (filled by the test) from its start into Parquet files of its
own with Structured Streaming. After the first batch (``processAllAvailable``) the healthy pair stops its
query; the ``stopped`` pair asks the test to stop the broker (killed), waits until its port refuses
connections, then waits for the query, whose next batch cannot fetch the topic's offsets: it fails once
Kafka's client gives up (short timeouts and one retry, the same options on both sides), and the task
with it. ``before_plain_stopped`` has the broker started again. Both sides use the suite's active
session, as tasks on a cluster whose image carries Spark's Kafka connector.
"""

from __future__ import annotations

import os
from typing import Any

from tests.support.fault_tasks import accepts, ask, fault_dag, folder

# dag.test() parses this file again; Airflow's safe mode reads only files that name "airflow" and "dag"

#: Kafka's client gives up in seconds, not its default minute: the same options on both sides.
SOURCE_OPTIONS = {
    "startingOffsets": "earliest",
    "fetchOffset.numRetries": "1",
    "fetchOffset.retryIntervalMs": "100",
    "kafka.default.api.timeout.ms": "3000",
    "kafka.request.timeout.ms": "2000",
    "kafka.reconnect.backoff.max.ms": "500",
}
#: The longest a stopped side waits for its query to fail (it fails in seconds).
QUERY_WAIT_S = 120


TOPIC = "faults_orders"


def _broker() -> tuple[str, int]:
    host, port = os.environ["LINEAGE_TEST_KAFKA_BOOTSTRAP"].rsplit(":", 1)
    return host, int(port)


def stream(spark: Any, side: str) -> None:
    """The task's code: a topic into Parquet files; on the ``stopped`` pair the broker goes away."""
    reader = spark.readStream.format("kafka").option(
        "kafka.bootstrap.servers", os.environ["LINEAGE_TEST_KAFKA_BOOTSTRAP"]
    )
    for key, value in SOURCE_OPTIONS.items():
        reader = reader.option(key, value)
    query = (
        reader.option("subscribe", TOPIC)
        .load()
        .selectExpr("CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value")
        .writeStream.format("parquet")
        .option("checkpointLocation", str(folder() / "checkpoints" / side))
        .start(str(folder() / "out" / side))
    )
    try:
        query.processAllAvailable()
        if side.endswith("_stopped"):
            ask(f"{side}.halt_kafka", lambda: not accepts(*_broker()))
            query.awaitTermination(QUERY_WAIT_S)  # raises the query's error
    finally:
        query.stop()


def bring_back() -> None:
    ask("resume_kafka", lambda: accepts(*_broker()))


dag = fault_dag(
    "kafka_faults", __file__, {"healthy": stream, "stopped": stream}, between={"stopped": bring_back}
)
