"""The Kafka jobs: Spark reading and writing topics of the test's broker, in batch and as streams.

The same :class:`~tests.peer.corpus.Job` style as the peer corpus: a ``setup`` outside the capture, a
``body`` that is the task's own work, run under our capture and openlineage-spark's listener at once
(tests/peer/runner.py). :meth:`KafkaWorkspace.prepare` creates the topics and fills them: ``orders``
(read by most jobs, appended to by the batch write), ``events.a`` / ``events.b`` (matched by a
pattern) and ``orders_copy`` (a stream's Kafka sink). Every stream but one runs
``trigger(availableNow=True)``: it reads what the topic holds, then stops; ``kafka_stream_stopped_by_task``
runs on a processing-time trigger until the task stops it.

:func:`expected` is what our capture must name for each job, exactly: openlineage-spark's Kafka rule
(``kafka://`` + host:port of the *first* bootstrap server, the topic as name) and files by their path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.peer.corpus import Job
from tests.support.kafka_broker import KafkaBroker, create_topics

ORDERS = "orders"
EVENTS = ("events.a", "events.b")
COPY = "orders_copy"
PATTERN = r"events\..*"
STREAM_TABLE = "kafka_orders_stream"

KafkaBody = Callable[[Any, "KafkaWorkspace"], None]


@dataclass
class KafkaWorkspace:
    """The broker, and the folder of the jobs' files (sources, outputs, checkpoints)."""

    broker: KafkaBroker
    root: Path

    def path(self, name: str) -> str:
        return str(self.root / name)

    def source(self, spark: Any, servers: str | None = None) -> Any:
        return (
            spark.read.format("kafka")
            .option("kafka.bootstrap.servers", servers or self.broker.bootstrap)
            .option("startingOffsets", "earliest")
        )

    def stream(self, spark: Any, servers: str | None = None) -> Any:
        return (
            spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", servers or self.broker.bootstrap)
            .option("startingOffsets", "earliest")
        )

    def prepare(self, spark: Any) -> None:
        """The Parquet source, the topics (through Kafka's admin client) and their first records."""
        orders = spark.createDataFrame(
            [(i, f"c{i % 5}", float(i * 10)) for i in range(20)],
            "order_id int, customer string, amount double",
        )
        orders.write.mode("overwrite").parquet(self.path("orders_parquet"))
        create_topics(spark, self.broker.bootstrap, [ORDERS, *EVENTS, COPY])
        _as_records(orders).write.format("kafka").option(
            "kafka.bootstrap.servers", self.broker.bootstrap
        ).option("topic", ORDERS).save()
        for topic in EVENTS:
            _as_records(orders.limit(5)).write.format("kafka").option(
                "kafka.bootstrap.servers", self.broker.bootstrap
            ).option("topic", topic).save()


def _as_records(frame: Any) -> Any:
    """Rows as Kafka records: the order id as key, the row as JSON value."""
    return frame.selectExpr("CAST(order_id AS STRING) AS key", "to_json(struct(*)) AS value")


def _decoded(frame: Any) -> Any:
    return frame.selectExpr("CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value", "topic")


KAFKA_JOBS: list[Job] = []


def job(name: str, setup: KafkaBody | None = None) -> Callable[[KafkaBody], KafkaBody]:
    def register(body: KafkaBody) -> KafkaBody:
        KAFKA_JOBS.append(Job(name, body, setup) if setup else Job(name, body))  # type: ignore[arg-type]
        return body

    return register


@job("kafka_batch_write")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    _as_records(spark.read.parquet(ws.path("orders_parquet"))).write.format("kafka").mode("append").option(
        "kafka.bootstrap.servers", ws.broker.bootstrap
    ).option("topic", ORDERS).save()


@job("kafka_batch_read")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    frame = ws.source(spark).option("subscribe", ORDERS).load()
    _decoded(frame).write.mode("overwrite").parquet(ws.path("batch_read"))


@job("kafka_batch_read_assign")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    frame = ws.source(spark).option("assign", f'{{"{EVENTS[0]}": [0]}}').load()
    _decoded(frame).write.mode("overwrite").parquet(ws.path("batch_assign"))


@job("kafka_batch_read_two_topics")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    frame = ws.source(spark).option("subscribe", ",".join(EVENTS)).load()
    _decoded(frame).write.mode("overwrite").parquet(ws.path("batch_two_topics"))


@job("kafka_batch_read_pattern")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    frame = ws.source(spark).option("subscribePattern", PATTERN).load()
    _decoded(frame).write.mode("overwrite").parquet(ws.path("batch_pattern"))


@job("kafka_several_servers")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    """Two listeners of one broker, the second first: the namespace is the first server listed."""
    servers = f"{ws.broker.second_bootstrap},{ws.broker.bootstrap}"
    frame = ws.source(spark, servers).option("subscribe", ORDERS).load()
    _decoded(frame).write.mode("overwrite").parquet(ws.path("several_servers"))


def _run(writer: Any, ws: KafkaWorkspace, name: str, start: Callable[[Any], Any] | None = None) -> None:
    """Start a stream with ``availableNow`` and its own checkpoint; wait for its end; raise its error."""
    writer = writer.trigger(availableNow=True).option("checkpointLocation", ws.path(f"checkpoints/{name}"))
    query = start(writer) if start else writer.start()
    query.awaitTermination()


@job("kafka_stream_to_files")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    frame = _decoded(ws.stream(spark).option("subscribe", ORDERS).load())
    _run(frame.writeStream.format("parquet").option("path", ws.path("stream_files")), ws, "files")


@job("kafka_stream_stopped_by_task")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    """A stream on a processing-time trigger that the task stops once it has read what the topic holds."""
    frame = _decoded(ws.stream(spark).option("subscribe", ORDERS).load())
    query = (
        frame.writeStream.format("parquet")
        .option("path", ws.path("stream_stopped"))
        .option("checkpointLocation", ws.path("checkpoints/stopped"))
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        query.processAllAvailable()
    finally:
        query.stop()


def _drop_stream_table(spark: Any, ws: KafkaWorkspace) -> None:
    spark.sql(f"DROP TABLE IF EXISTS {STREAM_TABLE}")


@job("kafka_stream_to_table", setup=_drop_stream_table)
def _(spark: Any, ws: KafkaWorkspace) -> None:
    frame = _decoded(ws.stream(spark).option("subscribe", ORDERS).load())
    _run(frame.writeStream.format("parquet"), ws, "table", lambda w: w.toTable(STREAM_TABLE))


@job("kafka_foreach_batch")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    out = ws.path("foreach_batch")

    def each(batch: Any, _: int) -> None:
        batch.write.mode("append").parquet(out)

    frame = _decoded(ws.stream(spark).option("subscribe", ORDERS).load())
    _run(frame.writeStream.foreachBatch(each), ws, "foreach_batch")


@job("kafka_stream_pattern")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    frame = _decoded(ws.stream(spark).option("subscribePattern", PATTERN).load())
    _run(frame.writeStream.format("parquet").option("path", ws.path("stream_pattern")), ws, "pattern")


@job("kafka_stream_several_servers")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    servers = f"{ws.broker.second_bootstrap},{ws.broker.bootstrap}"
    frame = _decoded(ws.stream(spark, servers).option("subscribe", ORDERS).load())
    _run(frame.writeStream.format("parquet").option("path", ws.path("stream_servers")), ws, "servers")


@job("kafka_stream_to_kafka")
def _(spark: Any, ws: KafkaWorkspace) -> None:
    frame = ws.stream(spark).option("subscribe", ORDERS).load().select("key", "value")
    writer = frame.writeStream.format("kafka").option("kafka.bootstrap.servers", ws.broker.bootstrap)
    _run(writer.option("topic", COPY), ws, "to_kafka")


def table_location(spark: Any, table: str) -> str:
    row = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").first()
    return str(row.data_type).removeprefix("file:")


def expected(ws: KafkaWorkspace, spark: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """job -> {"input|output namespace:name": key facets}: exact names. ``storage`` is a file
    output's format (Kafka datasets have none); ``lifecycle`` an output's (None: no facet)."""
    main = f"kafka://{ws.broker.bootstrap}"
    second = f"kafka://{ws.broker.second_bootstrap}"
    orders = f"input {main}:{ORDERS}"

    def out(name: str) -> str:
        return f"output file:{ws.path(name)}"

    overwrite = {"storage": "parquet", "lifecycle": "OVERWRITE"}
    # a file sink's format is private to it: a stream's folder has no storage facet (its table has one)
    appended = {"storage": None, "lifecycle": None}
    return {
        "kafka_batch_write": {
            f"input file:{ws.path('orders_parquet')}": {"storage": "parquet"},
            f"output {main}:{ORDERS}": {"lifecycle": None},
        },
        "kafka_batch_read": {orders: {}, out("batch_read"): overwrite},
        "kafka_batch_read_assign": {f"input {main}:{EVENTS[0]}": {}, out("batch_assign"): overwrite},
        "kafka_batch_read_two_topics": {
            **{f"input {main}:{topic}": {} for topic in EVENTS},
            out("batch_two_topics"): overwrite,
        },
        # a pattern's topics are not in a batch read's plan: the jar names nothing either
        "kafka_batch_read_pattern": {out("batch_pattern"): overwrite},
        "kafka_several_servers": {f"input {second}:{ORDERS}": {}, out("several_servers"): overwrite},
        "kafka_stream_to_files": {orders: {}, out("stream_files"): appended},
        "kafka_stream_stopped_by_task": {orders: {}, out("stream_stopped"): appended},
        "kafka_stream_to_table": {
            orders: {},
            f"output file:{table_location(spark, STREAM_TABLE)}": {
                "storage": "parquet",
                "lifecycle": "CREATE",
            },
        },
        # the batch's own write: an ordinary Parquet append
        "kafka_foreach_batch": {orders: {}, out("foreach_batch"): {"storage": "parquet", "lifecycle": None}},
        "kafka_stream_pattern": {
            **{f"input {main}:{topic}": {} for topic in EVENTS},
            out("stream_pattern"): appended,
        },
        "kafka_stream_several_servers": {f"input {second}:{ORDERS}": {}, out("stream_servers"): appended},
        "kafka_stream_to_kafka": {orders: {}, f"output {main}:{COPY}": {"lifecycle": None}},
    }
