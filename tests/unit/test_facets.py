"""Facet builders: plain data in, openlineage-python facet objects out (no Spark)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("openlineage.client")

from openlineage.client.serde import Serde

from lineage_operators import facets as f


def spark_schema(*fields: tuple[str, Any] | tuple[str, Any, str]) -> str:
    """Spark ``StructType.json`` text for (name, type[, comment]) fields."""
    return json.dumps(
        {
            "type": "struct",
            "fields": [
                {
                    "name": field[0],
                    "type": field[1],
                    "nullable": True,
                    "metadata": {"comment": field[2]} if len(field) > 2 else {},
                }
                for field in fields
            ],
        }
    )


def shape(fields: list[Any] | None) -> list[Any] | None:
    """(name, type, description, children) tuples of schema facet fields."""
    if fields is None:
        return None
    return [(x.name, x.type, x.description, shape(x.fields)) for x in fields]


STRUCT_C = {"type": "struct", "fields": [{"name": "c", "type": "string", "nullable": True, "metadata": {}}]}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        pytest.param(
            spark_schema(("id", "long"), ("name", "string", "the name"), ("d", "decimal(10,2)")),
            [
                ("id", "long", None, None),
                ("name", "string", "the name", None),
                ("d", "decimal(10,2)", None, None),
            ],
            id="flat-with-comment",
        ),
        pytest.param(
            spark_schema(("s", {"type": "struct", "fields": [*STRUCT_C["fields"]]}, "nested")),
            [("s", "struct", "nested", [("c", "string", None, None)])],
            id="struct",
        ),
        pytest.param(
            spark_schema(("a", {"type": "array", "elementType": "integer", "containsNull": True})),
            [("a", "array", None, [("_element", "integer", None, None)])],
            id="array-of-primitive",
        ),
        pytest.param(
            spark_schema(("a", {"type": "array", "elementType": STRUCT_C, "containsNull": True})),
            [("a", "array", None, [("_element", "struct", None, [("c", "string", None, None)])])],
            id="array-of-struct",
        ),
        pytest.param(
            spark_schema(("m", {"type": "map", "keyType": "string", "valueType": STRUCT_C})),
            [
                (
                    "m",
                    "map",
                    None,
                    [("key", "string", None, None), ("value", "struct", None, [("c", "string", None, None)])],
                )
            ],
            id="map",
        ),
        pytest.param(
            spark_schema(
                ("v", {"type": "udt", "class": "org.apache.spark.ml.linalg.VectorUDT", "sqlType": STRUCT_C})
            ),
            [("v", "vector", None, None)],
            id="udt-as-typeName",
        ),
        pytest.param(
            spark_schema(("t", "timestamp"), ("n", "timestamp_ntz"), ("i", "interval day to second")),
            [
                ("t", "timestamp", None, None),
                ("n", "timestamp_ntz", None, None),
                ("i", "interval day to second", None, None),
            ],
            id="time-types",
        ),
    ],
)
def test_schema_facet(schema: str, expected: list[Any]) -> None:
    facet = f.schema_facet(schema)
    assert facet is not None
    assert shape(facet.fields) == expected
    assert f.schema_facet(json.loads(schema)) == facet  # parsed JSON works too


@pytest.mark.parametrize("schema", [None, '{"type": "struct", "fields": []}', '"string"'])
def test_schema_facet_none(schema: str | None) -> None:
    assert f.schema_facet(schema) is None


def test_schema_facet_leaf_fields_have_no_children_in_json() -> None:
    facet = f.schema_facet(spark_schema(("id", "long")))
    assert Serde.to_dict(facet)["fields"] == [{"name": "id", "type": "long"}]


def test_datasource_and_symlinks() -> None:
    source = f.datasource_facet("s3://bucket")
    assert (source.name, source.uri) == ("s3://bucket", "s3://bucket")
    links = f.symlinks_facet([("file:/wh", "db.t", "TABLE"), ("file:/wh", "db.t", "TABLE")])
    assert links is not None
    assert [(i.namespace, i.name, i.type) for i in links.identifiers] == [("file:/wh", "db.t", "TABLE")]
    assert f.symlinks_facet([]) is None


@pytest.mark.parametrize(
    ("layer", "fmt", "expected"),
    [
        ("delta", None, ("delta", "parquet")),
        ("DELTA", "orc", ("delta", "orc")),
        ("iceberg", "parquet", ("iceberg", "parquet")),
        ("iceberg", None, ("iceberg", None)),
        (None, "ParquetFileFormat", ("file", "parquet")),  # plain files: layer `file`, format known
        ("parquet", "parquet", ("file", "parquet")),  # a catalog table's provider is a format
        (None, "org.apache.spark.sql.execution.datasources.csv.CSVFileFormat", ("file", "csv")),
        (None, "TextFileFormat", ("file", "text")),
        ("hive", "orc", ("hive", "orc")),
        (None, "jdbc", None),  # not a file format
        (None, None, None),
    ],
)
def test_storage_facet(layer: str | None, fmt: str | None, expected: tuple[str, str | None] | None) -> None:
    facet = f.storage_facet(layer, fmt)
    assert (None if facet is None else (facet.storageLayer, facet.fileFormat)) == expected


@pytest.mark.parametrize("state", ["CREATE", "OVERWRITE", "DROP", "TRUNCATE", "ALTER", "create"])
def test_lifecycle_facet(state: str) -> None:
    facet = f.lifecycle_facet(state)
    assert facet is not None
    assert facet.lifecycleStateChange.value == state.upper()
    assert facet.previousIdentifier is None


def test_lifecycle_rename_and_invalid() -> None:
    facet = f.lifecycle_facet("RENAME", ("file", "/wh/old"))
    assert facet is not None
    assert facet.previousIdentifier is not None
    assert (facet.previousIdentifier.namespace, facet.previousIdentifier.name) == ("file", "/wh/old")
    assert f.lifecycle_facet(None) is None
    with pytest.raises(ValueError, match="unknown lifecycle"):
        f.lifecycle_facet("APPEND")


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((10, 2048, 2), (10, 2048, 2)),
        ((10, None, None), (10, None, None)),
        ((None, None, None), None),
        ((-1, 5, None), (None, 5, None)),  # Spark's "unknown" -1 is dropped
    ],
)
def test_statistics_facets(counts: tuple[Any, Any, Any], expected: tuple[Any, Any, Any] | None) -> None:
    for build in (f.output_statistics_facet, f.input_statistics_facet):
        facet = build(*counts)
        assert (None if facet is None else (facet.rowCount, facet.size, facet.fileCount)) == expected


@pytest.mark.parametrize(("a", "b", "expected"), [(1, 2, 3), (None, 2, 2), (1, None, 1), (None, None, None)])
def test_add_counts(a: int | None, b: int | None, expected: int | None) -> None:
    assert f.add_counts(a, b) == expected


def test_run_facets() -> None:
    engine = f.processing_engine_facet("4.3.0")
    assert (engine.name, engine.version) == ("spark", "4.3.0")
    assert engine.openlineageAdapterVersion == f.openlineage_client_version()
    details = f.spark_application_details_facet(
        master="local[2]",
        appName="app",
        applicationId="local-1",
        deployMode="client",
        uiWebUrl=None,
        bogus="x",
    )
    data = Serde.to_dict(details)
    assert data["_schemaURL"] == f.SPARK_APPLICATION_DETAILS_SCHEMA_URL
    assert data["_producer"]
    assert {k: v for k, v in data.items() if not k.startswith("_")} == {
        "master": "local[2]",
        "appName": "app",
        "applicationId": "local-1",
        "deployMode": "client",
    }


@pytest.mark.parametrize(
    ("statements", "expected"),
    [
        (["SELECT 1"], "SELECT 1"),
        (
            ["INSERT INTO t SELECT 1;", "SELECT 1", "INSERT INTO t SELECT 1"],
            "INSERT INTO t SELECT 1;\nSELECT 1",
        ),
        (["  ", ""], None),
        ([], None),
    ],
)
def test_sql_job_facet(statements: list[str], expected: str | None) -> None:
    facet = f.sql_job_facet(statements)
    assert (None if facet is None else facet.query) == expected
    if facet is not None:
        assert facet.dialect == "spark"


def test_facets_pass_the_openlineage_schemas() -> None:
    """Every builder's output inside one event passes the official JSON schemas."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState

    from lineage_operators.testing.schema import SpecNotFoundError, validate_event

    schema = f.schema_facet(
        spark_schema(("id", "long", "c"), ("m", {"type": "map", "keyType": "string", "valueType": STRUCT_C}))
    )
    dataset_facets: dict[str, Any] = {
        "schema": schema,
        "dataSource": f.datasource_facet("file"),
        "symlinks": f.symlinks_facet([("file:/wh", "db.t", "TABLE")]),
        "storage": f.storage_facet("delta"),
    }
    event = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime="2026-01-01T00:00:00+00:00",
        run=Run(
            runId="01a1fd27-4188-7960-bfd2-600ddb2c6c6e",
            facets={
                "spark_processingEngine": f.processing_engine_facet("4.3.0"),
                "spark_applicationDetails": f.spark_application_details_facet(master="local", appName="a"),
            },
        ),
        job=Job(namespace="ns", name="job", facets={"sql": f.sql_job_facet(["SELECT 1"])}),
        inputs=[
            InputDataset(
                namespace="file",
                name="/in",
                facets=dataset_facets,
                inputFacets={"inputStatistics": f.input_statistics_facet(1, 2, 3)},
            )
        ],
        outputs=[
            OutputDataset(
                namespace="file",
                name="/out",
                facets={
                    **dataset_facets,
                    "lifecycleStateChange": f.lifecycle_facet("RENAME", ("file", "/old")),
                },
                outputFacets={"outputStatistics": f.output_statistics_facet(1, 2, 3)},
            )
        ],
    )
    try:
        validate_event(Serde.to_dict(event))
    except SpecNotFoundError:
        pytest.skip("no OpenLineage spec directory")
