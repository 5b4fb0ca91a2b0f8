"""openlineage-sql's column lineage of SQL text -> the capture's column-lineage facts (pure)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openlineage_sql", reason="the `connect` extra is not installed")

from lineage_operators.column_lineage import SourceColumn
from lineage_operators.spark.connect.columns.sql_columns import DIRECT_UNSPECIFIED, sql_column_lineage
from lineage_operators.spark.connect.sql import SqlTable, parse_statement
from lineage_operators.spark.facts import RelationFacts


def _schema(*names: str) -> str:
    return json.dumps({"type": "struct", "fields": [{"name": n, "type": "long"} for n in names]})


def _lineage(sql: str, inputs: dict[str, tuple[str, ...]], output: tuple[str, ...]) -> dict[str, object]:
    """output column -> sorted (input location, column); inputs: SQL table name -> its columns."""
    statement = parse_statement(sql)
    sources: dict[SqlTable, list[RelationFacts]] = {}
    for table in statement.inputs:
        columns = inputs[table.name]
        sources[table] = [RelationFacts(location=f"/{table.name}", schema_text=_schema(*columns))]
    plan = sql_column_lineage(statement.columns, sources, _schema(*output))
    if plan is None:
        return {}
    owner = {i: rels[0].location for rels in sources.values() for i in rels[0].expr_ids}
    result: dict[str, object] = {}
    for column, deps in plan.fields.items():
        assert all(t == DIRECT_UNSPECIFIED for t in deps.values())
        result[column] = sorted((owner[s.expr_id], s.name) for s in deps)
    return result


@pytest.mark.parametrize(
    ("sql", "inputs", "output", "expected"),
    [
        pytest.param(
            "CREATE TABLE db.c USING parquet AS SELECT id, upper(name) AS n, 1 AS one FROM src",
            {"src": ("id", "name")},
            ("id", "n", "one"),
            {"id": [("/src", "id")], "n": [("/src", "name")], "one": []},
            id="ctas-literal-column-has-no-source",
        ),
        pytest.param(
            "CREATE TABLE c AS SELECT a.k, a.v + b.v AS s FROM a JOIN b ON a.k = b.k",
            {"a": ("k", "v"), "b": ("k", "v")},
            ("k", "s"),
            {"k": [("/a", "k")], "s": [("/a", "v"), ("/b", "v")]},
            id="join-two-sources",
        ),
        pytest.param(
            "CREATE TABLE c AS SELECT k, w FROM a JOIN b ON a.k = b.j",
            {"a": ("k", "v"), "b": ("j", "w")},
            ("k", "w"),
            {"k": [("/a", "k")], "w": [("/b", "w")]},
            id="unqualified-column-goes-to-the-input-having-it",
        ),
        pytest.param(
            "INSERT INTO db.t SELECT ID, Name AS label FROM src",
            {"src": ("id", "name")},
            ("id", "name"),
            {"id": [("/src", "id")], "name": []},
            id="insert-names-matched-case-insensitively-unknown-alias-dropped",
        ),
        pytest.param(
            "CREATE TABLE c AS SELECT * FROM src",
            {"src": ("id",)},
            ("id",),
            {},
            id="star-has-no-column-lineage",
        ),
    ],
)
def test_sql_column_lineage(
    sql: str, inputs: dict[str, tuple[str, ...]], output: tuple[str, ...], expected: dict[str, object]
) -> None:
    assert _lineage(sql, inputs, output) == expected


def test_ids_go_on_every_relation_of_a_source_and_are_shared_per_column() -> None:
    statement = parse_statement("CREATE TABLE c AS SELECT id, id + 1 AS next FROM src")
    (table,) = statement.inputs
    first, second = RelationFacts(location="/a"), RelationFacts(location="/b")  # no schema known
    plan = sql_column_lineage(statement.columns, {table: [first, second]}, _schema("id", "next"))
    assert plan is not None
    (only,) = first.expr_ids
    assert second.expr_ids == (only,)
    assert plan.fields == {
        "id": {SourceColumn(only, "id"): DIRECT_UNSPECIFIED},
        "next": {SourceColumn(only, "id"): DIRECT_UNSPECIFIED},
    }


def test_a_table_not_among_the_sources_gives_nothing() -> None:
    """A view that renames columns, or a table not resolved, is not a source."""
    statement = parse_statement("CREATE TABLE c AS SELECT id FROM renaming_view")
    assert sql_column_lineage(statement.columns, {}, _schema("id")) is None
