"""Parity: one list of scenarios through a classic local session and through a real Spark Connect
server (``tests/support/connect_server.py``); the datasets, schema and lifecycle facets must be
identical.

Each side works under its own directory and has its own warehouse (two JVMs, two catalogs), so
both are replaced by placeholders before comparing (``<root>``, ``<warehouse>``); everything else
(namespace, name, symlinks, schema fields and types, lifecycle and previous identifier) is
compared as is.

Facets that differ, and why (asserted by ``test_facet_differences_are_the_documented_ones``):

* ``outputStatistics``: a classic session reads the write command's metrics; a Spark Connect
  server (4.x) sends no ``Metrics`` message for write commands (only for queries), so Connect
  outputs have none. The capture uses the message when a server sends one (unit-tested).
* ``inputStatistics``: classic reads file-scan metrics per relation; Connect query metrics name
  plan nodes, not datasets, so they are not attributed.
* ``storage``: a table read in a classic session carries the relation's file format (from its
  ``HadoopFsRelation``); over Connect the format comes from the catalog's provider, which is the
  same for the session catalog's data source tables -- identical here.
* ``columnLineage``: none differ. A classic session walks the analyzed plan in the driver's JVM;
  over Connect the client's plan is translated for the same rules: DataFrame writes from their
  ``Relation`` protobufs, SQL statements with a simple ``SELECT`` (CTAS, INSERT ... SELECT) from
  their text (a Connect server gives a client no analyzed plan of SQL), other SQL from
  openlineage-sql (unit-tested; listed in the README). Every pattern of the classic column-lineage
  tests: ``test_connect_column_lineage.py``.
* job facet ``sql``: classic takes the text from the parser's origin of each execution's plan
  (and has none for ``CREATE TABLE`` without a query); Connect has the text of every statement
  sent. Not a dataset facet; not compared.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import PATIENT, run_captured

from lineage_operators.model import LineageDataset

pytestmark = pytest.mark.filterwarnings("ignore")

DB = "parity"


@dataclass(frozen=True)
class Scenario:
    name: str
    body: Callable[[Any, Path], None]
    setup: Callable[[Any, Path], None] | None = None
    fails: bool = False


def _sources(spark: Any, root: Path) -> None:
    """Inputs shared by the scenarios, written before any capture."""
    frame = spark.range(8).selectExpr("id", "cast(id as string) AS name", "id % 3 AS part")
    frame.write.mode("overwrite").parquet(str(root / "src_parquet"))
    frame.write.mode("overwrite").option("header", "true").csv(str(root / "src_csv"))
    frame.write.mode("overwrite").json(str(root / "src_json"))
    spark.range(3).selectExpr("id AS part", "concat('p', id) AS label").write.mode("overwrite").parquet(
        str(root / "src_dim")
    )


def _parquet(spark: Any, root: Path) -> None:
    spark.read.parquet(str(root / "src_parquet")).where("id > 2").write.mode("overwrite").parquet(
        str(root / "out_parquet")
    )


def _csv(spark: Any, root: Path) -> None:
    frame = spark.read.option("header", "true").option("inferSchema", "true").csv(str(root / "src_csv"))
    frame.write.mode("overwrite").option("header", "true").csv(str(root / "out_csv"))


def _json_glob(spark: Any, root: Path) -> None:
    spark.read.json(str(root / "src_json" / "*.json")).write.mode("append").json(str(root / "out_json"))


def _single_file(spark: Any, root: Path) -> None:
    """One file, named after itself (openlineage-spark's single-file rule): the same name on both sides."""
    single = root / "single" / "orders.csv"
    if not single.exists():
        single.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sorted((root / "src_csv").glob("*.csv"))[0], single)
    spark.read.option("header", "true").csv(str(single)).count()


def _partitioned(spark: Any, root: Path) -> None:
    out = str(root / "out_partitioned")
    spark.read.parquet(str(root / "src_parquet")).write.mode("overwrite").partitionBy("part").parquet(out)
    spark.read.parquet(out).where("part = 1").collect()


def _save_as_table(spark: Any, root: Path) -> None:
    spark.read.parquet(str(root / "src_parquet")).write.mode("overwrite").saveAsTable(f"{DB}.saved")
    spark.table(f"{DB}.saved").count()


def _ctas(spark: Any, root: Path) -> None:
    spark.sql(
        f"CREATE TABLE {DB}.ctas USING parquet AS SELECT id, name FROM parquet.`{root / 'src_parquet'}`"
    )


def _insert_setup(spark: Any, root: Path) -> None:
    spark.sql(f"DROP TABLE IF EXISTS {DB}.target")
    spark.sql(f"CREATE TABLE {DB}.target (id BIGINT, name STRING) USING parquet")


def _insert(spark: Any, root: Path) -> None:
    spark.read.parquet(str(root / "src_parquet")).createOrReplaceTempView("src_view")
    spark.sql(f"INSERT INTO {DB}.target SELECT id, name FROM src_view")
    spark.sql(f"INSERT OVERWRITE {DB}.target SELECT id, name FROM src_view WHERE id < 4")


def _drop_setup(spark: Any, root: Path) -> None:
    spark.sql(f"CREATE TABLE {DB}.dropped USING parquet AS SELECT 1 AS id")


def _drop(spark: Any, root: Path) -> None:
    spark.sql(f"DROP TABLE {DB}.dropped")


def _create_then_drop(spark: Any, root: Path) -> None:
    spark.sql(f"CREATE TABLE {DB}.short_lived USING parquet AS SELECT 1 AS id")
    spark.sql(f"DROP TABLE {DB}.short_lived")


def _count(spark: Any, root: Path) -> None:
    spark.read.parquet(str(root / "src_parquet")).count()


def _join_aggregate(spark: Any, root: Path) -> None:
    facts = spark.read.parquet(str(root / "src_parquet"))
    dim = spark.read.parquet(str(root / "src_dim"))
    summary = (
        facts.join(dim, "part").groupBy("label").agg({"id": "sum"}).withColumnRenamed("sum(id)", "total")
    )
    summary.write.mode("overwrite").parquet(str(root / "out_summary"))


def _failing(spark: Any, root: Path) -> None:
    spark.read.parquet(str(root / "src_parquet")).write.mode("overwrite").parquet(str(root / "out_ok"))
    # cast: raise_error's type is VOID, which Spark 3.5 and 4.0's Parquet writer rejects before any job
    spark.read.parquet(str(root / "src_parquet")).selectExpr(
        "CAST(raise_error('boom') AS STRING) AS x"
    ).write.mode("overwrite").parquet(str(root / "out_failed"))


def _stream_setup(spark: Any, root: Path) -> None:
    """Two files (a micro-batch of several files is named by their directory on both sides)."""
    folder = root / "stream_in"
    folder.mkdir(exist_ok=True)
    for n in (1, 2):
        (folder / f"part{n}.csv").write_text(f"{n},name{n}\n", encoding="utf-8")
    shutil.rmtree(root / "stream_checkpoints", ignore_errors=True)
    spark.sql(f"DROP TABLE IF EXISTS {DB}.streamed")


def _stream(spark: Any, root: Path) -> None:
    """A stream into a Parquet path and into a table: classic reads the micro-batches, Connect the
    stream's start (its source and file sink)."""
    source = spark.readStream.format("csv").schema("id INT, name STRING").load(str(root / "stream_in"))
    for name, start in (
        ("path", lambda writer: writer.format("parquet").start(str(root / "out_stream"))),
        ("table", lambda writer: writer.toTable(f"{DB}.streamed")),
    ):
        writer = source.where("id > 0").selectExpr("id", "upper(name) AS name").writeStream
        query = start(
            writer.trigger(availableNow=True).option(
                "checkpointLocation", str(root / "stream_checkpoints" / name)
            )
        )
        query.awaitTermination()


SCENARIOS = [
    Scenario("parquet", _parquet),
    Scenario("csv", _csv),
    Scenario("json_glob_append", _json_glob),
    Scenario("single_file_read", _single_file),
    Scenario("partitioned_write", _partitioned),
    Scenario("save_as_table", _save_as_table),
    Scenario("ctas", _ctas),
    Scenario("insert_into_and_overwrite", _insert, setup=_insert_setup),
    Scenario("drop", _drop, setup=_drop_setup),
    Scenario("create_then_drop", _create_then_drop),
    Scenario("read_only_count", _count),
    Scenario("join_aggregate_written", _join_aggregate),
    Scenario("failing_task", _failing, fails=True),
    Scenario("stream_file_sinks", _stream, setup=_stream_setup),
]


@pytest.fixture(scope="module")
def sides(spark: Any, connect_spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """(session, root, warehouse) per side, with the shared inputs and database in place."""
    result = {}
    for label, session in (("classic", spark), ("connect", connect_spark)):
        root = tmp_path_factory.mktemp(f"parity_{label}")
        _sources(session, root)
        session.sql(f"DROP DATABASE IF EXISTS {DB} CASCADE")
        session.sql(f"CREATE DATABASE {DB}")
        warehouse = str(session.conf.get("spark.sql.warehouse.dir")).removeprefix("file:")
        result[label] = (session, root, warehouse)
    yield result
    for session, _, _ in result.values():
        session.sql(f"DROP DATABASE IF EXISTS {DB} CASCADE")


def _run(label: str, sides: dict[str, Any], scenario: Scenario) -> Any:
    session, root, _ = sides[label]
    for leftover in root.glob("out_*"):
        shutil.rmtree(leftover, ignore_errors=True)
    if scenario.setup is not None:
        scenario.setup(session, root)

    def body() -> None:
        if scenario.fails:
            with pytest.raises(Exception, match="boom"):
                scenario.body(session, root)
        else:
            scenario.body(session, root)

    # the classic or the Connect capture, as the session fits
    return run_captured(session, body, timeout=PATIENT)[1]


def _placeholders(text: str, root: Path, warehouse: str) -> str:
    return text.replace(warehouse.rstrip("/"), "<warehouse>").replace(str(root), "<root>")


def _compared(dataset: LineageDataset, root: Path, warehouse: str) -> dict[str, Any]:
    def norm(value: str) -> str:
        return _placeholders(value, root, warehouse)

    facets = dataset.facets
    schema = facets.get("schema")
    lifecycle = facets.get("lifecycleStateChange")
    symlinks = facets.get("symlinks")
    previous = getattr(lifecycle, "previousIdentifier", None) if lifecycle else None
    return {
        "schema": [(f.name, f.type) for f in schema.fields] if schema else None,
        "lifecycle": lifecycle.lifecycleStateChange.value if lifecycle else None,
        "previous": (previous.namespace, norm(previous.name)) if previous else None,
        "symlinks": sorted((norm(i.namespace), i.name, i.type) for i in symlinks.identifiers)
        if symlinks
        else None,
        "dataSource": facets["dataSource"].name,
    }


def _view(result: Any, side: tuple[Any, Path, str]) -> dict[str, dict[tuple[str, str], Any]]:
    _, root, warehouse = side
    return {
        direction: {
            (d.namespace, _placeholders(d.name, root, warehouse)): _compared(d, root, warehouse)
            for d in getattr(result, direction)
        }
        for direction in ("inputs", "outputs")
    }


def _facet_keys(result: Any, side: tuple[Any, Path, str]) -> dict[tuple[str, str, str], set[str]]:
    _, root, warehouse = side
    return {
        (direction, d.namespace, _placeholders(d.name, root, warehouse)): {
            *d.facets,
            *d.input_facets,
            *d.output_facets,
        }
        for direction in ("inputs", "outputs")
        for d in getattr(result, direction)
    }


_RESULTS: dict[str, tuple[Any, Any]] = {}


def _both(sides: dict[str, Any], scenario: Scenario) -> tuple[Any, Any]:
    if scenario.name not in _RESULTS:
        _RESULTS[scenario.name] = (_run("classic", sides, scenario), _run("connect", sides, scenario))
    return _RESULTS[scenario.name]


@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name) for s in SCENARIOS])
def test_same_datasets_schema_and_lifecycle(sides: dict[str, Any], scenario: Scenario) -> None:
    classic, connect = _both(sides, scenario)
    expected, actual = _view(classic, sides["classic"]), _view(connect, sides["connect"])
    assert expected["inputs"] or expected["outputs"], "the scenario must touch a dataset"
    assert actual == expected
    assert (
        connect.run_facets["spark_processingEngine"].version
        == classic.run_facets["spark_processingEngine"].version
    )


def test_facet_differences_are_the_documented_ones(sides: dict[str, Any]) -> None:
    """Only the facets listed in the module docstring may differ."""
    for scenario in SCENARIOS:
        allowed = {"outputStatistics", "inputStatistics"}
        classic, connect = _both(sides, scenario)
        left, right = _facet_keys(classic, sides["classic"]), _facet_keys(connect, sides["connect"])
        assert left.keys() == right.keys(), scenario.name
        for key in left:
            assert left[key] ^ right[key] <= allowed, (scenario.name, key, left[key] ^ right[key])


def _column_lineage(result: Any, side: tuple[Any, Path, str]) -> dict[str, Any]:
    """output name -> {field: {(namespace, name, field): {(type, subtype)}}, dataset: ...}."""
    _, root, warehouse = side

    def inputs(fields: Any) -> dict[tuple[str, str, str], set[tuple[str, str | None]]]:
        return {
            (i.namespace, _placeholders(i.name, root, warehouse), i.field): {
                (t.type, t.subtype) for t in i.transformations or []
            }
            for i in fields or []
        }

    found = {}
    for dataset in result.outputs:
        facet = dataset.facets.get("columnLineage")
        if facet is not None:
            found[_placeholders(dataset.name, root, warehouse)] = {
                "fields": {column: inputs(f.inputFields) for column, f in facet.fields.items()},
                "dataset": inputs(facet.dataset),
            }
    return found


#: Scenarios whose outputs are written by SQL text (CTAS, INSERT ... SELECT).
SQL_COLUMN_LINEAGE = ("ctas", "insert_into_and_overwrite")


@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name) for s in SCENARIOS])
def test_column_lineage_is_the_classic_facet(sides: dict[str, Any], scenario: Scenario) -> None:
    """DataFrame and SQL writes: the same columnLineage facets, subtypes and dataset dependencies."""
    classic, connect = _both(sides, scenario)
    expected = _column_lineage(classic, sides["classic"])
    assert _column_lineage(connect, sides["connect"]) == expected
    if scenario.name in SQL_COLUMN_LINEAGE:
        assert expected, "the classic session must give column lineage for the scenario"
    if scenario.name == "insert_into_and_overwrite":  # INSERT OVERWRITE ... WHERE id < 4: the filter
        (want,) = expected.values()
        assert {t for ts in want["dataset"].values() for t in ts} == {("INDIRECT", "FILTER")}
