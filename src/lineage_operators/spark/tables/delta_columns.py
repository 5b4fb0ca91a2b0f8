"""Column lineage through Delta's own ``MERGE INTO``, ``UPDATE`` and ``DELETE`` commands.

Why a module of its own: Delta plans these statements as its own commands
(``MergeIntoCommand``, ``UpdateCommand``, ``DeleteCommand``), not as Spark's row-level rewrite
(``ReplaceData``/``WriteDelta`` over ``MergeRows``) Iceberg gets; the written query exists only
inside Delta at run time. Their fields hold what the rewrite is made of: the ``target`` relation, the
``source`` plan, the ``condition`` and the clauses' conditions and values (resolved expressions).

:func:`rewrite_plan` turns the command's ``toJSON()`` (one py4j call: the command JSON holds the
target, the source and every expression) into the plan Spark's own row-level rewrite would be, so
the column-lineage engine derives the lineage exactly as for Iceberg's copy-on-write plans:

* ``MERGE``: ``MergeRows`` over ``Join(target, source, condition)`` (left outer without a
  ``WHEN NOT MATCHED`` clause, else full outer, as Spark's rewrite): each target column from every
  clause's value for it (an updated column keeps its own value where a clause does not set it, an
  inserted one is null), the clauses' conditions ``CONDITIONAL``, the merge condition ``JOIN``;
  target rows no clause touches are kept as they are (IDENTITY);
* ``UPDATE``: ``Project(If(condition, value, column))`` over the target: a set column from its new
  value and itself (TRANSFORMATION), the condition ``CONDITIONAL``; the other columns fold to
  themselves (IDENTITY);
* ``DELETE``: ``Filter(NOT condition)`` over the target: the kept rows (IDENTITY), the condition a
  ``FILTER`` dependency.

openlineage-spark, for Delta's ``MERGE``, reports only the values that are plain source columns
(IDENTITY) and nothing for ``UPDATE``/``DELETE``; this keeps those and adds what the plans show.
Pure functions over parsed JSON, plus :func:`row_level_lineage`, which reads and never raises.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger, log_once
from lineage_operators.column_lineage import lineage_of_plan
from lineage_operators.column_lineage.lineage import PlanColumnLineage
from lineage_operators.spark.jvm.spark_classes import LOGICAL

log = get_logger(__name__)

_EXPR = "org.apache.spark.sql.catalyst.expressions"
#: exprIds of the made-up aliases: far above any a JVM hands out in a test or a task
_ALIAS_IDS = 1 << 60

Items = list[dict[str, Any]]


def _node(cls: str, children: int, **fields: Any) -> dict[str, Any]:
    return {"class": cls, "num-children": children, **fields}


def _true() -> Items:
    return [_node(f"{_EXPR}.Literal", 0, value="true", dataType="boolean")]


def _null() -> Items:
    return [_node(f"{_EXPR}.Literal", 0, value=None, dataType="null")]


def _target_columns(target: Items) -> list[Items]:
    """The target relation's output attributes (the first node of ``target`` listing an output)."""
    for item in target:
        output = item.get("output") if isinstance(item, dict) else None
        if isinstance(output, list) and output:
            return [attr for attr in output if isinstance(attr, list) and attr]
    return []


def _name(attr: Items) -> str:
    name = attr[0].get("name")
    return name if isinstance(name, str) else ""


def _subtree(items: Items, start: int) -> tuple[Items, int]:
    """The pre-order subtree of ``items`` starting at ``start``, and the index after it."""
    end, pending = start, 1
    while pending and end < len(items):
        count = items[end].get("num-children", 0) if isinstance(items[end], dict) else 0
        pending += (count if isinstance(count, int) else 0) - 1
        end += 1
    return items[start:end], end


def _children(items: Items) -> list[Items]:
    """The direct children of the tree ``items`` (each a pre-order list)."""
    out, index = [], 1
    for _ in range(items[0].get("num-children", 0) if items else 0):
        child, index = _subtree(items, index)
        out.append(child)
    return out


def _column_of(action: Items) -> str:
    """``DeltaMergeAction``'s target column (its top-level one: ``[a, b]`` -> ``a``)."""
    parts = action[0].get("targetColNameParts")
    if isinstance(parts, list):
        return str(parts[0]) if parts else ""
    text = str(parts or "").strip("[]")
    return text.split(",")[0].strip().strip("`")


def _clause(clause: Items, columns: list[Items], unset: str) -> Items:
    """A ``Keep`` instruction of the clause: its condition and one value per target column (the set
    value; else the column itself for an update, null for an insert); a delete keeps no row."""
    fields, children = clause[0], _children(clause)
    condition = _true()
    cond_index = fields.get("condition")
    if isinstance(fields.get("condition"), list):  # a toJSON Option of an expression child: inline
        condition = fields["condition"]
    elif isinstance(cond_index, int) and cond_index < len(children):
        condition = children[cond_index]
    actions = fields.get("actions")
    indexes = [i for i in actions if isinstance(i, int)] if isinstance(actions, list) else []
    values: dict[str, Items] = {}
    for index in indexes:
        if index < len(children) and children[index][0].get("class", "").endswith("DeltaMergeAction"):
            expr = _children(children[index])
            if expr:
                values.setdefault(_column_of(children[index]).lower(), expr[0])
    if "Delete" in str(fields.get("class")):
        return [_node(f"{LOGICAL}.Keep", 1), *condition]
    row: list[Items] = []
    for column in columns:
        value = values.get(_name(column).lower())
        row.append(value if value is not None else (column if unset == "self" else _null()))
    return [_node(f"{LOGICAL}.Keep", 1 + len(row)), *condition, *(i for v in row for i in v)]


def _clauses(command: dict[str, Any], field: str, columns: list[Items], unset: str) -> list[Items]:
    found = command.get(field)
    return (
        [_clause(c, columns, unset) for c in found if isinstance(c, list) and c]
        if isinstance(found, list)
        else []
    )


def _merge(command: dict[str, Any], target: Items, source: Items, columns: list[Items]) -> Items:
    matched = _clauses(command, "matchedClauses", columns, "self")
    not_matched = _clauses(command, "notMatchedClauses", columns, "null")
    by_source = _clauses(command, "notMatchedBySourceClauses", columns, "self")
    # rows of the target no clause touches are copied as they are
    by_source.append([_node(f"{LOGICAL}.Keep", 1 + len(columns)), *_true(), *(i for c in columns for i in c)])
    join_type = "FullOuter$" if not_matched else "LeftOuter$"
    condition = command.get("condition") if isinstance(command.get("condition"), list) else None
    rows = _node(
        f"{LOGICAL}.MergeRows",
        1,
        output=columns,
        matchedInstructions=matched,
        notMatchedInstructions=not_matched,
        notMatchedBySourceInstructions=by_source,
    )
    join = _node(f"{LOGICAL}.Join", 2, joinType={"object": f"{LOGICAL}.{join_type}"}, condition=condition)
    return [rows, join, *target, *source]


def _update(command: dict[str, Any], target: Items, columns: list[Items]) -> Items:
    values = command.get("updateExpressions")
    if not isinstance(values, list) or len(values) != len(columns):
        return []
    found = command.get("condition")
    condition: Items = found if isinstance(found, list) else _true()
    project = []
    for index, (column, value) in enumerate(zip(columns, values, strict=True)):
        chosen = [_node(f"{_EXPR}.If", 3), *condition, *value, *column]
        alias = _node(f"{_EXPR}.Alias", 1, child=0, name=_name(column), exprId={"id": _ALIAS_IDS + index})
        project.append([alias, *chosen])
    return [_node(f"{LOGICAL}.Project", 1, projectList=project), *target]


def _delete(command: dict[str, Any], target: Items) -> Items:
    condition = command.get("condition")
    if not isinstance(condition, list) or not condition:
        return list(target)  # deletes every row: nothing is kept, no column is read for it
    kept = [_node(f"{_EXPR}.Not", 1, child=0), *condition]
    return [_node(f"{LOGICAL}.Filter", 1, condition=kept), *target]


def rewrite_plan(command_json: str | list[Any]) -> Items | None:
    """The row-level rewrite of a Delta ``MergeIntoCommand``/``UpdateCommand``/``DeleteCommand``
    (its ``toJSON()``) as a plan the column-lineage engine reads; None for anything else."""
    items = json.loads(command_json) if isinstance(command_json, str) else command_json
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        return None
    command = items[0]
    kind = str(command.get("class", "")).rsplit(".", 1)[-1]
    target = command.get("target")
    if not isinstance(target, list) or not target:
        return None
    columns = _target_columns(target)
    if not columns:
        return None
    if kind == "MergeIntoCommand":
        source = command.get("source")
        return _merge(command, target, source, columns) if isinstance(source, list) and source else None
    if kind == "UpdateCommand":
        return _update(command, target, columns) or None
    if kind == "DeleteCommand":
        return _delete(command, target)
    return None


def row_level_lineage(plan: Any) -> PlanColumnLineage | None:
    """:class:`~lineage_operators.column_lineage.PlanColumnLineage` of a Delta row-level command (the
    analyzed plan object), or None; never raises (a failure is logged once)."""
    try:
        rewritten = rewrite_plan(str(plan.toJSON()))
        if rewritten is None:
            return None

        return lineage_of_plan(rewritten)
    except Exception as exc:
        log_once(
            log, "delta-columns", logging.INFO, "lineage capture: no Delta column lineage: %s", describe(exc)
        )
        return None


__all__ = ["rewrite_plan", "row_level_lineage"]
