"""The pure parts of Iceberg reading (lineage_operators.spark.tables.iceberg) and of its facets in resolve."""

from __future__ import annotations

import pytest

from lineage_operators.spark.facts import ExecutionFacts, RelationFacts, TableRef
from lineage_operators.spark.jvm.text import CTSEP, NONE, SEP
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import NamingContext
from lineage_operators.spark.tables.iceberg import (
    TableFacts,
    current_snapshot,
    file_format,
    parse_added,
    parse_snapshot,
    parse_table_record,
    snapshot_property,
    written_counts,
)


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (None, None),
        ("", None),
        (f"{NONE}{CTSEP}{NONE}", None),  # an Iceberg table without any snapshot
        (f"{NONE}{CTSEP}42", "42"),  # a plain read or write: the current snapshot
        (f"7{CTSEP}42", "7"),  # VERSION AS OF 7: the time-travel snapshot wins
        (f"{NONE}{CTSEP}-5", "-5"),  # snapshot ids are signed longs
        (f"{NONE}{CTSEP}none", None),
    ],
)
def test_parse_snapshot(field: str | None, expected: str | None) -> None:
    assert parse_snapshot(field) == expected


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (None, None),
        (f"{NONE}{CTSEP}42", None),  # read before this reader knew of added counts
        (f"{NONE}{CTSEP}{NONE}{CTSEP}{NONE}", None),  # no snapshot: no summary
        (f"{NONE}{CTSEP}42{CTSEP}2,1362,2", (2, 1362, 2)),
        (f"{NONE}{CTSEP}42{CTSEP}{NONE},10,{NONE}", (None, 10, None)),  # a summary without some counts
        (f"{NONE}{CTSEP}42{CTSEP}{NONE},{NONE},{NONE}", None),
    ],
)
def test_written_counts(field: str | None, expected: tuple[int | None, ...] | None) -> None:
    assert written_counts(field) == expected


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (f"11{CTSEP}12{CTSEP}1,2,3", "12"),  # pinned at 11 when loaded, 12 after the write (Spark 4.1)
        (f"{NONE}{CTSEP}12", "12"),
        (f"11{CTSEP}{NONE}", None),
        ("11", None),
        (None, None),
    ],
)
def test_current_snapshot_is_the_one_a_write_made(field: str | None, expected: str | None) -> None:
    assert current_snapshot(field) == expected


def test_parse_added_takes_three_counts() -> None:
    assert parse_added("5,6,7,8") == (5, 6, 7)
    assert parse_added("5") == (5, None, None)
    assert parse_added(NONE) is None


@pytest.mark.parametrize(("value", "expected"), [("none", None), (None, None), ("", None), ("123", "123")])
def test_snapshot_property(value: str | None, expected: str | None) -> None:
    assert snapshot_property(value) == expected


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [("iceberg/parquet", "parquet"), ("iceberg/ORC", "orc"), ("avro", "avro"), (None, None), ("", None)],
)
def test_file_format(fmt: str | None, expected: str | None) -> None:
    assert file_format(fmt) == expected


def test_parse_table_record() -> None:
    schema = '{"type":"struct","fields":[]}'
    record = SEP.join(["/wh/db/t", "iceberg", "iceberg/parquet", "99", schema])
    assert parse_table_record(record) == TableFacts("/wh/db/t", "parquet", schema, "99")
    assert parse_table_record(SEP.join(["/wh/db/t", "iceberg", "iceberg/orc", "none", NONE])) == TableFacts(
        "/wh/db/t", "orc", None, None
    )
    # a table of an Iceberg session catalog that is not an Iceberg table (a V1 fallback)
    assert parse_table_record(SEP.join(["/wh/p", "parquet", NONE, NONE, NONE])) is None
    assert parse_table_record(None) is None


def _resolved(*rels: RelationFacts) -> list:
    facts = ExecutionFacts(func_name="x", succeeded=True, outputs=list(rels))
    return resolve([facts], NamingContext(warehouse="/spark/wh"))[1]


def test_resolve_builds_version_symlink_and_storage() -> None:
    rel = RelationFacts(
        location="/wh/db/t",
        table=TableRef("db", "t", "ice"),
        provider="iceberg",
        file_format="parquet",
        version="123",
        symlink=("file:/wh", "db.t"),
    )
    (dataset,) = _resolved(rel)
    assert (dataset.namespace, dataset.name) == ("file", "/wh/db/t")
    assert dataset.facets["version"].datasetVersion == "123"
    identifiers = dataset.facets["symlinks"].identifiers
    assert [(i.namespace, i.name, i.type) for i in identifiers] == [("file:/wh", "db.t", "TABLE")]
    storage = dataset.facets["storage"]
    assert (storage.storageLayer, storage.fileFormat) == ("iceberg", "parquet")


def test_resolve_keeps_the_last_version_of_a_task() -> None:
    first = RelationFacts(location="/wh/db/t", provider="iceberg", version="1")
    second = RelationFacts(location="/wh/db/t", provider="iceberg", version="2")
    (dataset,) = _resolved(first, second)
    assert dataset.facets["version"].datasetVersion == "2"


def test_resolve_without_version_has_no_version_facet() -> None:
    (dataset,) = _resolved(RelationFacts(location="/data/p", file_format="parquet"))
    assert "version" not in dataset.facets
