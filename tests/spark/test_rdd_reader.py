"""The Java reader of RDD-only jobs (one JVM call for all queued jobs) finds what the Python walk
finds, job by job, on the RDD APIs openlineage-spark covers and on jobs that touch no file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lineage_operators.spark import listener as lst
from lineage_operators.spark import rdd_reader
from lineage_operators.spark.jvm import tools_for
from lineage_operators.spark.rdd import MAX_DEPTH, RddJobWatcher


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
def queued(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, RddJobWatcher, Any, Any, int]:
    """The same jobs queued twice: by a watcher that reads each job as it starts (the Java reader's
    ``entry``) and by one without the Java reader, whose queue keeps the scheduler's ``ActiveJob``."""
    tools = tools_for(spark.sparkContext._gateway)
    reading = RddJobWatcher(tools, spark.sparkContext._jsc)
    reading.start()
    with monkeypatch.context() as patch:
        patch.setattr(rdd_reader, "reader", lambda tools: None)
        holding = RddJobWatcher(tools, spark.sparkContext._jsc)
        holding.start()
    try:
        _jobs(spark, tmp_path)
        assert lst.drain(spark.sparkContext._jsc, 30)
    finally:
        reading.stop()
        holding.stop()
    read_items, held_items = tools.jvm.java.util.ArrayList(), tools.jvm.java.util.ArrayList()
    count = int(reading._queue.drainTo(read_items))
    assert int(holding._queue.drainTo(held_items)) == count
    return tools, holding, read_items, held_items, count


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
    tools, watcher, read_items, held_items, count = queued
    reader = rdd_reader.reader(tools)
    assert reader is not None, "RddJobReader.java did not compile"
    files = rdd_reader.parse(str(reader.read(read_items, MAX_DEPTH)), count)
    java = [
        _comparable(watcher._facts(read_items.get(i).get(0), f)) if f else None for i, f in enumerate(files)
    ]
    python = [_comparable(watcher._read_job(held_items.get(i))) for i in range(count)]
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


def test_the_queue_holds_records_not_the_schedulers_jobs(queued: Any) -> None:
    """Each job is read when it starts: holding its ``ActiveJob`` (stages, RDD lineage, closures and
    what they capture, broadcast relations included) until ``stop()`` grew the driver's heap by
    tens of MiB in the memory benchmark's task."""
    _, _, read_items, held_items, count = queued
    assert count > 5
    held = [str(held_items.get(i).get(1).getClass().getName()) for i in range(count)]
    assert all(name.startswith("scala.") for name in held), held  # Some(ActiveJob) / None
    assert {type(read_items.get(i).get(1)) for i in range(count)} == {str}  # py4j's Java String


def test_without_the_java_reader_the_python_walk_reads_the_same(
    queued: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, watcher, read_items, held_items, count = queued
    with_reader = [_comparable(f) for f in watcher._read_jobs(read_items, count) if f is not None]
    monkeypatch.setattr(rdd_reader, "reader", lambda tools: None)
    assert [_comparable(f) for f in watcher._read_jobs(held_items, count) if f is not None] == with_reader
    # five writes, the count over two directories, and the job pyspark's newAPIHadoopFile runs on its input
    assert len(with_reader) == 7, "\n".join(map(str, with_reader))
