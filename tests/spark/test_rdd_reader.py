"""The Java reader of RDD-only jobs (one JVM call for all queued jobs) finds what the Python walk
finds, job by job, on the RDD APIs openlineage-spark covers and on jobs that touch no file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lineage_operators.spark import listener as lst
from lineage_operators.spark import rdd_reader
from lineage_operators.spark.jvm import tools_for
from lineage_operators.spark.rdd import MAX_DEPTH, RddJobWatcher, _job_tags


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


def _tags(items: Any, index: int) -> frozenset[str]:
    return _job_tags(items.get(index).get(0))


def _comparable(facts: Any) -> Any:
    if facts is None:
        return None
    return (
        facts.succeeded,
        [(r.location, r.rows, r.size) for r in facts.inputs],
        [(r.location, r.rows, r.size) for r in facts.outputs],
        facts.tags,
    )


def test_the_java_reader_finds_what_the_python_walk_finds(queued: Any, tmp_path: Path) -> None:
    tools, watcher, items, count = queued
    reader = rdd_reader.reader(tools)
    assert reader is not None, "RddJobReader.java did not compile"
    files = rdd_reader.parse(str(reader.read(items, MAX_DEPTH)), count)
    java = [_comparable(watcher._facts(_tags(items, i), f)) if f else None for i, f in enumerate(files)]
    python = [
        _comparable(watcher._facts(_tags(items, i), watcher._read_job(items.get(i)))) for i in range(count)
    ]
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
    assert count > len(found)  # the jobs that touch no file (the count, the schema merge) are skipped


def test_without_the_java_reader_the_python_walk_reads_the_same(
    queued: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, watcher, items, count = queued

    def read(items: Any, count: int) -> list[Any]:  # as the watcher does: files, then statistics
        facts = (watcher._facts(tags, files) for tags, files in watcher._read_files(items, count))
        return [_comparable(f) for f in facts if f is not None]

    with_reader = read(items, count)
    monkeypatch.setattr(rdd_reader, "reader", lambda tools: None)
    assert read(items, count) == with_reader
    # five writes, the count over two directories, and the job pyspark's newAPIHadoopFile runs on its input
    assert len(with_reader) == 7, "\n".join(map(str, with_reader))


def test_the_reader_thread_reads_queued_jobs_between_executions(spark: Any, tmp_path: Path) -> None:
    """The watcher's queue holds each RDD job's ``ActiveJob`` (stages, RDD lineage, closures and what
    they capture) until it is read: held until ``stop()``, those kept broadcast relations alive and
    grew the driver's heap through the memory benchmark's task. The capture's reader thread reads
    them after each execution it reads, so they are released as the task goes."""
    from lineage_operators.spark.capture import SparkLineageCapture

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
        assert [files.output for _, files in watcher._read] == [f"file:{tmp_path / 'out'}"]
    finally:
        result = capture.stop()
    assert any(d.name == str(tmp_path / "out") for d in result.outputs), result.outputs
