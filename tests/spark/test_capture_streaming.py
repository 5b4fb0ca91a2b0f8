"""Structured Streaming under capture: a stream runs its micro-batches (and hands ``foreachBatch``
its DataFrames) on a clone of the session that started it, so the execution queue takes the
session's clones too (``ExecutionReader.Pending.ours``). Without that, a task whose work is a
stream reported no input and no output at all. A file sink's micro-batch (root
``WriteToMicroBatchDataSourceV1``) reports the path it writes, or the table over it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import get, names, run_captured, schema

SCHEMA = "id INT, name STRING"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "part.csv").write_text("1,a\n2,b\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module", autouse=True)
def no_callback_server_left(spark: Any) -> Iterator[None]:
    """pyspark starts py4j's callback server for ``foreachBatch`` and never stops it: stopped after
    this module when it was not running before, so later tests find the gateway as it was."""
    from lineage_operators.spark.session import callback_server as listener

    gateway = spark.sparkContext._gateway
    was_running = gateway.__dict__.get("_callback_server") is not None
    yield
    server = gateway.__dict__.get("_callback_server")
    if server is not None and not was_running:
        listener._unblock_connections(server)
        listener._shutdown_keeping_pool(server)
        gateway.__dict__["_callback_server"] = None


@pytest.fixture
def stop_streams(spark: Any) -> Iterator[None]:
    """Whatever a test leaves running is stopped after it."""
    yield
    for query in spark.streams.active:
        query.stop()


def _reader(spark: Any, folder: Path) -> Any:
    return spark.readStream.format("csv").schema(SCHEMA).load(str(folder))


def _read_file(result: Any, folder: Path) -> None:
    """The file the stream read is an input with the stream's schema, as a batch read reports it."""
    read = get(result.inputs, folder / "part.csv")
    assert schema(read) == [("id", "integer"), ("name", "string")]


def _data_files(folder: Path) -> list[int]:
    """The sizes of the files a file sink wrote under ``folder``: its ``_spark_metadata`` and checksums
    aside."""
    return [
        f.stat().st_size
        for f in folder.rglob("*")
        if f.is_file() and not any(p.startswith(("_", ".")) for p in f.relative_to(folder).parts)
    ]


def _written_by_the_stream(result: Any, written: Any, folder: Path, data: list[int] | None = None) -> None:
    """A file sink's output: the stream's schema, each column from the file's column of that name, and
    the batch's statistics (``data``: the sizes of the files written, when they are no longer on disk)."""
    assert schema(written) == [("id", "integer"), ("name", "string")]
    fields = written.facets["columnLineage"].fields
    sources = {
        column: {(i.namespace, i.name, i.field) for i in f.inputFields} for column, f in fields.items()
    }
    read = ("file", str(folder / "part.csv"))
    assert sources == {"id": {(*read, "id")}, "name": {(*read, "name")}}
    # the batch's rows, bytes and files, from its jobs' task metrics (as openlineage-spark reads them)
    statistics = written.output_facets["outputStatistics"]
    data = _data_files(Path(written.name)) if data is None else data
    assert (statistics.rowCount, statistics.fileCount) == (2, len(data)) != (2, 0)
    assert statistics.size == sum(data)


def test_available_now_to_console_reports_the_file_read(spark: Any, source: Path, tmp_path: Path) -> None:
    def task() -> None:
        query = (
            _reader(spark, source)
            .writeStream.format("console")
            .trigger(availableNow=True)
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .start()
        )
        query.awaitTermination()

    _, result = run_captured(spark, task)
    _read_file(result, source)


def test_foreach_batch_writes_are_ordinary_writes(spark: Any, source: Path, tmp_path: Path) -> None:
    """``foreachBatch`` writing Parquet and a table: the batch DataFrame's writes are outputs."""
    out = tmp_path / "out"
    spark.sql("DROP TABLE IF EXISTS stream_sink")

    def each(frame: Any, batch_id: int) -> None:
        frame.write.mode("append").parquet(str(out))
        frame.write.mode("append").saveAsTable("stream_sink")

    def task() -> None:
        query = (
            _reader(spark, source)
            .writeStream.foreachBatch(each)
            .trigger(availableNow=True)
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .start()
        )
        query.awaitTermination()

    try:
        _, result = run_captured(spark, task)
    finally:
        spark.sql("DROP TABLE IF EXISTS stream_sink")
    outputs = names(result.outputs)
    assert ("file", str(out)) in outputs
    # the table, and nothing for the foreachBatch sink itself (its micro-batch writes nothing)
    assert len(outputs) == 2, outputs
    assert any(name.endswith("stream_sink") for _, name in outputs), outputs
    assert result.inputs, "the batch DataFrame's source is an input"


def test_processing_time_query_stopped_by_the_task(
    spark: Any, source: Path, tmp_path: Path, stop_streams: None
) -> None:
    """A file sink's micro-batches (``option("path", ...)``): their read and the path they write, as a
    batch write names it (``file`` + the path), with the stream's schema and column lineage."""
    out = tmp_path / "out"

    def task() -> None:
        query = (
            _reader(spark, source)
            .writeStream.format("parquet")
            .option("path", str(out))
            .trigger(processingTime="100 milliseconds")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .start()
        )
        query.processAllAvailable()
        query.stop()

    _, result = run_captured(spark, task)
    _read_file(result, source)
    _written_by_the_stream(result, get(result.outputs, out), source)


def test_file_sinks_started_on_a_path_and_into_a_table(
    spark: Any, source: Path, tmp_path: Path, stop_streams: None
) -> None:
    """``start(path)`` names the path; ``toTable`` the table's location with its ``TABLE`` symlink, as
    openlineage-spark names a ``toTable`` file sink (and as a batch write to that table)."""
    out = tmp_path / "started"
    spark.sql("DROP TABLE IF EXISTS stream_files")

    def task() -> None:
        for name, writer in (
            ("path", lambda w: w.format("json").start(str(out))),
            ("table", lambda w: w.format("parquet").toTable("stream_files")),
        ):
            query = writer(
                _reader(spark, source)
                .writeStream.trigger(availableNow=True)
                .option("checkpointLocation", str(tmp_path / f"checkpoint_{name}"))
            )
            query.awaitTermination()

    try:
        _, result = run_captured(spark, task)
        location = spark.sql("DESCRIBE TABLE EXTENDED stream_files").where("col_name = 'Location'").first()
        table_files = _data_files(Path(location.data_type.removeprefix("file:")))
    finally:
        spark.sql("DROP TABLE IF EXISTS stream_files")
    _written_by_the_stream(result, get(result.outputs, out), source)
    table = get(result.outputs, location.data_type.removeprefix("file:"))
    assert [(i.name, i.type) for i in table.facets["symlinks"].identifiers] == [
        ("default.stream_files", "TABLE")
    ]
    assert table.facets["storage"].fileFormat == "parquet"
    _written_by_the_stream(result, table, source, table_files)


def test_query_still_running_when_the_task_ends(
    spark: Any, source: Path, tmp_path: Path, stop_streams: None
) -> None:
    """What the stream read before the task ended is reported; the capture's stop does not wait
    for the stream (nor hang), and the stream goes on after it."""
    out = tmp_path / "out"
    holder: list[Any] = []

    def task() -> None:
        query = (
            _reader(spark, source)
            .writeStream.foreachBatch(lambda frame, _: frame.write.mode("append").parquet(str(out)))
            .trigger(processingTime="100 milliseconds")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .start()
        )
        holder.append(query)
        query.processAllAvailable()

    _, result = run_captured(spark, task)
    assert ("file", str(out)) in names(result.outputs)
    assert holder[0].isActive


def test_rate_source_through_foreach_batch(spark: Any, tmp_path: Path) -> None:
    """A source with no dataset (rate): the Parquet the batches write is reported, nothing fails."""
    out = tmp_path / "out"

    def task() -> None:
        query = (
            spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", 5)
            .load()
            .writeStream.foreachBatch(lambda frame, _: frame.write.mode("append").parquet(str(out)))
            .trigger(availableNow=True)
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .start()
        )
        query.awaitTermination()

    _, result = run_captured(spark, task)
    assert ("file", str(out)) in names(result.outputs)
