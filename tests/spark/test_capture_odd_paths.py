"""Odd characters in paths: the dataset name is the directory on disk, decoded exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.spark.spark_helpers import captured, names

ODD = ["pct%41/100%", "p%2541", "p%20x", "sp ace", "h#ash", "\u00fcn\u00ef"]


@pytest.mark.parametrize("leaf", ODD)
def test_file_write_and_read_are_named_as_the_directory_on_disk(spark, tmp_path: Path, leaf: str):
    target = tmp_path / "odd" / leaf

    def body() -> None:
        spark.range(2).write.mode("overwrite").parquet(str(target))
        spark.read.parquet(str(target)).count()

    result = captured(spark, body)
    assert target.is_dir()  # Spark wrote to the literal path
    assert names(result.outputs) == {("file", str(target))}
    assert names(result.inputs) == {("file", str(target))}


def test_catalog_table_location_uri_is_decoded_once(spark, tmp_path: Path):
    location = tmp_path / "tables" / "a b%41"
    table = "odd_location_table"

    def body() -> None:
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        spark.sql(f"CREATE TABLE {table} (id BIGINT) USING parquet LOCATION '{location}'")
        spark.range(3).write.mode("append").insertInto(table)

    try:
        result = captured(spark, body)
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}")
    assert ("file", str(location)) in names(result.outputs)
