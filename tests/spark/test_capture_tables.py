"""Session-catalog tables: physical location as the dataset, TABLE symlink, lifecycle, SQL text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from spark_helpers import captured, get, lifecycle, local, names, schema, stats
from tests.support.spark_lines import CREATE_TABLE_KEEPS_SQL_TEXT


@pytest.fixture(scope="module")
def warehouse(spark: Any) -> Path:
    return Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:"))


@pytest.fixture(scope="module")
def db(spark: Any) -> str:
    """A database of its own, dropped at the end of the module."""
    spark.sql("CREATE DATABASE IF NOT EXISTS capture_db")
    yield "capture_db"
    spark.sql("DROP DATABASE IF EXISTS capture_db CASCADE")


def symlinks(dataset: Any) -> list[tuple[str, str, str]]:
    facet = dataset.facets.get("symlinks")
    return [(i.namespace, i.name, i.type) for i in facet.identifiers] if facet else []


@pytest.mark.parametrize("held", [False, True], ids=["as_it_comes", "read_after_the_rename"])
def test_add_columns_then_rename_in_one_task(
    spark: Any, warehouse: Path, db: str, held: bool, monkeypatch: Any
) -> None:
    """The table as the ALTER left it (schema after the added column, lifecycle ALTER), then the
    renamed one: also when the capture reads the ALTER only after the task renamed the table (held:
    the reader waits for the task's end, as it may on a loaded machine or on 4.x's settled reads)."""
    import threading

    from lineage_operators.spark.listen.execution_queue import ExecutionQueue

    done = threading.Event()
    if held:
        read_next = ExecutionQueue._read_next
        monkeypatch.setattr(ExecutionQueue, "_read_next", lambda queue: done.wait(60) and read_next(queue))
    name = f"altered_{int(held)}"
    location, renamed = warehouse / f"{db}.db" / name, warehouse / f"{db}.db" / f"{name}_v2"

    def body() -> None:
        spark.sql(f"CREATE TABLE {db}.{name} (a STRING, b STRING) USING parquet")
        spark.sql(f"INSERT INTO {db}.{name} VALUES ('x', 'y')")
        spark.sql(f"ALTER TABLE {db}.{name} ADD COLUMNS (c INT)")
        spark.sql(f"ALTER TABLE {db}.{name} RENAME TO {db}.{name}_v2")
        done.set()

    result = captured(spark, body)
    after = [("a", "string"), ("b", "string"), ("c", "integer")]
    altered = get(result.outputs, location)
    assert (schema(altered), lifecycle(altered)) == (after, "ALTER")
    moved = get(result.outputs, renamed)
    assert (schema(moved), lifecycle(moved)) == (after, "RENAME")


def test_sql_table_lifecycle(spark: Any, warehouse: Path, db: str) -> None:
    location = warehouse / f"{db}.db" / "orders"
    renamed = warehouse / f"{db}.db" / "orders_v2"
    statements = [
        f"CREATE TABLE {db}.orders (id BIGINT, amount DECIMAL(10,2)) USING parquet",
        f"INSERT INTO {db}.orders VALUES (1, 2.50), (2, 3.00)",
        f"INSERT OVERWRITE {db}.orders VALUES (1, 2.50)",
        f"CREATE TABLE {db}.copy USING parquet AS SELECT * FROM {db}.orders",
        f"TRUNCATE TABLE {db}.copy",
        f"ALTER TABLE {db}.orders RENAME TO {db}.orders_v2",
        f"DROP TABLE {db}.copy",
    ]

    def body() -> None:
        for statement in statements:
            spark.sql(statement)

    result = captured(spark, body)
    copy = warehouse / f"{db}.db" / "copy"
    assert names(result.outputs) == {local(location), local(copy), local(renamed)}
    assert names(result.inputs) == {local(location)}

    orders = get(result.outputs, location)
    # CREATE, then an append (no change), then INSERT OVERWRITE: the last lifecycle set wins
    assert lifecycle(orders) == "OVERWRITE"
    assert stats(orders)[0] == 3  # 2 appended + 1 overwritten, summed over the task's writes
    assert schema(orders) == [("id", "long"), ("amount", "decimal(10,2)")]
    wh = f"file:{warehouse}"
    assert symlinks(orders) == [(wh, f"{db}.orders", "TABLE")]

    assert lifecycle(get(result.outputs, copy)) == "DROP"  # CREATE, TRUNCATE, then DROP
    assert symlinks(get(result.outputs, copy)) == [(wh, f"{db}.copy", "TABLE")]

    moved = get(result.outputs, renamed)
    facet = moved.facets["lifecycleStateChange"]
    assert facet.lifecycleStateChange.value == "RENAME"
    assert (facet.previousIdentifier.namespace, facet.previousIdentifier.name) == local(location)
    assert symlinks(moved) == [(wh, f"{db}.orders_v2", "TABLE")]

    sql = result.job_facets["sql"]
    assert sql.dialect == "spark"
    schema_only_create = statements[0] if not CREATE_TABLE_KEEPS_SQL_TEXT else None
    assert sql.query.split(";\n") == [s for s in statements if s != schema_only_create]


def test_truncate_alone(spark: Any, warehouse: Path, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t_trunc USING parquet AS SELECT 1 AS id")
    result = captured(spark, lambda: spark.sql(f"TRUNCATE TABLE {db}.t_trunc"))
    (dataset,) = result.outputs
    assert (dataset.namespace, dataset.name) == local(warehouse / f"{db}.db" / "t_trunc")
    assert lifecycle(dataset) == "TRUNCATE"
    assert "schema" not in dataset.facets  # openlineage-spark: TRUNCATE has no schema
    assert result.inputs == []


def test_drop_of_table_created_before_the_task(spark: Any, warehouse: Path, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t_drop USING parquet AS SELECT 1 AS id")
    result = captured(spark, lambda: spark.sql(f"DROP TABLE {db}.t_drop"))
    (dataset,) = result.outputs
    assert (dataset.namespace, dataset.name) == local(warehouse / f"{db}.db" / "t_drop")
    assert lifecycle(dataset) == "DROP"


def test_external_table_location(spark: Any, db: str, tmp_path: Path) -> None:
    location = tmp_path / "external"

    def body() -> None:
        spark.sql(f"CREATE TABLE {db}.ext (id BIGINT) USING parquet LOCATION '{location}'")
        spark.sql(f"INSERT INTO {db}.ext SELECT id FROM range(3)")
        spark.table(f"{db}.ext").count()
        spark.sql(f"DROP TABLE {db}.ext")

    result = captured(spark, body)
    dataset = get(result.outputs, location)
    assert lifecycle(dataset) == "DROP"  # its location was remembered from the task's earlier plans
    assert "symlinks" not in dataset.facets  # outside the warehouse: no TABLE symlink (as openlineage-spark)
    assert names(result.inputs) == {local(location)}


def test_dataframe_table_writes(spark: Any, warehouse: Path, db: str, tmp_path: Path) -> None:
    source = tmp_path / "src"
    spark.range(5).write.parquet(str(source))
    target = warehouse / f"{db}.db" / "saved"

    def body() -> None:
        frame = spark.read.parquet(str(source))
        frame.write.mode("overwrite").saveAsTable(f"{db}.saved")
        frame.write.insertInto(f"{db}.saved")
        spark.table(f"{db}.saved").collect()

    result = captured(spark, body)
    saved = get(result.outputs, target)
    assert lifecycle(saved) == "CREATE"  # saveAsTable runs a CTAS, then insertInto appends
    assert stats(saved)[0] == 10
    assert names(result.inputs) == {local(source), local(target)}
    assert get(result.inputs, target).facets["symlinks"].identifiers[0].name == f"{db}.saved"
    assert "sql" not in result.job_facets


def test_sql_text_is_redacted_and_skips_views(spark: Any, db: str, tmp_path: Path) -> None:
    source = tmp_path / "v_src"
    spark.range(3).write.parquet(str(source))
    spark.sql(f"CREATE OR REPLACE VIEW {db}.v AS SELECT id FROM parquet.`{source}`")

    def body() -> None:
        spark.table(f"{db}.v").count()  # the view's own SQL is not the task's SQL
        spark.sql("SELECT 'jdbc:postgresql://u:hunter2@h/db' AS url, id FROM range(1)").collect()

    result = captured(spark, body)
    assert names(result.inputs) == {local(source)}
    query = result.job_facets["sql"].query
    assert "hunter2" not in query
    assert "SELECT" in query
    assert "CREATE" not in query
