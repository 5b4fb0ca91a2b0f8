"""Capture of Delta Lake tables on every line Delta publishes a release for: writes by path and by
table, reads (time travel included), MERGE / UPDATE / DELETE, DROP.

Each Delta dataset is named from the table's location, with ``storage`` ``delta``/``parquet``, the
catalog's ``TABLE`` symlink for catalog tables, and as ``datasetVersion`` the Delta version the write
made (outputs) or the snapshot read (inputs), as ``DESCRIBE HISTORY`` lists them; Delta's reads of its
own transaction log (``_delta_log``) are never an input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.delta.delta_helpers import captured, commit_metrics, dataset_dependencies, history
from tests.iceberg.iceberg_helpers import column_sources as direct_sources
from tests.iceberg.iceberg_helpers import statistics, storage, symlinks, version
from tests.spark.spark_helpers import lifecycle, local, names, schema


def no_log_reads(result: Any) -> None:
    assert [n for _, n in names([*result.inputs, *result.outputs]) if "_delta_log" in n] == []


def column_sources(dataset: Any, field: str) -> set[tuple[str, str]]:
    facet = dataset.facets["columnLineage"]
    return {(f.name, f.field) for f in facet.fields[field].inputFields}


def test_path_writes_reads_and_time_travel(spark: Any, tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    created = captured(spark, lambda: spark.range(5).write.format("delta").save(str(source)))
    (out,) = created.outputs
    assert (out.namespace, out.name) == local(source)
    assert (storage(out), version(out), lifecycle(out)) == (("delta", "parquet"), "0", "CREATE")
    assert schema(out) == [("id", "long")]
    metrics = commit_metrics(spark, f"delta.`{source}`", 0)  # what Delta's commit says it wrote
    assert statistics(out) == (5, metrics["numOutputBytes"], metrics["numFiles"])
    assert metrics["numOutputBytes"] > 0
    no_log_reads(created)

    appended = captured(spark, lambda: spark.range(3).write.format("delta").mode("append").save(str(source)))
    (out,) = appended.outputs
    assert (version(out), lifecycle(out)) == (str(history(spark, f"delta.`{source}`")), None)
    assert statistics(out)[0] == 3

    def copy() -> None:
        frame = spark.read.format("delta").load(str(source)).selectExpr("id * 2 AS doubled")
        frame.write.format("delta").mode("overwrite").save(str(target))

    copied = captured(spark, copy)
    no_log_reads(copied)
    (read,) = copied.inputs
    (written,) = copied.outputs
    assert ((read.namespace, read.name), version(read), storage(read)) == (
        local(source),
        "1",
        ("delta", "parquet"),
    )
    assert (written.namespace, written.name) == local(target)
    assert version(written) == str(history(spark, f"delta.`{target}`"))
    assert column_sources(written, "doubled") == {(local(source)[1], "id")}

    def time_travel() -> None:
        old = spark.read.format("delta").option("versionAsOf", 0).load(str(source))
        old.write.format("delta").mode("overwrite").option("overwriteSchema", "true").save(str(target))

    travelled = captured(spark, time_travel)
    (read,) = travelled.inputs
    assert ((read.namespace, read.name), version(read)) == (local(source), "0")

    (first,) = (
        spark.sql(f"DESCRIBE HISTORY delta.`{source}`").where("version = 1").select("timestamp").collect()
    )

    def timestamp_travel() -> None:
        old = spark.read.format("delta").option("timestampAsOf", str(first.timestamp)).load(str(source))
        old.write.format("delta").mode("overwrite").option("overwriteSchema", "true").save(str(target))

    (read,) = captured(spark, timestamp_travel).inputs
    assert ((read.namespace, read.name), version(read)) == (local(source), "1")  # the version of that time


@pytest.fixture(scope="module")
def tables(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``delta_db`` with ``orders`` (CTAS over a path table), dropped at the end of the module."""
    source = tmp_path_factory.mktemp("delta-source") / "orders_source"
    spark.range(6).selectExpr("id", "id * 10 AS amount").write.format("delta").save(str(source))
    spark.sql("CREATE DATABASE IF NOT EXISTS delta_db")
    yield source
    spark.sql("DROP DATABASE IF EXISTS delta_db CASCADE")


def test_sql_and_table_writes(spark: Any, tables: Path, warehouse: Path) -> None:
    location = warehouse / "delta_db.db"
    ctas = captured(
        spark,
        lambda: spark.sql(f"CREATE TABLE delta_db.orders USING delta AS SELECT * FROM delta.`{tables}`"),
    )
    no_log_reads(ctas)
    (read,) = ctas.inputs
    (orders,) = ctas.outputs
    assert (read.namespace, read.name) == local(tables)
    assert (orders.namespace, orders.name) == local(location / "orders")
    assert symlinks(orders) == [(f"file:{warehouse}", "delta_db.orders", "TABLE")]
    assert (storage(orders), version(orders), lifecycle(orders)) == (("delta", "parquet"), "0", "CREATE")
    assert schema(orders) == [("id", "long"), ("amount", "long")]  # the catalog keeps none: Delta's log does
    catalog = orders.facets["catalog"]  # openlineage-spark's DeltaHandler's facet
    assert (catalog.framework, catalog.type, catalog.name, catalog.source) == (
        "delta",
        "delta",
        "spark_catalog",
        "spark",
    )
    assert "catalog" not in read.facets  # a table by path
    assert column_sources(orders, "amount") == {(local(tables)[1], "amount")}
    metrics = commit_metrics(spark, "delta_db.orders", 0)
    assert statistics(orders) == (6, metrics["numOutputBytes"], metrics["numFiles"])  # counted once

    insert = captured(
        spark, lambda: spark.sql("INSERT INTO delta_db.orders SELECT id + 10, amount FROM delta_db.orders")
    )
    no_log_reads(insert)
    (read,) = insert.inputs
    (written,) = insert.outputs
    assert (version(read), version(written), lifecycle(written)) == ("0", "1", None)
    assert column_sources(written, "amount") == {(local(location / "orders")[1], "amount")}
    metrics = commit_metrics(spark, "delta_db.orders", 1)
    assert statistics(written) == (6, metrics["numOutputBytes"], metrics["numFiles"])

    saved = captured(spark, lambda: spark.range(2).write.format("delta").saveAsTable("delta_db.updates"))
    no_log_reads(saved)
    (updates,) = saved.outputs
    assert (updates.namespace, updates.name) == local(location / "updates")
    assert (schema(updates), version(updates), lifecycle(updates)) == ([("id", "long")], "0", "CREATE")
    assert statistics(updates)[0] == 2


def test_merge_update_delete_report_their_target(spark: Any, tables: Path, warehouse: Path) -> None:
    spark.sql(f"CREATE TABLE delta_db.balances USING delta AS SELECT * FROM delta.`{tables}`")
    spark.range(3, 9).selectExpr("id", "id * 7 AS amount").write.format("delta").saveAsTable(
        "delta_db.changes"
    )
    target = local(warehouse / "delta_db.db" / "balances")
    statements = {
        "MERGE": "MERGE INTO delta_db.balances b USING delta_db.changes c ON b.id = c.id "
        "WHEN MATCHED AND c.amount > 40 THEN UPDATE SET amount = c.amount + 1 "
        "WHEN NOT MATCHED THEN INSERT (id, amount) VALUES (c.id, c.amount)",
        "UPDATE": "UPDATE delta_db.balances SET amount = amount + id WHERE id > 2",
        "DELETE": "DELETE FROM delta_db.balances WHERE amount = 10",
    }
    written = {}
    for kind, statement in statements.items():
        result = captured(spark, lambda statement=statement: spark.sql(statement))
        no_log_reads(result)
        (written[kind],) = result.outputs
        out = written[kind]
        assert (out.namespace, out.name) == target, kind
        assert lifecycle(out) is None, kind  # rows changed in place, as openlineage-spark reports it
        assert version(out) == str(history(spark, "delta_db.balances")), kind
        assert symlinks(out) == [(f"file:{warehouse}", "delta_db.balances", "TABLE")], kind
        assert target in names(result.inputs), kind
        if kind == "MERGE":
            assert local(warehouse / "delta_db.db" / "changes") in names(result.inputs)

    # outputStatistics: the rows, bytes and files each commit added, as Delta's history lists them
    merged, updated, deleted = (commit_metrics(spark, "delta_db.balances", v) for v in (1, 2, 3))
    assert statistics(written["MERGE"]) == (
        merged["numOutputRows"],
        merged["numTargetBytesAdded"],
        merged["numTargetFilesAdded"],
    )
    assert merged["numOutputRows"] > 0
    assert statistics(written["UPDATE"]) == (
        updated["numUpdatedRows"] + updated["numCopiedRows"],
        updated["numAddedBytes"],
        updated["numAddedFiles"],
    )
    assert statistics(written["DELETE"]) == (
        deleted["numCopiedRows"],
        deleted["numAddedBytes"],
        deleted["numAddedFiles"],
    )

    # columnLineage: each column from every clause's value, the conditions choosing the rows
    assert direct_sources(written["MERGE"]) == {
        "id": {("balances", "id", "IDENTITY"), ("changes", "id", "IDENTITY")},
        "amount": {
            ("balances", "amount", "IDENTITY"),
            ("changes", "amount", "TRANSFORMATION"),
            ("changes", "amount", "IDENTITY"),
        },
    }
    assert {("balances", "id", "JOIN"), ("changes", "id", "JOIN"), ("changes", "amount", "CONDITIONAL")} <= (
        dataset_dependencies(written["MERGE"])
    )
    assert direct_sources(written["UPDATE"]) == {
        "id": {("balances", "id", "IDENTITY")},
        "amount": {("balances", "amount", "TRANSFORMATION"), ("balances", "id", "TRANSFORMATION")},
    }
    update_fields = written["UPDATE"].facets["columnLineage"].fields["amount"].inputFields
    assert ("id", "CONDITIONAL") in {(i.field, t.subtype) for i in update_fields for t in i.transformations}
    assert direct_sources(written["DELETE"]) == {
        "id": {("balances", "id", "IDENTITY")},
        "amount": {("balances", "amount", "IDENTITY")},
    }
    assert dataset_dependencies(written["DELETE"]) == {("balances", "amount", "FILTER")}


def test_drop_reports_the_table_location_and_delta_has_no_truncate(
    spark: Any, tables: Path, warehouse: Path
) -> None:
    spark.sql("CREATE TABLE delta_db.scratch (id BIGINT) USING delta")
    # Delta Lake has no TRUNCATE (its table does not support truncates; DELETE without WHERE empties it):
    # no TRUNCATE lifecycle can be reported for a Delta table. This fails once a Delta release adds it.
    with pytest.raises(Exception, match="does not support truncates"):
        spark.sql("TRUNCATE TABLE delta_db.scratch")
    dropped = captured(spark, lambda: spark.sql("DROP TABLE delta_db.scratch"))
    (out,) = dropped.outputs
    assert ((out.namespace, out.name), lifecycle(out)) == (
        local(warehouse / "delta_db.db" / "scratch"),
        "DROP",
    )
