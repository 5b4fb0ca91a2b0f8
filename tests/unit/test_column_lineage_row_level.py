"""UPDATE and DELETE on an Iceberg table (Spark's row-level rewrites) in the column-lineage engine.

Plans: the compact plan JSON of the written query, recorded from pyspark 3.5 + Iceberg 1.10 for a
table ``(id BIGINT, v STRING, w STRING)`` (files in iceberg_plans/):

* update_cow: ``UPDATE t SET v = upper(w) WHERE id = 1``, copy-on-write (``ReplaceData``):
  id#20, v#21, w#22, each rewritten as ``If(id = 1, <value>, <column>)``;
* delete_cow: ``DELETE FROM t WHERE id = 2``, copy-on-write: the rows kept, id#53 v#54 w#55;
* update_mor: the UPDATE, merge-on-read (``WriteDelta``: an ``Expand`` of delete and insert rows):
  id#65, v#66, w#67;
* delete_mor: the DELETE, merge-on-read: only row positions are written, no data column.

What openlineage-spark reports (it walks the optimized plan, where ``SimplifyConditionals`` folded
``If(id = 1, w, w)`` into ``w``): the SET column from the SET expression, the column itself where a
row is kept and the WHERE columns as a CONDITIONAL dependency; untouched columns as IDENTITY of
themselves; the WHERE of a rewrite that filters rows as a dataset-wide FILTER.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.column_lineage import DIRECT, INDIRECT, PlanColumnLineage, SourceColumn, Transformation
from lineage_operators.column_lineage import lineage_of_plan as run
from lineage_operators.column_lineage.conditionals import folded_if, same_value
from lineage_operators.column_lineage.datasets import lineage_by_output
from lineage_operators.column_lineage.mapping import InputColumn
from lineage_operators.column_lineage.plan_tree import parse_tree
from lineage_operators.model import DatasetName

PLANS = Path(__file__).parent / "iceberg_plans"
IDENTITY = Transformation(DIRECT, "IDENTITY", False)
TRANSFORMATION = Transformation(DIRECT, "TRANSFORMATION", False)
CONDITIONAL = Transformation(INDIRECT, "CONDITIONAL", False)
FILTER = Transformation(INDIRECT, "FILTER", False)


def lineage(plan: str) -> dict[str, set[tuple[str, Transformation]]]:
    result = run((PLANS / f"{plan}.json").read_text(), None)
    assert result.unknown_nodes == ()
    return {
        name: {(s.name, t) for s, ts in deps.items() for t in ts}
        for name, deps in result.fields.items()
        if not name.startswith("_")  # Iceberg's metadata columns (_file, _pos...) are not the table's
    }


def dataset(plan: str) -> dict[str, set[Transformation]]:
    return {s.name: set(ts) for s, ts in run((PLANS / f"{plan}.json").read_text(), None).dataset.items()}


@pytest.mark.parametrize(
    ("plan", "expected", "dataset_wide"),
    [
        pytest.param(
            "update_cow_spark35",
            {
                "id": {("id", IDENTITY)},  # If(id = 1, id, id) folds to id
                "v": {("w", TRANSFORMATION), ("v", TRANSFORMATION), ("id", CONDITIONAL)},
                "w": {("w", IDENTITY)},
            },
            {},
            id="copy-on-write UPDATE: SET value, kept value, WHERE as CONDITIONAL",
        ),
        pytest.param(
            "delete_cow_spark35",
            {"id": {("id", IDENTITY)}, "v": {("v", IDENTITY)}, "w": {("w", IDENTITY)}},
            {"id": {FILTER}},
            id="copy-on-write DELETE: the kept rows, filtered by the WHERE",
        ),
        pytest.param(
            "update_mor_spark35",
            {"id": {("id", IDENTITY)}, "v": {("w", TRANSFORMATION)}, "w": {("w", IDENTITY)}},
            {"id": {FILTER}},
            id="merge-on-read UPDATE: only the updated rows are written",
        ),
        pytest.param(
            "delete_mor_spark35",
            {},
            {"id": {FILTER}},
            id="merge-on-read DELETE: positions only, the WHERE as FILTER",
        ),
    ],
)
def test_row_level_rewrites(plan: str, expected: Any, dataset_wide: Any) -> None:
    assert lineage(plan) == expected
    assert dataset(plan) == dataset_wide


def _expr(*items: dict[str, Any]) -> Any:
    node = parse_tree(list(items))
    assert node is not None
    return node


def _attr(ident: int, name: str = "c") -> dict[str, Any]:
    return {"class": "AttributeReference", "num-children": 0, "name": name, "exprId": {"id": ident}}


UPPER = {"class": "Upper", "num-children": 1}


def _if(*branches: dict[str, Any]) -> Any:
    cond = [{"class": "EqualTo", "num-children": 2}, _attr(1, "id"), {"class": "Literal", "num-children": 0}]
    return _expr({"class": "If", "num-children": 3}, *cond, *branches)


@pytest.mark.parametrize(
    ("node", "folds_to"),
    [
        pytest.param(_if(_attr(7), _attr(7, "other name")), 7, id="same attribute (names do not matter)"),
        pytest.param(_if(_attr(7), _attr(8)), None, id="different attributes"),
        pytest.param(
            _if(
                {"class": "Upper", "num-children": 1},
                _attr(7),
                {"class": "Upper", "num-children": 1},
                _attr(7),
            ),
            "Upper",
            id="equal expressions",
        ),
        pytest.param(
            _if({"class": "Rand", "num-children": 0}, {"class": "Rand", "num-children": 0}),
            None,
            id="nondeterministic: Spark keeps the If",
        ),
    ],
)
def test_folded_if(node: Any, folds_to: Any) -> None:
    folded = folded_if(node)
    if folds_to is None:
        assert folded is None
    elif isinstance(folds_to, int):
        assert folded is not None
        assert folded.fields["exprId"]["id"] == folds_to
    else:
        assert folded is not None
        assert folded.cls == folds_to


def test_same_value_compares_fields_beyond_names() -> None:
    one = _expr({"class": "Literal", "num-children": 0, "value": "1", "dataType": "integer"})
    two = _expr({"class": "Literal", "num-children": 0, "value": "2", "dataType": "integer"})
    assert not same_value(one, two)
    assert same_value(one, one)


# -- the row-level operation table: a read of the written table, without a location ---------------


@dataclass(frozen=True)
class Table:
    database: str
    table: str
    catalog: str


@dataclass
class Rel:
    location: str | None
    table: Table | None = None
    expr_ids: tuple[int, ...] = ()


@dataclass
class Execution:
    inputs: list[Rel] = field(default_factory=list)
    outputs: list[Rel] = field(default_factory=list)
    column_lineage: PlanColumnLineage | None = None


def name_rel(rel: Rel) -> list[DatasetName]:
    return [DatasetName("file", rel.location)] if rel.location else []


TARGET = DatasetName("file", "/wh/db/target")


def test_row_level_operation_table_is_named_as_the_written_table() -> None:
    table = Table("db", "target", "ice")
    plan = PlanColumnLineage(
        fields={
            "id": {SourceColumn(20, "id"): frozenset({IDENTITY})},
            "v": {SourceColumn(22, "w"): frozenset({TRANSFORMATION})},
        }
    )
    execution = Execution(
        inputs=[Rel(None, table, (20, 21, 22))],  # RowLevelOperationTable: identity, no location
        outputs=[Rel("/wh/db/target", table)],
        column_lineage=plan,
    )
    merged = lineage_by_output([execution], name_rel)
    assert merged[TARGET].fields == {
        "id": {InputColumn("file", "/wh/db/target", "id"): frozenset({IDENTITY})},
        "v": {InputColumn("file", "/wh/db/target", "w"): frozenset({TRANSFORMATION})},
    }


def test_unnamed_read_of_another_table_stays_unnamed() -> None:
    plan = PlanColumnLineage(fields={"id": {SourceColumn(20, "id"): frozenset({IDENTITY})}})
    execution = Execution(
        inputs=[Rel(None, Table("db", "other", "ice"), (20,))],
        outputs=[Rel("/wh/db/target", Table("db", "target", "ice"))],
        column_lineage=plan,
    )
    assert lineage_by_output([execution], name_rel)[TARGET].fields == {}


def test_metadata_columns_of_a_rewrite_are_not_output_fields() -> None:
    from lineage_operators.column_lineage.datasets import without_metadata_columns
    from lineage_operators.column_lineage.mapping import DatasetColumnLineage

    dep = {InputColumn("file", "/t", "id"): frozenset({IDENTITY})}
    lineage = DatasetColumnLineage(
        fields={"id": dep, "_file": dep, "__row_operation": dep}, columns=["__row_operation", "id", "_file"]
    )
    kept = without_metadata_columns(lineage, {"id", "v"})
    assert kept.columns == ["id"]
    assert set(kept.fields) == {"id"}
    # a table that has such a column keeps it
    assert set(without_metadata_columns(lineage, {"id", "_file"}).fields) == {"id", "_file"}
