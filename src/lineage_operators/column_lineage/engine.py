"""The plan engine: analyzed-plan JSON -> each output column's source columns, with transformations.

One bottom-up pass over the plan (children first, iteratively, so deep plans are fine; the node
rules are in plan_walk.py, the expression rules in expressions.py). Every node class has a rule that
derives its output attributes (the JSON only lists the leaves' outputs) and
records, for each attribute it creates, the lineage ``{source exprId: transformations}`` of that
attribute; dataset-wide dependencies (filters, join conditions, grouping, sorting) go to a separate
sink. Attributes are looked up by ``exprId``, so an attribute created once is never re-walked: the
work is linear in the plan size (times the number of sources a column depends on).

Semantics follow openlineage-spark's column lineage, which walks the *optimized* plan of most
writes; where the optimizer changes what it would see, the rule emulates it: ``IS NOT NULL``
inferred on join keys (FILTER), a filter under ``explode``/``posexplode``/``inline`` of a column
(FILTER: Spark's ``InferFiltersFromGenerate`` infers one for a column, never for an expression such
as ``split(a, ' ')``, nor for a column holding ``array(...)``), DISTINCT as GROUP BY (not over a
UNION), dropDuplicates as GROUP BY keys + first() (AGGREGATION), INTERSECT/EXCEPT as a semi/anti
join on every column, ``If(c, x, x)`` as ``x``. With ``optimized=False`` none of this is done: the
analyzed plan is read as it is, which is what openlineage-spark reads for a V1 CTAS
(``CreateDataSourceTableAsSelectCommand``: ``CREATE TABLE ... AS SELECT``, ``saveAsTable``,
``writeTo().create()``), whose query is no child of the command and is never optimized in the
command's own execution (the write it runs nested is; its lineage is superseded, merge.py). Window
PARTITION/ORDER BY stays on the column (WINDOW), as openlineage-spark reports it. Deliberately
better than it:

* a cast that keeps the value (same type, exact widening, ``UpCast``) is IDENTITY, not
  TRANSFORMATION (Spark adds such casts for views, unions and inserts);
* subqueries are walked: a scalar subquery's value keeps its own type (``max(x)``: AGGREGATION)
  and the columns its conditions read are INDIRECT on that column; IN / EXISTS in a WHERE are
  FILTER for everything they read (openlineage-spark sees the optimizer's semi joins, JOIN);
* a pivot's pivot column is CONDITIONAL; an aggregate's ``FILTER (WHERE ...)`` is FILTER.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from lineage_operators.column_lineage.descriptions import clean
from lineage_operators.column_lineage.expressions import (
    CODES,
    MASKING,
    SUBTYPES,
    Lineage,
    is_direct,
)
from lineage_operators.column_lineage.lineage import (
    DIRECT,
    INDIRECT,
    PlanColumnLineage,
    SourceColumn,
    Transformation,
)
from lineage_operators.column_lineage.plan_tree import (
    Node,
    parse_tree,
)
from lineage_operators.column_lineage.plan_walk import PlanWalk

INVALID_PLAN = "<invalid plan JSON>"
"""Listed in ``unknown_nodes`` (with nothing else computed) when the JSON is not a plan at all."""

# Write commands: the written rows are their "query" field (a nested plan) or their only child.
# Anything named *Command or *AsSelect is unwrapped the same way.
WRITE_NODES = frozenset(
    [
        "InsertIntoStatement",
        "AppendData",
        "OverwriteByExpression",
        "OverwritePartitionsDynamic",
        "ReplaceData",
        "WriteToDataSourceV2",
        "InsertIntoHiveTable",
        "InsertIntoHiveDirCommand",
        "CreateTableAsSelect",
        "ReplaceTableAsSelect",
    ]
)


def _query_of(root: Node) -> Node:
    """The plan whose rows are written, when given a whole write command."""
    while root.cls in WRITE_NODES or root.cls.endswith(("Command", "AsSelect")):
        query = parse_tree(root.fields.get("query"))
        if query is not None:
            root = query
        elif len(root.children) == 1:
            root = root.children[0]
        else:
            break
    return root


_TRANSFORMATIONS = [
    Transformation(DIRECT if is_direct(code) else INDIRECT, SUBTYPES[code % MASKING], code >= MASKING)
    for code in range(CODES)
]
_SETS: dict[int, frozenset[Transformation]] = {}


def _transformations(mask: int) -> frozenset[Transformation]:
    found = _SETS.get(mask)
    if found is None:
        found = frozenset(t for code, t in enumerate(_TRANSFORMATIONS) if mask >> code & 1)
        _SETS[mask] = found
    return found


def _columns(
    lineage: Lineage, sources: dict[int, SourceColumn]
) -> dict[SourceColumn, frozenset[Transformation]]:
    return {
        sources.get(ident) or SourceColumn(ident, ""): _transformations(mask)
        for ident, mask in sorted(lineage.items())
        if mask
    }


def _described(
    columns: dict[SourceColumn, frozenset[Transformation]], text: str
) -> dict[SourceColumn, frozenset[Transformation]]:
    """Every transformation of an output column described by the column's expression (as
    openlineage-spark, whose outer expression's text wins when transformations merge)."""
    if not text:
        return columns
    return {
        column: frozenset(replace(t, description=text) for t in kinds) for column, kinds in columns.items()
    }


def _described_dataset(
    dataset: dict[SourceColumn, frozenset[Transformation]], walk: PlanWalk
) -> dict[SourceColumn, frozenset[Transformation]]:
    """Dataset-wide entries described by the condition / key / order expression that made them.

    An entry no described expression made (the ``IS NOT NULL`` inferred on join keys, DISTINCT,
    INTERSECT...) keeps an empty description; one made by several gets one entry per text.
    """
    texts: dict[tuple[int, int], list[str]] = {}
    for raw, part in walk.dataset_texts:
        text = clean(raw)
        for ident, mask in part.items():
            for code in range(CODES):
                if mask >> code & 1:
                    found = texts.setdefault((ident, code), [])
                    if text not in found:
                        found.append(text)
    out: dict[SourceColumn, frozenset[Transformation]] = {}
    for column, kinds in dataset.items():
        described: set[Transformation] = set()
        for t in kinds:
            code = _TRANSFORMATIONS.index(replace(t, description=""))
            described.update(replace(t, description=d) for d in texts.get((column.expr_id, code), [""]))
        out[column] = frozenset(described)
    return out


def lineage_of_plan(
    plan_json: str | list[Any], output_names: Sequence[str] | None = None, optimized: bool = True
) -> PlanColumnLineage:
    """See :mod:`lineage_operators.column_lineage`. Never raises."""
    # A plan's JSON is millions of acyclic objects: the cyclic garbage collector's passes over
    # them are pure cost (they halve the time on the benchmark's plan), so pause it meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _lineage_of_plan(plan_json, output_names, optimized)
    finally:
        if collecting:
            gc.enable()


def _lineage_of_plan(
    plan_json: str | list[Any], output_names: Sequence[str] | None, optimized: bool
) -> PlanColumnLineage:
    try:
        items = json.loads(plan_json) if isinstance(plan_json, (str, bytes)) else plan_json
        root = parse_tree(items)
    except (ValueError, TypeError, RecursionError):
        root = None
    if root is None:
        return PlanColumnLineage(unknown_nodes=(INVALID_PLAN,), optimized=optimized)
    walk = PlanWalk(optimized)
    try:
        sink: Lineage = {}
        walk.root_sink = sink
        outputs = walk.walk(_query_of(root), sink)
    except Exception as error:  # a plan shape no rule foresaw: report it, never fail the task
        walk.unknown[f"{INVALID_PLAN} ({type(error).__name__})"] = None
        return PlanColumnLineage(unknown_nodes=tuple(walk.unknown), optimized=optimized)
    names = list(output_names) if output_names is not None else [name for _, name in outputs]
    fields: dict[str, dict[SourceColumn, frozenset[Transformation]]] = {}
    for name, (ident, _) in zip(names, outputs, strict=False):
        columns = _columns(walk.attrs.get(ident, {}), walk.sources)
        text = walk.texts.get(ident)
        if text is not None:
            columns = _described(columns, clean(text))
        if name in fields:  # a duplicate output name: one entry with both columns' sources
            for column, kinds in columns.items():
                fields[name][column] = fields[name].get(column, frozenset()) | kinds
        else:
            fields[name] = columns
    dataset = _columns(sink, walk.sources)
    if walk.dataset_texts:
        dataset = _described_dataset(dataset, walk)
    return PlanColumnLineage(
        fields=fields,
        dataset=dataset,
        unknown_nodes=tuple(walk.unknown),
        optimized=optimized,
    )
