"""The one-call read of an execution (``jvm/java/ExecutionReader.java``) and the step-by-step read
produce the same intermediate (``plan.execution.ExecutionRead``), and so the same facts, execution by
execution, over writes (one of an observed DataFrame), reads, CTAS, inserts into tables, DDL, a failed
query and a DataFrame over an RDD; and a count or a write costs the one round trip that takes it from
the capture's queue."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import run_captured

from lineage_operators.spark.jvm.text import split_records
from lineage_operators.spark.jvm.tools import tools_for
from lineage_operators.spark.plan import reader as plan_module
from lineage_operators.spark.plan.batch import batch_reader


def _comparable(facts: Any) -> Any:
    if facts is None:
        return None
    lineage = facts.column_lineage
    return (
        facts.func_name,
        facts.succeeded,
        facts.qe_id,
        facts.query_id,
        facts.root,
        facts.sql,
        [vars(r) for r in facts.inputs],
        [vars(r) for r in facts.outputs],
        None if lineage is None else repr(lineage),
    )


def _comparable_read(read: Any) -> Any:
    """The intermediate, without what only the one-call read brings ahead (the written query's facts
    and plan JSON, which column lineage otherwise reads itself: compared through the facts); the
    schema records as a set (the step-by-step read also lists the leaves without a schema)."""
    schemas = {tuple(r) for r in split_records(read.schema_text) if len(r) >= 2}
    skipped = {"query_facts", "plan_json", "schema_text"}
    return {**{k: v for k, v in vars(read).items() if k not in skipped}, "schemas": schemas}


def _workload(spark: Any, base: Path) -> None:
    from pyspark.sql import functions as F

    source = str(base / "source")
    spark.range(50).selectExpr("id", "id % 5 AS k", "concat('n', id) AS name").write.mode(
        "overwrite"
    ).parquet(source)
    frame = spark.read.parquet(source)
    frame.count()
    frame.count()  # the same table again
    frame.where("k = 1").selectExpr("id", "upper(name) AS name").write.mode("append").parquet(
        str(base / "out")
    )
    frame.observe(
        "parity_observed", F.count(F.lit(1)).alias("rowCount"), F.max("id").alias("id.max")
    ).write.mode("overwrite").parquet(str(base / "observed"))
    spark.read.parquet(source).observe("parity_read", F.count(F.lit(1)).alias("rowCount")).where(
        "k = 2"
    ).write.mode("overwrite").parquet(str(base / "observed_read"))
    spark.read.parquet(source).observe("parity_count", F.count(F.lit(1)).alias("rowCount")).count()
    frame.groupBy("k").count().write.mode("overwrite").saveAsTable("batch_parity_t")
    spark.sql(f"INSERT INTO batch_parity_t SELECT k, count(*) FROM parquet.`{source}` GROUP BY k")
    spark.sql(f"SELECT * FROM batch_parity_t t JOIN parquet.`{source}` s ON t.k = s.k").collect()
    spark.sparkContext.parallelize([(1, "a")]).toDF(["x", "y"]).write.mode("overwrite").parquet(
        str(base / "from_rdd")
    )
    spark.sql("CREATE TABLE batch_parity_c USING parquet AS SELECT * FROM batch_parity_t")
    with pytest.raises(Exception, match="no_such_column"):  # pyspark's class varies by line
        spark.sql("SELECT no_such_column FROM batch_parity_t").collect()
    spark.sql("DROP TABLE batch_parity_c")
    spark.sql("DROP TABLE batch_parity_t")


def test_one_call_read_equals_step_by_step(spark: Any, tmp_path: Path, monkeypatch: Any) -> None:
    pairs: list[tuple[Any, Any]] = []
    reads: list[Any] = []
    original = plan_module.PlanReader.read
    to_facts = plan_module.execution_facts

    def seen(read: Any, *args: Any) -> Any:
        reads.append(read)
        return to_facts(read, *args)

    def both(reader: Any, func_name: str, qe: Any, succeeded: bool, *reply: Any) -> Any:
        reads.clear()
        batched = original(reader, func_name, qe, succeeded, *reply)
        stepped = original(reader, func_name, qe, succeeded, by_steps=True)
        pairs.append((_comparable(batched), _comparable(stepped)))
        read_batched, read_stepped = reads
        assert read_batched.query_facts is not None or not read_batched.analyzed  # read in one call
        assert _comparable_read(read_batched) == _comparable_read(read_stepped)
        return batched

    monkeypatch.setattr(plan_module, "execution_facts", seen)
    monkeypatch.setattr(plan_module.PlanReader, "read", both)
    run_captured(spark, lambda: _workload(spark, tmp_path))
    assert batch_reader(tools_for(spark.sparkContext._gateway)) is not None
    assert len(pairs) >= 10
    for batched, stepped in pairs:
        assert batched == stepped
    observed = [o["observed"] for b, _ in pairs if b is not None for o in b[7] if o["observed"]]
    assert observed == [{"parity_observed": {"rowCount": 50, "id.max": 49}}]
    on_reads = [i["observed"] for b, _ in pairs if b is not None for i in b[6] if i["observed"]]
    assert on_reads == [{"parity_read": {"rowCount": 50}}, {"parity_count": {"rowCount": 50}}]
    written = [p for p in pairs if p[0] is not None and p[0][7]]
    assert len(written) >= 5
    assert any(p[0][8] is not None for p in written)  # column lineage compared


def test_a_count_costs_one_round_trip(spark: Any, tmp_path: Path, monkeypatch: Any) -> None:
    from py4j import clientserver

    spark.range(10).write.mode("overwrite").parquet(str(tmp_path / "t"))
    frame = spark.read.parquet(str(tmp_path / "t"))
    counted = threading.local()
    send = clientserver.ClientServerConnection.send_command

    def counting(connection: Any, *args: Any, **kwargs: Any) -> Any:
        counted.n = getattr(counted, "n", 0) + 1
        return send(connection, *args, **kwargs)

    trips: list[tuple[int, bool]] = []
    original = plan_module.PlanReader.read

    def measured(reader: Any, func_name: str, qe: Any, succeeded: bool, reply: Any = None) -> Any:
        before = getattr(counted, "n", 0)
        facts = original(reader, func_name, qe, succeeded, reply)
        trips.append((getattr(counted, "n", 0) - before, reply is not None))
        return facts

    monkeypatch.setattr(clientserver.ClientServerConnection, "send_command", counting)
    monkeypatch.setattr(plan_module.PlanReader, "read", measured)
    run_captured(spark, frame.count)  # set-up (JVM-side functions) happens on first use
    trips.clear()
    run_captured(spark, frame.count)
    # read JVM-side as it left the capture's queue (the reader's one call: test_execution_queue),
    # with no call of its own
    assert trips == [(0, True)]


@pytest.mark.parametrize("width", [2, 400])
def test_a_write_with_column_lineage_costs_one_round_trip(
    spark: Any, tmp_path: Path, monkeypatch: Any, width: int
) -> None:
    """The written query's compact plan JSON comes with the one-call read: in its reply when short,
    through the capture's file when not (400 columns); no call of its own either way."""
    from py4j import clientserver

    from lineage_operators.spark.plan.columns import compact as plan_json

    extra = [f"id + {i} AS c{i}" for i in range(width - 2)]
    spark.range(10).selectExpr("id", "id * 2 AS twice", *extra).write.mode("overwrite").parquet(
        str(tmp_path / "t")
    )
    frame = spark.read.parquet(str(tmp_path / "t")).selectExpr("*", "twice + 1 AS more")
    counted = threading.local()
    send = clientserver.ClientServerConnection.send_command

    def counting(connection: Any, *args: Any, **kwargs: Any) -> Any:
        counted.n = getattr(counted, "n", 0) + 1
        return send(connection, *args, **kwargs)

    reads: list[tuple[int, Any]] = []
    original = plan_module.PlanReader.read

    def measured(reader: Any, func_name: str, qe: Any, succeeded: bool, reply: Any = None) -> Any:
        before = getattr(counted, "n", 0)
        facts = original(reader, func_name, qe, succeeded, reply)
        # the queue's call brought the reply (test_execution_queue counts it): one round trip
        reads.append((getattr(counted, "n", 0) - before + (reply is not None), facts))
        return facts

    separate: list[str | None] = []
    rendered: list[str | None] = []
    take = plan_json.PlanJsonReader._rendered

    def seen(reader: Any, part: str | None) -> Any:
        rendered.append(part)
        return take(part)

    compact = plan_json.PlanJsonReader._compact_json

    def tracked(reader: Any, *args: Any, **kwargs: Any) -> Any:
        text = compact(reader, *args, **kwargs)
        separate.append(text)
        return text

    monkeypatch.setattr(clientserver.ClientServerConnection, "send_command", counting)
    monkeypatch.setattr(plan_module.PlanReader, "read", measured)
    monkeypatch.setattr(plan_json.PlanJsonReader, "_compact_json", tracked)
    monkeypatch.setattr(plan_json.PlanJsonReader, "_rendered", seen)
    run_captured(spark, lambda: frame.write.mode("overwrite").parquet(str(tmp_path / "w1")))
    reads.clear()
    rendered.clear()
    run_captured(spark, lambda: frame.write.mode("overwrite").parquet(str(tmp_path / "w2")))
    ((trips, facts),) = reads
    assert trips == 1
    assert separate == []
    assert [part[:1] for part in rendered if part] == ["="]
    lineage = facts.column_lineage
    assert lineage is not None
    assert "more" in repr(lineage)
    assert "twice" in repr(lineage)
