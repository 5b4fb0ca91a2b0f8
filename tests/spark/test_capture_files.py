"""File reads and writes seen by SparkLineageCapture, named as openlineage-spark names them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from spark_helpers import captured, get, lifecycle, local, names, schema, stats

pytestmark = pytest.mark.filterwarnings("ignore")

try:
    import pandas  # noqa: F401

    HAVE_PANDAS = True
except ImportError:  # toPandas needs pandas; the other actions are still checked
    HAVE_PANDAS = False


@pytest.fixture(scope="module")
def source(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small parquet dataset written before any capture starts."""
    path = tmp_path_factory.mktemp("files") / "source"
    spark.range(6).selectExpr("id", "cast(id as string) as name", "id % 2 = 0 as even").write.parquet(
        str(path)
    )
    return path


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json", "orc", "text"])
def test_format_round_trip(spark: Any, source: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"out_{fmt}"
    frame = spark.read.parquet(str(source))
    frame = frame.selectExpr("name as value") if fmt == "text" else frame

    def body() -> None:
        getattr(frame.write.mode("overwrite"), fmt)(str(out))
        getattr(spark.read, fmt)(str(out)).collect()

    result = captured(spark, body)
    assert names(result.inputs) == {local(source), local(out)}
    assert names(result.outputs) == {local(out)}
    written = get(result.outputs, out)
    assert lifecycle(written) == "OVERWRITE"
    rows, size, files = stats(written)
    assert rows == 6
    assert size
    assert size > 0
    assert files
    assert files >= 1
    assert written.facets["dataSource"].name == "file"
    assert written.facets["dataSource"].uri == "file"
    storage = written.facets["storage"]
    assert (storage.storageLayer, storage.fileFormat) == ("file", fmt)
    expected = (
        [("value", "string")] if fmt == "text" else [("id", "long"), ("name", "string"), ("even", "boolean")]
    )
    assert schema(written) == expected
    assert result.executions >= 2
    assert result.complete


def test_format_load_save_and_append_stats(spark: Any, source: Path, tmp_path: Path) -> None:
    out = tmp_path / "saved"

    def body() -> None:
        frame = spark.read.format("parquet").load(str(source))
        frame.write.format("json").mode("append").save(str(out))
        frame.write.format("json").mode("append").save(str(out))

    result = captured(spark, body)
    written = get(result.outputs, out)
    assert lifecycle(written) is None  # Append: no lifecycle change (as openlineage-spark)
    rows, _, _ = stats(written)
    assert rows == 12  # summed over the task's two writes
    assert names(result.inputs) == {local(source)}


def test_read_only_actions(spark: Any, source: Path) -> None:
    frame = spark.read.parquet(str(source))

    def body() -> None:
        frame.count()
        frame.collect()
        frame.show()
        if HAVE_PANDAS:
            frame.toPandas()

    result = captured(spark, body)
    assert names(result.inputs) == {local(source)}
    assert result.outputs == []
    read = get(result.inputs, source).input_facets["inputStatistics"]
    # what the dataset is, however often the task scanned it (openlineage-spark: no row count for files)
    files = [p for p in source.iterdir() if p.name.startswith("part-")]
    assert read.fileCount == len(files)
    assert read.size == sum(p.stat().st_size for p in files)
    assert read.rowCount is None
    assert result.executions >= 3 + HAVE_PANDAS
    assert "sql" not in result.job_facets


def test_partitioned_write_and_partition_read(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "events"

    def body() -> None:
        spark.range(4).selectExpr("id", "concat('2024-01-0', id % 2 + 1) as dt").write.partitionBy(
            "dt"
        ).parquet(str(out))
        spark.read.parquet(str(out / "dt=2024-01-01")).count()
        spark.read.parquet(str(out)).where("dt = '2024-01-02'").count()

    result = captured(spark, body)
    assert names(result.outputs) == {local(out)}  # one dataset at the root
    assert names(result.inputs) == {local(out)}  # a partition directory names its root
    assert lifecycle(get(result.outputs, out)) is None  # ErrorIfExists: only Overwrite is a lifecycle change
    assert schema(get(result.outputs, out)) == [("id", "long"), ("dt", "string")]


def test_many_files_and_globs_collapse(spark: Any, tmp_path: Path) -> None:
    root = tmp_path / "many"
    spark.range(40).repartition(8).write.csv(str(root))
    files = sorted(str(p) for p in root.glob("part-*.csv"))
    assert len(files) >= 4

    def body() -> None:
        spark.read.csv(str(root / "*.csv")).count()  # glob: expands to files
        spark.read.csv(files[:3]).count()  # explicit files
        spark.read.csv(files[0]).count()  # one file: its directory

    result = captured(spark, body)
    assert names(result.inputs) == {local(root)}


def test_nested_schema(spark: Any, tmp_path: Path) -> None:
    out = tmp_path / "nested"
    frame = spark.sql(
        "SELECT named_struct('a', 1, 'b', named_struct('c', 'x')) AS s, array(1, 2) AS arr, "
        "array(named_struct('k', 1L)) AS arr_s, map('k', 1.5D) AS m, CAST(1.5 AS DECIMAL(10,2)) AS d, "
        "current_timestamp() AS ts, current_date() AS day"
    )
    result = captured(spark, lambda: frame.write.parquet(str(out)))
    fields = {f.name: f for f in get(result.outputs, out).facets["schema"].fields}
    assert [(f.name, f.type) for f in fields["s"].fields] == [("a", "integer"), ("b", "struct")]
    assert [(f.name, f.type) for f in fields["s"].fields[1].fields] == [("c", "string")]
    assert [(f.name, f.type) for f in fields["arr"].fields] == [("_element", "integer")]
    element = fields["arr_s"].fields[0]
    assert (element.name, element.type, [(f.name, f.type) for f in element.fields]) == (
        "_element",
        "struct",
        [("k", "long")],
    )
    assert [(f.name, f.type) for f in fields["m"].fields] == [("key", "string"), ("value", "double")]
    assert (fields["d"].type, fields["ts"].type, fields["day"].type) == ("decimal(10,2)", "timestamp", "date")
    assert fields["d"].fields is None


def test_cached_dataframe_reads_its_source(spark: Any, source: Path) -> None:
    cached = spark.read.parquet(str(source)).cache()
    cached.count()  # materialized before the task
    try:
        result = captured(spark, lambda: cached.where("id > 1").collect())
    finally:
        cached.unpersist()
    assert names(result.inputs) == {local(source)}


def test_v2_file_source_read(spark: Any, source: Path) -> None:
    previous = spark.conf.get("spark.sql.sources.useV1SourceList")
    spark.conf.set("spark.sql.sources.useV1SourceList", "")
    try:
        result = captured(spark, lambda: spark.read.parquet(str(source)).count())
    finally:
        spark.conf.set("spark.sql.sources.useV1SourceList", previous)
    assert names(result.inputs) == {local(source)}
    assert schema(get(result.inputs, source))[0] == ("id", "long")


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT OVERWRITE DIRECTORY '{out}' USING parquet SELECT * FROM json.`{file}`",
        "CACHE TABLE single_json AS SELECT * FROM json.`{file}`",
    ],
    ids=["insert_overwrite_directory", "cache_table"],
)
def test_single_json_file_through_sql_is_named_after_the_file(
    spark: Any, tmp_path: Path, statement: str
) -> None:
    """SQL's ``json.`file``` infers the schema with a job of RDDs only, which names the file's folder:
    the file is the input, as the DataFrame reader of it with a schema reports it (and the peer)."""
    folder = tmp_path / "data"
    folder.mkdir()
    data = folder / "testdata.json"
    data.write_text('{"a": 1, "b": "x"}\n', encoding="utf-8")
    (folder / "other.json").write_text('{"a": 2, "b": "y"}\n', encoding="utf-8")
    try:
        result = captured(spark, lambda: spark.sql(statement.format(out=tmp_path / "out", file=data)))
    finally:
        spark.sql("UNCACHE TABLE IF EXISTS single_json")
    assert names(result.inputs) == {local(data)}
    assert schema(get(result.inputs, data)) == [("a", "long"), ("b", "string")]
