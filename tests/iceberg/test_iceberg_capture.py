"""Capture of Iceberg tables (every line with an Iceberg runtime): every write and read
openlineage-spark's Iceberg support covers, through a Hadoop catalog (``ice``) and Iceberg's
``SparkSessionCatalog`` (``spark_catalog``).

Each dataset is named from the table's location, has the catalog's ``TABLE`` symlink, ``storage``
``iceberg``/``parquet`` and, as ``datasetVersion``, the snapshot id Iceberg's ``snapshots`` table
reports for the write (or the snapshot read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from iceberg_helpers import (
    added,
    catalog,
    column_sources,
    latest,
    snapshots,
    statistics,
    storage,
    symlinks,
    version,
)
from tests.spark.spark_helpers import PATIENT, captured, get, lifecycle, local, names, run_captured, schema


@pytest.fixture(scope="module")
def hadoop(iceberg_warehouses: tuple[Path, Path]) -> Path:
    return iceberg_warehouses[0]


def run_sql(spark: Any, statement: str) -> Any:
    """The capture of one SQL statement."""
    return captured(spark, lambda: spark.sql(statement))


def _table(
    dataset: Any, warehouse: Path, ident: str, snapshot: str | None, catalog_name: str = "ice"
) -> None:
    """The facets every Iceberg dataset carries."""
    assert symlinks(dataset) == [(f"file:{warehouse}", ident, "TABLE")]
    assert storage(dataset) == ("iceberg", "parquet")
    assert version(dataset) == snapshot
    # both catalogs of the session are Hadoop catalogs: the warehouse as set, no metadata URI
    assert catalog(dataset) == ("iceberg", "hadoop", catalog_name, str(warehouse), None, "spark")


def test_sql_writes_hadoop_catalog(spark: Any, hadoop: Path) -> None:
    create = run_sql(spark, "CREATE TABLE ice.db.orders (id BIGINT, amount DOUBLE) USING iceberg")
    (created,) = create.outputs
    assert (created.namespace, created.name) == local(hadoop / "db" / "orders")
    assert lifecycle(created) == "CREATE"
    _table(created, hadoop, "db.orders", None)  # no snapshot before the first write
    assert statistics(created) is None  # nothing written

    insert = run_sql(spark, "INSERT INTO ice.db.orders VALUES (1, 2.5), (2, 3.0)")
    (inserted,) = insert.outputs
    assert (inserted.namespace, inserted.name) == local(hadoop / "db" / "orders")
    assert lifecycle(inserted) is None
    assert schema(inserted) == [("id", "long"), ("amount", "double")]
    _table(inserted, hadoop, "db.orders", latest(spark, "ice.db.orders"))
    # Spark has no write metrics for V2 writes: the snapshot's summary says what the write added
    assert statistics(inserted) == added(spark, "ice.db.orders")
    assert statistics(inserted)[0] == 2

    overwrite = run_sql(spark, "INSERT OVERWRITE ice.db.orders SELECT id, amount * 2 FROM ice.db.orders")
    (written,) = overwrite.outputs
    assert lifecycle(written) == "OVERWRITE"
    _table(written, hadoop, "db.orders", latest(spark, "ice.db.orders"))
    # the read of the same statement: the table, named the same way
    (read,) = overwrite.inputs
    assert (read.namespace, read.name) == local(hadoop / "db" / "orders")
    assert symlinks(read) == [(f"file:{hadoop}", "db.orders", "TABLE")]
    assert column_sources(written) == {
        "id": {("orders", "id", "IDENTITY")},
        "amount": {("orders", "amount", "TRANSFORMATION")},
    }


def test_ctas_and_rtas(spark: Any, hadoop: Path) -> None:
    spark.sql("CREATE TABLE ice.db.src (id BIGINT, name STRING) USING iceberg")
    spark.sql("INSERT INTO ice.db.src VALUES (1, 'a'), (2, 'b')")
    ctas = run_sql(
        spark, "CREATE TABLE ice.db.copy USING iceberg AS SELECT id, upper(name) AS n FROM ice.db.src"
    )
    (copy,) = ctas.outputs
    assert (copy.namespace, copy.name) == local(hadoop / "db" / "copy")
    assert lifecycle(copy) == "CREATE"
    assert schema(copy) == [("id", "long"), ("n", "string")]
    _table(copy, hadoop, "db.copy", latest(spark, "ice.db.copy"))
    assert statistics(copy) == added(spark, "ice.db.copy")
    (src,) = ctas.inputs
    _table(src, hadoop, "db.src", latest(spark, "ice.db.src"))  # the snapshot read
    assert column_sources(copy) == {
        "id": {("src", "id", "IDENTITY")},
        "n": {("src", "name", "TRANSFORMATION")},
    }

    rtas = run_sql(spark, "REPLACE TABLE ice.db.copy USING iceberg AS SELECT id FROM ice.db.src")
    (replaced,) = rtas.outputs
    assert lifecycle(replaced) == "OVERWRITE"
    assert schema(replaced) == [("id", "long")]
    _table(replaced, hadoop, "db.copy", latest(spark, "ice.db.copy"))
    assert statistics(replaced) == added(spark, "ice.db.copy")


def test_dataframe_writes(spark: Any, hadoop: Path) -> None:
    df = spark.createDataFrame([(1, "x", 1), (2, "y", 2)], "id long, v string, p int")
    table = "ice.db.frames"
    steps = [
        # ReplaceTableAsSelect(orCreate): OVERWRITE, as openlineage-spark reports it
        ("createOrReplace", lambda: df.writeTo(table).partitionedBy(df.p).createOrReplace(), "OVERWRITE"),
        ("append", lambda: df.writeTo(table).append(), None),
        ("overwritePartitions", lambda: df.writeTo(table).overwritePartitions(), "OVERWRITE"),
    ]
    for step, body, expected_lifecycle in steps:
        result = captured(spark, body)
        (dataset,) = result.outputs
        assert (dataset.namespace, dataset.name) == local(hadoop / "db" / "frames"), step
        assert lifecycle(dataset) == expected_lifecycle, step
        assert schema(dataset) == [("id", "long"), ("v", "string"), ("p", "integer")], step
        _table(dataset, hadoop, "db.frames", latest(spark, table))
        assert statistics(dataset) == added(spark, table), step


def test_merge_update_delete(spark: Any, hadoop: Path) -> None:
    spark.sql("CREATE TABLE ice.db.target (id BIGINT, v STRING) USING iceberg")
    spark.sql("INSERT INTO ice.db.target VALUES (1, 'a'), (2, 'b')")
    spark.sql("CREATE TABLE ice.db.changes (id BIGINT, v STRING) USING iceberg")
    spark.sql("INSERT INTO ice.db.changes VALUES (2, 'B'), (3, 'C')")
    target = hadoop / "db" / "target"
    merge = captured(
        spark,
        lambda: spark.sql(
            "MERGE INTO ice.db.target t USING ice.db.changes c ON t.id = c.id "
            "WHEN MATCHED THEN UPDATE SET t.v = c.v WHEN NOT MATCHED THEN INSERT *"
        ),
    )
    (merged,) = merge.outputs
    assert (merged.namespace, merged.name) == local(target)
    assert lifecycle(merged) is None  # rows changed in place, as openlineage-spark reports it
    assert schema(merged) == [("id", "long"), ("v", "string")]
    _table(merged, hadoop, "db.target", latest(spark, "ice.db.target"))
    assert statistics(merged) == added(spark, "ice.db.target")
    # the target's rows are read through Spark's row-level operation table, which has no location:
    # it is the table written, reported as an input too (as openlineage-spark does)
    assert names(merge.inputs) == {local(hadoop / "db" / "changes"), local(target)}
    changes = get(merge.inputs, hadoop / "db" / "changes")
    _table(changes, hadoop, "db.changes", latest(spark, "ice.db.changes"))
    # through MergeRows: UPDATE SET t.v = c.v and INSERT * copy the source's columns; the rows the
    # rewrite keeps copy the target's own (read through the operation table, named as the target),
    # as openlineage-spark's Iceberg MERGE test expects (each column from both tables)
    assert column_sources(merged) == {
        "id": {("changes", "id", "IDENTITY"), ("target", "id", "IDENTITY")},
        "v": {("changes", "v", "IDENTITY"), ("target", "v", "IDENTITY")},
    }

    # UPDATE and DELETE read the target through the row-level operation table (no location): its
    # columns are the target's own, as openlineage-spark names them; untouched columns are IDENTITY
    for statement, expected in (
        (
            "UPDATE ice.db.target SET v = upper(v) WHERE id = 1",
            {"id": {("target", "id", "IDENTITY")}, "v": {("target", "v", "TRANSFORMATION")}},
        ),
        (
            "DELETE FROM ice.db.target WHERE id = 3",
            {"id": {("target", "id", "IDENTITY")}, "v": {("target", "v", "IDENTITY")}},
        ),
    ):
        result = captured(spark, lambda statement=statement: spark.sql(statement))
        (dataset,) = result.outputs
        assert (dataset.namespace, dataset.name) == local(target), statement
        assert lifecycle(dataset) is None, statement
        _table(dataset, hadoop, "db.target", latest(spark, "ice.db.target"))
        assert column_sources(dataset) == expected, statement
    assert len(snapshots(spark, "ice.db.target")) == 4  # insert, merge, update, delete


def test_reads_and_time_travel(spark: Any, hadoop: Path) -> None:
    spark.sql("CREATE TABLE ice.db.history (id BIGINT) USING iceberg")
    spark.sql("INSERT INTO ice.db.history VALUES (1)")
    spark.sql("INSERT INTO ice.db.history VALUES (2)")
    first, second = snapshots(spark, "ice.db.history")
    for query, snapshot in (
        ("SELECT * FROM ice.db.history", second),
        (f"SELECT * FROM ice.db.history VERSION AS OF {first}", first),
    ):
        result = captured(spark, lambda query=query: spark.sql(query).collect())
        (read,) = result.inputs
        assert (read.namespace, read.name) == local(hadoop / "db" / "history"), query
        assert schema(read) == [("id", "long")]
        _table(read, hadoop, "db.history", str(snapshot))


def test_session_catalog(spark: Any, iceberg_warehouses: tuple[Path, Path]) -> None:
    session = iceberg_warehouses[1]
    spark.sql("CREATE DATABASE IF NOT EXISTS sc")

    def body() -> None:
        spark.sql("CREATE TABLE sc.events (id BIGINT, kind STRING) USING iceberg")
        spark.sql("INSERT INTO sc.events VALUES (1, 'click')")
        spark.sql("CREATE TABLE sc.kinds USING iceberg AS SELECT DISTINCT kind FROM sc.events")

    result = captured(spark, body)
    events, kinds = session / "sc" / "events", session / "sc" / "kinds"
    assert names(result.outputs) == {local(events), local(kinds)}
    assert names(result.inputs) == {local(events)}
    written = get(result.outputs, events)
    assert lifecycle(written) == "CREATE"  # CREATE, then an append: the last lifecycle set
    _table(written, session, "sc.events", latest(spark, "sc.events"), "spark_catalog")
    _table(get(result.outputs, kinds), session, "sc.kinds", latest(spark, "sc.kinds"), "spark_catalog")
    assert column_sources(get(result.outputs, kinds)) == {"kind": {("events", "kind", "IDENTITY")}}


def test_update_delete_merge_on_read(spark: Any, hadoop: Path) -> None:
    """Merge-on-read UPDATE/DELETE (``WriteDelta``): the UPDATE writes only the updated rows."""
    spark.sql(
        "CREATE TABLE ice.db.deltas (id BIGINT, v STRING, w STRING) USING iceberg TBLPROPERTIES "
        "('format-version'='2', 'write.update.mode'='merge-on-read', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql("INSERT INTO ice.db.deltas VALUES (1, 'a', 'x'), (2, 'b', 'y')")
    update = run_sql(spark, "UPDATE ice.db.deltas SET v = upper(w) WHERE id = 1")
    (updated,) = update.outputs
    assert (updated.namespace, updated.name) == local(hadoop / "db" / "deltas")
    _table(updated, hadoop, "db.deltas", latest(spark, "ice.db.deltas"))
    assert column_sources(updated) == {
        "id": {("deltas", "id", "IDENTITY")},
        "v": {("deltas", "w", "TRANSFORMATION")},
        "w": {("deltas", "w", "IDENTITY")},
    }
    delete = run_sql(spark, "DELETE FROM ice.db.deltas WHERE id = 2")
    (deleted,) = delete.outputs
    _table(deleted, hadoop, "db.deltas", latest(spark, "ice.db.deltas"))
    # only row positions are written: no column has a source, the WHERE is a dataset dependency
    facet = deleted.facets["columnLineage"]
    assert not any(field.inputFields for field in facet.fields.values())
    assert {(d.field, t.subtype) for d in facet.dataset for t in d.transformations} == {("id", "FILTER")}


@pytest.mark.parametrize("catalog_name", ["ice", "spark_catalog"])
def test_alter_in_the_task_that_created_the_table(
    spark: Any, iceberg_warehouses: tuple[Path, Path], catalog_name: str
) -> None:
    """CREATE, insert and ``RENAME COLUMN`` in one task: the table as the last change left it
    (openlineage-spark: ``a, c``), with the lifecycle of that change; in a Hadoop catalog and in
    Iceberg's session catalog (whose v1 metadata keeps the schema the table was created with)."""
    table_name = f"{catalog_name}.db.renamed_cols"
    warehouse = iceberg_warehouses[0 if catalog_name == "ice" else 1]
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {catalog_name}.db")

    def task() -> None:
        spark.sql(f"CREATE TABLE {table_name} (a STRING, b STRING) USING iceberg")
        spark.sql(f"INSERT INTO {table_name} VALUES ('x', 'y')")
        spark.sql(f"ALTER TABLE {table_name} RENAME COLUMN b TO c")

    try:
        _, result = run_captured(spark, task, timeout=PATIENT)
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table_name}")
    table = get(result.outputs, warehouse / "db" / "renamed_cols")
    assert (schema(table), lifecycle(table)) == ([("a", "string"), ("c", "string")], "ALTER")
