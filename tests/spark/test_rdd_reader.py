"""The Java reader of RDD-only jobs (one JVM call for all queued jobs) finds what the Python walk
finds, job by job, on the RDD APIs openlineage-spark covers and on jobs that touch no file."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import listener_queues

from lineage_operators.spark.jvm.tools import tools_for
from lineage_operators.spark.listen import listener as lst
from lineage_operators.spark.rdd import reader as rdd_reader
from lineage_operators.spark.rdd.jobs import RddJobWatcher
from lineage_operators.spark.rdd.sources import MAX_DEPTH


def _jobs(spark: Any, tmp_path: Path) -> None:
    sc = spark.sparkContext
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.txt").write_text("a\nb\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "b.txt").write_text("c\n")
    sc.textFile(str(source)).saveAsTextFile(str(tmp_path / "text_out"))
    sc.textFile(str(source)).union(sc.textFile(str(other))).saveAsTextFile(str(tmp_path / "union_out"))
    sc.parallelize(range(4), 2).saveAsPickleFile(str(tmp_path / "pickled"))
    sc.newAPIHadoopFile(
        str(source),
        "org.apache.hadoop.mapreduce.lib.input.TextInputFormat",
        "org.apache.hadoop.io.LongWritable",
        "org.apache.hadoop.io.Text",
    ).map(lambda kv: kv[1]).saveAsTextFile(str(tmp_path / "new_api_out"))
    sc.textFile(f"{source},{other}").count()  # two directories in one input-dir value, no output
    spark.range(3).write.parquet(str(tmp_path / "parquet"))
    spark.range(3, 6).write.mode("append").parquet(str(tmp_path / "parquet"))
    spark.read.option("mergeSchema", "true").parquet(str(tmp_path / "parquet")).rdd.map(str).saveAsTextFile(
        str(tmp_path / "from_scan")  # a FileScanRDD under the RDD job, after a schema-merge job
    )
    sc.parallelize(range(10)).count()  # touches no file


@pytest.fixture
def queued(spark: Any, tmp_path: Path) -> tuple[Any, RddJobWatcher, Any, int]:
    tools = tools_for(spark.sparkContext._gateway)
    watcher = RddJobWatcher(tools, spark.sparkContext._jsc)
    watcher.start()
    try:
        _jobs(spark, tmp_path)
        assert lst.drain(spark.sparkContext._jsc, 30)
    finally:
        watcher.stop()
    items = tools.jvm.java.util.ArrayList()
    count = int(watcher._queue.drainTo(items))
    return tools, watcher, items, count


def _comparable(facts: Any) -> Any:
    if facts is None:
        return None
    return (
        facts.succeeded,
        [(r.location, r.rows, r.size) for r in facts.inputs],
        [(r.location, r.rows, r.size) for r in facts.outputs],
        facts.tags,
    )


def _read_queue(watcher: RddJobWatcher, items: Any) -> list[Any]:
    """The watcher's own read of ``items`` put back in its queue: files, then statistics."""
    watcher._queue.addAll(items)
    assert watcher.read_queued()
    assert int(watcher._queue.size()) == 0
    read, watcher._read = watcher._read, []
    return [_comparable(f) for f in map(watcher._facts, read) if f is not None]


def test_the_java_reader_finds_what_the_python_walk_finds(queued: Any, tmp_path: Path) -> None:
    """``RddJobReader.drain`` takes the queue and reads it in one call, tags included; job by job,
    the Python walk of the same entries finds the same."""
    tools, watcher, items, count = queued
    reader = rdd_reader.reader(tools)
    assert reader is not None, "RddJobReader.java did not compile"
    queue = tools.jvm.java.util.concurrent.LinkedBlockingQueue(items)
    files = rdd_reader.parse_drained(str(reader.drain(queue, MAX_DEPTH)))
    assert int(queue.size()) == 0
    assert str(reader.drain(queue, MAX_DEPTH)) == ""
    assert len(files) == count
    java = [_comparable(watcher._facts(f)) if f else None for f in files]
    python = [_comparable(watcher._facts(watcher._read_job(items.get(i)))) for i in range(count)]
    assert java == python
    found = [f for f in java if f is not None]
    outputs = {loc.removeprefix("file:") for f in found for loc, _, _ in f[2]}
    assert outputs == {
        str(tmp_path / n) for n in ("text_out", "union_out", "pickled", "new_api_out", "from_scan")
    }
    inputs = {loc for f in found for loc, _, _ in f[1]}
    assert {str(tmp_path / "in"), str(tmp_path / "other"), str(tmp_path / "parquet")} <= {
        loc.removeprefix("file:") for loc in inputs
    }
    assert count > len(found)  # the jobs that touch no file (the count of parallelized numbers) are skipped
    # the schema merge's footer reads name the folder of the files (as openlineage-spark names them)
    merge = [f for f in found if not f[2] and f[1] == [(f"file:{tmp_path / 'parquet'}", None, None)]]
    assert merge, found


def test_without_the_java_reader_the_python_walk_reads_the_same(
    queued: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, watcher, items, _ = queued
    with_reader = _read_queue(watcher, items)
    monkeypatch.setattr(rdd_reader, "reader", lambda tools: None)
    assert _read_queue(watcher, items) == with_reader
    # five writes, the count over two directories, the job pyspark's newAPIHadoopFile runs on its input and
    # the Parquet schema merge
    assert len(with_reader) == 8, "\n".join(map(str, with_reader))


def test_the_reader_thread_reads_queued_jobs_between_executions(spark: Any, tmp_path: Path) -> None:
    """The watcher's queue holds each RDD job's ``ActiveJob`` (stages, RDD lineage, closures and what
    they capture) until it is read: held until ``stop()``, those kept broadcast relations alive and
    grew the driver's heap through the memory benchmark's task. The capture's reader thread reads
    them after each execution it reads, so they are released as the task goes."""
    from lineage_operators.spark.capture.classic import SparkLineageCapture

    source = tmp_path / "in"
    source.mkdir()
    (source / "a.txt").write_text("a\n")
    capture = SparkLineageCapture(spark)
    capture.start()
    try:
        spark.sparkContext.textFile(str(source)).saveAsTextFile(str(tmp_path / "out"))
        assert lst.drain(spark.sparkContext._jsc, 30)
        watcher = capture._rdd_jobs
        assert watcher is not None
        assert int(watcher._queue.size()) >= 1
        spark.range(3).count()  # an execution: the reader thread reads it, then the queued jobs
        assert capture._drain()
        assert int(watcher._queue.size()) == 0
        assert [files.output for files in watcher._read] == [f"file:{tmp_path / 'out'}"]
    finally:
        result = capture.stop()
    assert any(d.name == str(tmp_path / "out") for d in result.outputs), result.outputs


def test_reading_the_queue_after_an_execution_costs_one_round_trip(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader thread reads the queue after every execution it reads, and most DataFrame tasks
    queue jobs that touch no file (a Parquet read's schema job): one call, empty or not."""
    from py4j import clientserver

    tools = tools_for(spark.sparkContext._gateway)
    watcher = RddJobWatcher(tools, spark.sparkContext._jsc)
    watcher.start()
    try:
        assert watcher.read_queued()  # compiles the reader on first use
        trips = []
        send = clientserver.ClientServerConnection.send_command

        reader_thread = threading.get_ident()  # py4j's finalizer thread may send deletes meanwhile

        def counting(connection: Any, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == reader_thread:
                trips.append(args[0][:1] if args else "")
            return send(connection, *args, **kwargs)

        spark.sparkContext.parallelize(range(10), 2).count()  # an RDD-only job that touches no file
        assert lst.drain(spark.sparkContext._jsc, 30)
        assert int(watcher._queue.size()) == 1
        monkeypatch.setattr(clientserver.ClientServerConnection, "send_command", counting)
        assert watcher.read_queued()
        assert watcher.read_queued()  # and again, empty
        monkeypatch.undo()
    finally:
        watcher.stop()
    assert len(trips) == 2, trips
    assert int(watcher._queue.size()) == 0


def test_jobs_tagged_in_the_task_keep_their_tags_through_the_drain(spark: Any, tmp_path: Path) -> None:
    sc = spark.sparkContext
    if not hasattr(sc, "addJobTag"):
        pytest.skip("SparkContext.addJobTag is Spark 3.5+")
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.txt").write_text("a\n")
    tools = tools_for(sc._gateway)
    watcher = RddJobWatcher(tools, sc._jsc)
    watcher.start()
    sc.addJobTag("lineage-test-tag")
    try:
        sc.textFile(str(source)).saveAsTextFile(str(tmp_path / "out"))
        assert lst.drain(sc._jsc, 30)
    finally:
        sc.removeJobTag("lineage-test-tag")
        watcher.stop()
    facts = watcher.executions()
    assert [f.tags for f in facts] == [frozenset({"lineage-test-tag"})]


def _queued_by(spark: Any, tmp_path: Path, tools: Any) -> tuple[list[Any], str, set[str]]:
    """What a watcher built with ``tools`` queues for one RDD write and one SQL write (output and
    input items of each job that touched files), the class of its listener, and the listener-bus
    queues its registration added."""
    source = tmp_path / "in"
    source.mkdir(parents=True)
    (source / "a.txt").write_text("a\n")
    before = listener_queues(spark)
    watcher = RddJobWatcher(tools, spark.sparkContext._jsc)
    watcher.start()
    try:
        added = listener_queues(spark) - before
        kind = str(watcher._listener.getClass().getName())
        spark.sparkContext.textFile(str(source)).saveAsTextFile(str(tmp_path / "out"))
        spark.range(3).write.parquet(str(tmp_path / "sql_write"))  # a SQL execution's jobs: not queued
        assert lst.drain(spark.sparkContext._jsc, 30)
    finally:
        watcher.stop()
    drained = rdd_reader.reader(tools_for(spark.sparkContext._gateway)).drain(watcher._queue, MAX_DEPTH)
    files = [(f.output, f.input_items) for f in rdd_reader.parse_drained(str(drained)) if f]
    return files, kind, added


def test_the_job_listener_is_compiled_and_adds_no_queue(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spark's bus wakes each queue's thread for every event (every task's start and end): the
    watcher's listener joins a queue Spark runs anyway instead of one of its own, and is a compiled
    ``SparkListener`` rather than a proxy dispatching on method names. Without the compiled
    ``Handles``, the proxy queues the same jobs."""
    tools = tools_for(spark.sparkContext._gateway)
    compiled = _queued_by(spark, tmp_path / "compiled", tools)
    monkeypatch.setattr(tools, "fast", lambda: None)  # as where Handles.java cannot be compiled
    fallback = _queued_by(spark, tmp_path / "proxy", tools)
    for found, _, added in (compiled, fallback):
        assert added == set()
        assert [(out.rsplit("/", 1)[-1], [i.rsplit("/", 1)[-1] for i in ins]) for out, ins in found] == [
            ("out", ["in"])
        ], found
    assert compiled[1] == "lineage_operators.Handles$RddJobListener"
    assert "$Proxy" in fallback[1], fallback[1]
