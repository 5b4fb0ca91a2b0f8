"""Column lineage through Delta's own MERGE / UPDATE / DELETE commands (spark/tables/delta_columns.py):
the command's ``toJSON()`` rewritten as Spark's row-level plan and read by the column-lineage engine.

Built by hand in the shape Delta 3.3 / 4.x's ``toJSON()`` gives (recorded with the real jars, see
tests/delta/ for the end-to-end check): target ``t`` (id#1, v#2, w#3), source ``s`` (id#11, v#12).
"""

from __future__ import annotations

from typing import Any

from lineage_operators.column_lineage import DIRECT, INDIRECT, SourceColumn, Transformation, lineage_of_plan
from lineage_operators.spark.tables.delta_columns import rewrite_plan

E = "org.apache.spark.sql.catalyst.expressions"
L = "org.apache.spark.sql.catalyst.plans.logical"
IDENTITY = Transformation(DIRECT, "IDENTITY")
TRANSFORMATION = Transformation(DIRECT, "TRANSFORMATION")
CONDITIONAL = Transformation(INDIRECT, "CONDITIONAL")
FILTER = Transformation(INDIRECT, "FILTER")
JOIN = Transformation(INDIRECT, "JOIN")


def attr(name: str, ident: int) -> list[dict[str, Any]]:
    return [{"class": f"{E}.AttributeReference", "num-children": 0, "name": name, "exprId": {"id": ident}}]


def lit(value: str) -> list[dict[str, Any]]:
    return [{"class": f"{E}.Literal", "num-children": 0, "value": value, "dataType": "long"}]


def binary(cls: str, left: list[Any], right: list[Any]) -> list[Any]:
    return [{"class": f"{E}.{cls}", "num-children": 2, "left": 0, "right": 1}, *left, *right]


def relation(alias: str, *columns: tuple[str, int]) -> list[Any]:
    leaf = {
        "class": "org.apache.spark.sql.execution.datasources.LogicalRelation",
        "num-children": 0,
        "relation": None,
        "output": [attr(n, i) for n, i in columns],
    }
    return [
        {"class": f"{L}.SubqueryAlias", "num-children": 1, "identifier": {"name": alias}, "child": 0},
        leaf,
    ]


TARGET = relation("t", ("id", 1), ("v", 2), ("w", 3))
SOURCE = relation("s", ("id", 11), ("v", 12))


def action(column: str, expr: list[Any]) -> list[Any]:
    head = {
        "class": f"{L}.DeltaMergeAction",
        "num-children": 1,
        "targetColNameParts": f"[{column}]",
        "expr": 0,
    }
    return [head, *expr]


def command(cls: str, **fields: Any) -> list[Any]:
    return [
        {"class": f"org.apache.spark.sql.delta.commands.{cls}", "num-children": 0, "target": TARGET, **fields}
    ]


def flat(lineage: Any) -> dict[str, set[tuple[int, Transformation]]]:
    return {
        name: {(s.expr_id, t) for s, ts in deps.items() for t in ts} for name, deps in lineage.fields.items()
    }


def test_merge_takes_each_column_from_every_clause_and_the_conditions_choose_the_rows() -> None:
    # MERGE INTO t USING s ON t.id = s.id
    # WHEN MATCHED AND s.v > 4 THEN UPDATE SET v = s.v + 1  WHEN MATCHED THEN DELETE
    # WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)
    update = [
        {
            "class": f"{L}.DeltaMergeIntoMatchedUpdateClause",
            "num-children": 2,
            "condition": binary("GreaterThan", attr("v", 12), lit("4")),
            "actions": [1],
        },
        *binary("GreaterThan", attr("v", 12), lit("4")),
        *action("v", binary("Add", attr("v", 12), lit("1"))),
    ]
    delete = [{"class": f"{L}.DeltaMergeIntoMatchedDeleteClause", "num-children": 0}]
    insert = [
        {"class": f"{L}.DeltaMergeIntoNotMatchedInsertClause", "num-children": 2, "actions": [0, 1]},
        *action("id", attr("id", 11)),
        *action("v", attr("v", 12)),
    ]
    plan = rewrite_plan(
        command(
            "MergeIntoCommand",
            source=SOURCE,
            condition=binary("EqualTo", attr("id", 1), attr("id", 11)),
            matchedClauses=[update, delete],
            notMatchedClauses=[insert],
            notMatchedBySourceClauses=[],
        )
    )
    lineage = lineage_of_plan(plan)
    assert lineage.unknown_nodes == ()
    fields = flat(lineage)
    assert fields["id"] == {(1, IDENTITY), (11, IDENTITY)}  # kept rows, updated rows; inserted rows
    assert fields["v"] == {(2, IDENTITY), (12, TRANSFORMATION), (12, IDENTITY)}
    assert fields["w"] == {(3, IDENTITY)}  # never set: kept and updated rows keep it, inserts have none
    assert lineage.dataset[SourceColumn(1, "id")] == {JOIN}
    assert lineage.dataset[SourceColumn(11, "id")] == {JOIN}
    assert lineage.dataset[SourceColumn(12, "v")] == {CONDITIONAL}


def test_update_sets_columns_from_their_values_under_its_condition() -> None:
    # UPDATE t SET v = v + w WHERE id = 1
    values = [attr("id", 1), binary("Add", attr("v", 2), attr("w", 3)), attr("w", 3)]
    lineage = lineage_of_plan(
        rewrite_plan(
            command(
                "UpdateCommand",
                updateExpressions=values,
                condition=binary("EqualTo", attr("id", 1), lit("1")),
            )
        )
    )
    fields = flat(lineage)
    assert fields["id"] == {(1, IDENTITY)}
    assert fields["w"] == {(3, IDENTITY)}
    assert fields["v"] == {(2, TRANSFORMATION), (3, TRANSFORMATION), (1, CONDITIONAL)}


def test_delete_keeps_the_other_rows_as_they_are_filtered_by_its_condition() -> None:
    lineage = lineage_of_plan(
        rewrite_plan(command("DeleteCommand", condition=binary("EqualTo", attr("v", 2), lit("3"))))
    )
    assert flat(lineage) == {"id": {(1, IDENTITY)}, "v": {(2, IDENTITY)}, "w": {(3, IDENTITY)}}
    assert lineage.dataset == {SourceColumn(2, "v"): {FILTER}}


def test_other_plans_are_not_rewritten() -> None:
    assert rewrite_plan([{"class": f"{L}.Project", "num-children": 0}]) is None
    assert rewrite_plan("[]") is None
    assert (
        rewrite_plan(command("UpdateCommand", updateExpressions=[attr("id", 1)])) is None
    )  # not one per column
