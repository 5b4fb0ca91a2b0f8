"""Delta as users write it, on every line Delta publishes a release for: the ``DeltaTable`` API
(merge, update, delete, optimize, vacuum, restore), ``replaceWhere``, ``mergeSchema``, Change Data
Feed reads, a ``foreachBatch`` stream into Delta, and the promise that capture never makes Spark run
a job to learn about a Delta table.

The Python ``DeltaTable`` API is Delta's own, taken from the pinned delta-spark jar (as
``addPyFile`` would); nothing is installed for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.delta.delta_helpers import captured, commit_metrics, delta_python, history
from tests.iceberg.iceberg_helpers import column_sources, statistics, version
from tests.spark.spark_helpers import lifecycle, local, names, schema


def no_log_reads(result: Any) -> None:
    assert [n for _, n in names([*result.inputs, *result.outputs]) if "_delta_log" in n] == []


#: A Spark interface Delta 4.1.0's ALTER commands (and so its ``DeltaTable`` class) are built against,
#: which Spark 4.1.4 no longer has: there, loading ``DeltaTable`` fails with a LinkageError that
#: breaks the session's py4j connection, so it is never tried.
_DELTA_TABLE_NEEDS = {"4.1": "org.apache.spark.sql.catalyst.plans.logical.IgnoreCachedData"}


@pytest.fixture(scope="module")
def delta_table(spark: Any, delta_jars: list[Path]) -> Any:
    """``delta.tables.DeltaTable``, when this line's pinned Delta can load it on this Spark."""
    needed = _DELTA_TABLE_NEEDS.get(".".join(spark.version.split(".")[:2]))
    if needed and not spark._jvm.org.apache.spark.util.Utils.classIsLoadable(needed):
        pytest.skip(
            f"Delta's DeltaTable needs {needed.rsplit('.', 1)[-1]}, which Spark {spark.version} lacks"
        )
    delta_python(delta_jars)
    from delta.tables import DeltaTable

    return DeltaTable


def test_delta_table_api_merge_update_delete(spark: Any, delta_table: Any, tmp_path: Path) -> None:
    path, changes_path = tmp_path / "accounts", tmp_path / "changes"
    spark.range(6).selectExpr("id", "id * 10 AS amount").write.format("delta").save(str(path))
    spark.range(3, 9).selectExpr("id", "id * 7 AS amount").write.format("delta").save(str(changes_path))
    table = delta_table.forPath(spark, str(path))

    def merge() -> None:
        changes = spark.read.format("delta").load(str(changes_path))
        (
            table.alias("t")
            .merge(changes.alias("s"), "t.id = s.id")
            .whenMatchedUpdate(condition="s.amount > 30", set={"amount": "s.amount * 2"})
            .whenNotMatchedInsertAll()
            .execute()
        )

    results = {
        "merge": captured(spark, merge),
        "update": captured(spark, lambda: table.update("id > 6", {"amount": "amount + id"})),
        "delete": captured(spark, lambda: table.delete("id = 0")),
    }
    added_bytes = {"merge": "numTargetBytesAdded", "update": "numAddedBytes", "delete": "numAddedBytes"}
    for step, (kind, result) in enumerate(results.items(), start=1):
        no_log_reads(result)
        (out,) = result.outputs
        assert (out.namespace, out.name) == local(path), kind
        assert (lifecycle(out), version(out)) == (None, str(step)), kind
        metrics = commit_metrics(spark, f"delta.`{path}`", step)
        assert statistics(out)[1] == metrics[added_bytes[kind]], kind
    assert local(changes_path) in names(results["merge"].inputs)
    assert column_sources(results["merge"].outputs[0])["amount"] == {
        ("accounts", "amount", "IDENTITY"),
        ("changes", "amount", "TRANSFORMATION"),
        ("changes", "amount", "IDENTITY"),
    }
    assert column_sources(results["update"].outputs[0])["amount"] == {
        ("accounts", "amount", "TRANSFORMATION"),
        ("accounts", "id", "TRANSFORMATION"),
    }

    by_name = captured(spark, lambda: delta_table.forPath(spark, str(path)).toDF().count())
    assert names(by_name.outputs) == set()


def _maintained(spark: Any, path: Path, optimize: Any, restore: Any, vacuum: Any) -> None:
    """OPTIMIZE, RESTORE and VACUUM of ``path`` (three appends, so three small files), each captured."""
    for start in range(0, 9, 3):
        spark.range(start, start + 3).write.format("delta").mode("append").save(str(path))
    table = f"delta.`{path}`"

    optimized = captured(spark, optimize)
    no_log_reads(optimized)
    (out,) = optimized.outputs
    metrics = commit_metrics(spark, table)
    assert (out.namespace, out.name) == local(path)
    assert (lifecycle(out), version(out)) == (None, str(history(spark, table)))
    assert statistics(out) == (None, metrics["numAddedBytes"], metrics["numAddedFiles"])
    # the files OPTIMIZE rewrites are read as the table, never as datasets of their own
    assert names(optimized.inputs) <= {local(path)}

    restored = captured(spark, restore)
    no_log_reads(restored)
    (out,) = restored.outputs
    assert (out.namespace, out.name) == local(path)
    assert (lifecycle(out), version(out)) == ("OVERWRITE", str(history(spark, table)))
    assert schema(out) == [("id", "long")]

    if spark.version.startswith("4.1."):
        return  # Delta 4.1.0's VACUUM calls a Parquet schema converter constructor Spark 4.1.4 changed
    spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    try:
        vacuumed = captured(spark, vacuum)
    finally:
        spark.conf.unset("spark.databricks.delta.retentionDurationCheck.enabled")
    # VACUUM deletes files no version references: no data changes, nothing reported (as openlineage-spark)
    assert (vacuumed.outputs, [d for d in vacuumed.inputs if "_delta_log" in d.name]) == ([], [])


def test_optimize_restore_and_vacuum_in_sql(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "compacted"
    _maintained(
        spark,
        path,
        lambda: spark.sql(f"OPTIMIZE delta.`{path}`"),
        lambda: spark.sql(f"RESTORE TABLE delta.`{path}` TO VERSION AS OF 1"),
        lambda: spark.sql(f"VACUUM delta.`{path}` RETAIN 0 HOURS"),
    )


def test_optimize_restore_and_vacuum_of_the_delta_table_api(
    spark: Any, delta_table: Any, tmp_path: Path
) -> None:
    path = tmp_path / "compacted_by_api"

    def optimize() -> None:
        delta_table.forPath(spark, str(path)).optimize().executeCompaction()

    _maintained(
        spark,
        path,
        optimize,
        lambda: delta_table.forPath(spark, str(path)).restoreToVersion(1),
        lambda: delta_table.forPath(spark, str(path)).vacuum(0),
    )


def test_replace_where_merge_schema_and_the_change_feed(spark: Any, tmp_path: Path) -> None:
    path, feed_copy = tmp_path / "events", tmp_path / "feed_copy"
    spark.range(6).selectExpr("id", "id % 2 AS part").write.format("delta").option(
        "delta.enableChangeDataFeed", "true"
    ).save(str(path))

    def replace() -> None:
        rows = spark.range(2).selectExpr("id * 2 AS id", "0L AS part")
        rows.write.format("delta").mode("overwrite").option("replaceWhere", "part = 0").save(str(path))

    replaced = captured(spark, replace)
    (out,) = replaced.outputs
    assert (lifecycle(out), version(out)) == ("OVERWRITE", "1")
    metrics = commit_metrics(spark, f"delta.`{path}`", 1)  # the new rows and the kept rows it rewrote
    assert statistics(out) == (metrics["numOutputRows"], metrics["numOutputBytes"], metrics["numFiles"])
    assert metrics["numOutputRows"] >= 2

    def evolve() -> None:
        rows = spark.range(1).selectExpr("100L AS id", "1L AS part", "'new' AS note")
        rows.write.format("delta").mode("append").option("mergeSchema", "true").save(str(path))

    evolved = captured(spark, evolve)
    (out,) = evolved.outputs
    assert schema(out) == [("id", "long"), ("part", "long"), ("note", "string")]  # the new schema
    assert version(out) == "2"

    def read_feed() -> None:
        feed = spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", 1)
        feed.load(str(path)).select("id", "_change_type").write.mode("overwrite").parquet(str(feed_copy))

    fed = captured(spark, read_feed)
    no_log_reads(fed)
    (read,) = fed.inputs
    assert ((read.namespace, read.name), version(read)) == (local(path), "1")  # the version it starts from
    (copy,) = fed.outputs
    assert (copy.namespace, copy.name) == local(feed_copy)


def test_a_foreach_batch_stream_writing_delta(spark: Any, tmp_path: Path) -> None:
    source, sink = tmp_path / "incoming", tmp_path / "landed"
    spark.range(4).write.format("delta").save(str(source))

    def stream() -> None:
        def batch(frame: Any, _: int) -> None:
            frame.selectExpr("id * 3 AS tripled").write.format("delta").mode("append").save(str(sink))

        query = (
            spark.readStream.format("delta")
            .load(str(source))
            .writeStream.trigger(availableNow=True)
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .foreachBatch(batch)
            .start()
        )
        query.awaitTermination()

    result = captured(spark, stream)
    no_log_reads(result)
    landed = [d for d in result.outputs if (d.namespace, d.name) == local(sink)]
    assert len(landed) == 1
    assert version(landed[0]) == "0"
    assert statistics(landed[0])[0] == 4


def _jobs_so_far(spark: Any) -> int:
    """Jobs the session's scheduler started so far, from every thread (the listener's included)."""
    counter = spark.sparkContext._jsc.sc().dagScheduler().nextJobId()
    return int(counter if isinstance(counter, int) else counter.get())


def test_capture_starts_no_spark_job_over_a_delta_table_of_many_files(spark: Any, tmp_path: Path) -> None:
    many, out = tmp_path / "many_files", tmp_path / "copied"
    spark.range(200).repartition(200).write.format("delta").save(str(many))

    def task() -> None:
        spark.read.format("delta").load(str(many)).where("id % 2 = 0").write.format("delta").mode(
            "overwrite"
        ).save(str(out))

    task()  # Delta's own first-time work (snapshots of both tables) is not counted below
    before = _jobs_so_far(spark)
    task()
    plain = _jobs_so_far(spark) - before
    before = _jobs_so_far(spark)
    result = captured(spark, task)
    with_capture = _jobs_so_far(spark) - before
    assert len(list((many).glob("*.parquet"))) >= 100
    assert names(result.inputs) == {local(many)}
    assert statistics(result.outputs[0])[0] == 100
    assert with_capture == plain
