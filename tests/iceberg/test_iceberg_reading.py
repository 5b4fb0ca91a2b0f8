"""spark/tables/iceberg.py against real Iceberg tables: the JVM reading alone, without capture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iceberg_helpers import latest, snapshots

from lineage_operators.spark.facts import CatalogFacts
from lineage_operators.spark.jvm.tools import tools_for
from lineage_operators.spark.tables import iceberg


def _snapshot_of(spark: Any, relation: Any) -> str | None:
    t = tools_for(spark.sparkContext._gateway)
    return iceberg.parse_snapshot(t.read(t.function(t.builder(iceberg.snapshot_field(t))).apply(relation)))


def test_snapshot_of_a_write_and_of_a_time_travel_read(spark: Any) -> None:
    spark.sql("CREATE TABLE ice.r.t (id BIGINT) USING iceberg")
    first = spark.sql("INSERT INTO ice.r.t VALUES (1)")
    # after the commit, the written relation's table reports the snapshot the write produced
    assert _snapshot_of(spark, first._jdf.queryExecution().analyzed().table()) == latest(spark, "ice.r.t")
    spark.sql("INSERT INTO ice.r.t VALUES (2)")
    old, new = snapshots(spark, "ice.r.t")
    travel = spark.sql(f"SELECT * FROM ice.r.t VERSION AS OF {old}")
    assert _snapshot_of(spark, travel._jdf.queryExecution().analyzed().collectLeaves().head()) == str(old)
    current = spark.table("ice.r.t")
    assert _snapshot_of(spark, current._jdf.queryExecution().analyzed().collectLeaves().head()) == str(new)
    # not an Iceberg relation: no snapshot
    files = spark.range(1)
    assert _snapshot_of(spark, files._jdf.queryExecution().analyzed()) is None


def test_load_table_of_both_catalogs(spark: Any, iceberg_warehouses: tuple[Path, Path]) -> None:
    hadoop, session = iceberg_warehouses
    spark.sql("CREATE TABLE ice.r.ctas USING iceberg AS SELECT 1 AS id")
    t = tools_for(spark.sparkContext._gateway)
    loaded = iceberg.load_table(spark._jsparkSession, t, "ice", "r", "ctas")
    assert loaded is not None
    assert loaded["location"] == str(hadoop / "r" / "ctas")
    assert (loaded["provider"], loaded["file_format"]) == ("iceberg", "parquet")
    assert loaded["version"] == latest(spark, "ice.r.ctas")
    assert loaded["symlink"] == (f"file:{hadoop}", "r.ctas")
    assert loaded["catalog_facts"] == CatalogFacts("ice", "hadoop", warehouse_uri=str(hadoop))
    assert '"name":"id"' in loaded["schema_text"]

    spark.sql("CREATE DATABASE IF NOT EXISTS rs")
    spark.sql("CREATE TABLE rs.empty (id INT) USING iceberg")
    spark.sql("CREATE TABLE rs.plain (id INT) USING parquet")
    empty = iceberg.load_table(spark._jsparkSession, t, "spark_catalog", "rs", "empty")
    assert empty is not None
    assert empty["version"] is None  # no snapshot before the first write
    assert empty["symlink"] == (f"file:{session}", "rs.empty")
    assert empty["catalog_facts"] == CatalogFacts("spark_catalog", "hadoop", warehouse_uri=str(session))
    # a non-Iceberg table of Iceberg's session catalog, and a catalog that does not exist
    assert iceberg.load_table(spark._jsparkSession, t, "spark_catalog", "rs", "plain") is None
    assert iceberg.load_table(spark._jsparkSession, t, "nope", "rs", "plain") is None
