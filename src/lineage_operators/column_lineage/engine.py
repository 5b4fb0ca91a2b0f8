"""The plan engine: analyzed-plan JSON -> each output column's source columns, with transformations.

One bottom-up pass over the plan (children first, iteratively, so deep plans are fine). Every node
class has a rule that derives its output attributes (the JSON only lists the leaves' outputs) and
records, for each attribute it creates, the lineage ``{source exprId: transformations}`` of that
attribute; dataset-wide dependencies (filters, join conditions, grouping, sorting) go to a separate
sink. Attributes are looked up by ``exprId``, so an attribute created once is never re-walked: the
work is linear in the plan size (times the number of sources a column depends on).

Semantics follow openlineage-spark's column lineage, which walks the *optimized* plan; where the
optimizer changes what it would see, the rule emulates it: ``IS NOT NULL`` inferred on join keys
(FILTER), DISTINCT as GROUP BY (not over a UNION), dropDuplicates as GROUP BY keys + first()
(AGGREGATION), INTERSECT/EXCEPT as a semi/anti join on every column. Window PARTITION/ORDER BY
stays on the column (WINDOW), as openlineage-spark reports it. Deliberately better than it:

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
from collections.abc import Callable, Sequence
from typing import Any

from lineage_operators.column_lineage import (
    DIRECT,
    INDIRECT,
    PlanColumnLineage,
    SourceColumn,
    Transformation,
)
from lineage_operators.column_lineage.expressions import (
    AGGREGATION,
    CODES,
    FILTER,
    GROUP_BY,
    IDENTITY_MASK,
    JOIN,
    MASKING,
    SORT,
    SUBTYPES,
    ExpressionEvaluator,
    Lineage,
    add_into,
    is_direct,
    shift,
    union,
)
from lineage_operators.column_lineage.plan_tree import (
    Node,
    attribute_list,
    expr_field,
    expr_id,
    expr_list_field,
    head_class,
    name_of,
    object_name,
    parse_tree,
    raw_attribute,
)

INVALID_PLAN = "<invalid plan JSON>"
"""Listed in ``unknown_nodes`` (with nothing else computed) when the JSON is not a plan at all."""

Attr = tuple[int, str]  # an output attribute: exprId, name

# Nodes whose output is their (first) child's output, with nothing to record.
PASS_THROUGH = frozenset(
    {
        "SubqueryAlias",
        "View",
        "Subquery",
        "ReturnAnswer",
        "GlobalLimit",
        "LocalLimit",
        "Limit",
        "Offset",
        "Tail",
        "Sample",
        "Repartition",
        "RepartitionByExpression",
        "RebalancePartitions",
        "ResolvedHint",
        "EventTimeWatermark",
        "CollectMetrics",
        "WithWindowDefinition",
        "AnalysisBarrier",
    }
)
# Leaves whose "output" field lists source columns (any other leaf with an output field is too).
EMPTY_LEAVES = frozenset({"OneRowRelation"})
# Write commands: the written rows are their "query" field (a nested plan) or their only child.
# Anything named *Command or *AsSelect is unwrapped the same way.
WRITE_NODES = frozenset(
    {
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
    }
)
# Join types after which only the left side's columns are output.
LEFT_ONLY_JOINS = frozenset({"LeftSemi", "LeftAnti"})
# Expressions through which a null input gives a null result: a join condition built from them
# makes Spark's optimizer add ``IS NOT NULL`` filters (InferFiltersFromConstraints).
NULL_INTOLERANT = frozenset(
    {
        "EqualTo",
        "LessThan",
        "LessThanOrEqual",
        "GreaterThan",
        "GreaterThanOrEqual",
        "Not",
        "IsNotNull",
        "Add",
        "Subtract",
        "Multiply",
        "Divide",
        "Remainder",
        "Pmod",
        "UnaryMinus",
        "Abs",
        "Cast",
    }
)
_TRANSPARENT_FOR_CHECKS = frozenset({"SubqueryAlias", "View", "ResolvedHint"})


class _Walk:
    """State of one :func:`lineage_of_plan` call."""

    def __init__(self) -> None:
        self.attrs: dict[int, Lineage] = {}
        self.sources: dict[int, SourceColumn] = {}
        self.cte_outputs: dict[Any, list[Attr]] = {}
        self.loop_outputs: dict[Any, list[Lineage]] = {}
        self.loop_budget = _LOOP_BUDGET
        self.unknown: dict[str, None] = {}
        self.exprs = ExpressionEvaluator(self.attrs, self._subquery)
        self.rules: dict[str, Callable[[Node, list[list[Attr]], Lineage], list[Attr]]] = {
            "Project": self._project,
            "Aggregate": self._aggregate,
            "Window": self._window,
            "Filter": self._filter,
            "Sort": self._sort,
            "Join": self._join,
            "LateralJoin": self._lateral_join,
            "Union": self._union,
            "Intersect": self._set_operation,
            "Except": self._set_operation,
            "Distinct": self._distinct,
            "Deduplicate": self._deduplicate,
            "DeduplicateWithinWatermark": self._deduplicate,
            "Generate": self._generate,
            "Expand": self._expand,
            "WithCTE": self._with_cte,
            "CTERelationDef": self._cte_def,
            "CTERelationRef": self._cte_ref,
            "UnionLoop": self._union_loop,
            "UnionLoopRef": self._union_loop_ref,
            "HiveTableRelation": self._hive_relation,
        }

    # -- traversal -------------------------------------------------------------------------------

    def walk(self, root: Node, sink: Lineage) -> list[Attr]:
        """Output attributes of ``root``; dataset-wide dependencies of the plan go to ``sink``."""
        done: dict[int, list[Attr]] = {}
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if not expanded:
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(node.children))
                continue
            inputs = [done.pop(id(child), []) for child in node.children]
            done[id(node)] = self._node(node, inputs, sink)
        return done.get(id(root), [])

    def _node(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        rule = self.rules.get(node.cls)
        if rule is not None:
            return rule(node, inputs, sink)
        if node.cls in PASS_THROUGH:
            return inputs[0] if inputs else []
        if not node.children:
            return self._leaf(node)
        # Unknown operator: best effort, its declared output or its child's output.
        self.unknown[node.cls] = None
        declared = self._attrs_field(node, "output")
        if declared or "output" in node.fields:
            return declared
        return inputs[0] if len(inputs) == 1 else [attr for attrs in inputs for attr in attrs]

    def _subquery(self, expr: Node) -> tuple[list[Lineage], Lineage]:
        plan = parse_tree(expr.fields.get("plan"))
        if plan is None:
            self.unknown[expr.cls] = None
            return [], {}
        sink: Lineage = {}
        outputs = self.walk(plan, sink)
        return [self.attrs.get(ident, {}) for ident, _ in outputs], sink

    # -- helpers ---------------------------------------------------------------------------------

    @staticmethod
    def _attrs_field(node: Node, field: str) -> list[Attr]:
        return attribute_list(node.fields.get(field))

    def _register_sources(self, attrs: list[Attr]) -> list[Attr]:
        for ident, name in attrs:
            self.sources[ident] = SourceColumn(ident, name)
            self.attrs[ident] = {ident: IDENTITY_MASK}
        return attrs

    def _named(self, node: Node, field: str) -> list[Attr]:
        """Output attributes of a project list; each alias gets the lineage of its child."""
        out = []
        value = node.fields.get(field)
        for items in value if isinstance(value, list) else ():
            cls = head_class(items)
            if cls == "AttributeReference":  # most entries: no tree to build
                attr = raw_attribute(items)
                if attr is not None:
                    out.append(attr)
            elif cls == "Alias":
                expr = parse_tree(items)
                ident = expr_id(expr) if expr is not None else None
                if expr is not None and ident is not None:
                    self.attrs[ident] = self.exprs.lineage(expr)
                    out.append((ident, name_of(expr)))
        return out

    def _attr_lineage(self, attrs: list[Attr], code: int, sink: Lineage) -> None:
        for ident, _ in attrs:
            add_into(sink, code, self.attrs.get(ident))

    @staticmethod
    def _first_child_class(node: Node) -> str:
        child = node.children[0] if node.children else None
        while child is not None and child.cls in _TRANSPARENT_FOR_CHECKS and child.children:
            child = child.children[0]
        return child.cls if child is not None else ""

    # -- leaves ----------------------------------------------------------------------------------

    def _leaf(self, node: Node) -> list[Attr]:
        if node.cls in EMPTY_LEAVES:
            return []
        if "output" not in node.fields:
            self.unknown[node.cls] = None
            return []
        return self._register_sources(self._attrs_field(node, "output"))

    def _hive_relation(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        attrs = self._attrs_field(node, "dataCols") + self._attrs_field(node, "partitionCols")
        return self._register_sources(attrs)

    # -- operators -------------------------------------------------------------------------------

    def _project(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        return self._named(node, "projectList")

    def _aggregate(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        grouping = expr_list_field(node, "groupingExpressions")
        outputs = self._named(node, "aggregateExpressions")
        # openlineage-spark skips GROUP BY over a UNION that groups by every output (UNION DISTINCT)
        grouped = {expr_id(expr) for expr in grouping if expr.cls == "AttributeReference"}
        if not (self._first_child_class(node) == "Union" and {i for i, _ in outputs} <= grouped):
            for expr in grouping:
                self.exprs.collect(expr, GROUP_BY, sink)
        return outputs

    def _window(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        child = inputs[0] if inputs else []
        return child + self._named(node, "windowExpressions")

    def _filter(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        condition = expr_field(node, "condition")
        if condition is not None:
            self.exprs.collect(condition, FILTER, sink)
        return inputs[0] if inputs else []

    def _sort(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        for order in expr_list_field(node, "order"):
            self.exprs.collect(order, SORT, sink)
        return inputs[0] if inputs else []

    def _join(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        left = inputs[0] if inputs else []
        right = inputs[1] if len(inputs) > 1 else []
        kind = object_name(node.fields.get("joinType"))
        condition = expr_field(node, "condition")
        if condition is not None:
            self.exprs.collect(condition, JOIN, sink)
            self._inferred_not_null(condition, kind, left, right, sink)
        if kind in LEFT_ONLY_JOINS:
            return left
        if kind == "ExistenceJoin":  # only made by the optimizer; its flag column has no source
            join_type = node.fields.get("joinType")
            exists = parse_tree(join_type.get("exists")) if isinstance(join_type, dict) else None
            ident = expr_id(exists) if exists is not None else None
            return left + ([] if exists is None or ident is None else [(ident, name_of(exists))])
        return left + right

    def _inferred_not_null(
        self, condition: Node, kind: str, left: list[Attr], right: list[Attr], sink: Lineage
    ) -> None:
        """Emulate the optimizer's ``IS NOT NULL`` filters on join keys (FILTER, as OL reports).

        InferFiltersFromConstraints adds them for attributes read through null-intolerant
        expressions of the condition: on both sides of inner/cross/semi joins, on the right side
        of left outer/anti joins, on the left side of right outer joins, none for full outer.
        """
        if kind in ("Inner", "Cross", "LeftSemi"):
            sides = {i for i, _ in left} | {i for i, _ in right}
        elif kind in ("LeftOuter", "LeftAnti"):
            sides = {i for i, _ in right}
        elif kind == "RightOuter":
            sides = {i for i, _ in left}
        else:
            return
        stack = [condition]
        while stack:
            expr = stack.pop()
            if expr.cls == "And":
                stack.extend(expr.children)
                continue
            scan = [expr]
            while scan:
                item = scan.pop()
                if item.cls == "AttributeReference":
                    ident = expr_id(item)
                    if ident in sides:
                        add_into(sink, FILTER, self.attrs.get(ident))
                elif item.cls in NULL_INTOLERANT:
                    scan.extend(item.children)

    def _lateral_join(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        left = inputs[0] if inputs else []
        subquery = expr_field(node, "right")
        right: list[Attr] = []
        plan = parse_tree(subquery.fields.get("plan")) if subquery is not None else None
        if plan is None:
            self.unknown[node.cls] = None
        else:
            right = self.walk(plan, sink)
        condition = expr_field(node, "condition")
        if condition is not None:
            self.exprs.collect(condition, JOIN, sink)
        return left + right

    def _union(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """Column i of a union is column i of its first child, fed by column i of every child."""
        if not inputs:
            return []
        first = inputs[0]
        merged = [
            union(self.attrs.get(attrs[i][0]) for attrs in inputs if i < len(attrs))
            for i in range(len(first))
        ]
        for (ident, _), lineage in zip(first, merged, strict=True):
            self.attrs[ident] = lineage
        return first

    def _set_operation(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """INTERSECT / EXCEPT: the optimizer turns them into a semi/anti join on every column
        (JOIN on both sides' columns) under a DISTINCT (GROUP BY the left side's columns)."""
        left = inputs[0] if inputs else []
        for attrs in inputs:
            self._attr_lineage(attrs, JOIN, sink)
        if node.fields.get("isAll") is not True:
            self._attr_lineage(left, GROUP_BY, sink)
        return left

    def _distinct(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """DISTINCT becomes an Aggregate grouping by every column (not reported over a UNION)."""
        child = inputs[0] if inputs else []
        if self._first_child_class(node) != "Union":
            self._attr_lineage(child, GROUP_BY, sink)
        return child

    def _deduplicate(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """dropDuplicates(keys) becomes GROUP BY keys with first() of every other column."""
        child = inputs[0] if inputs else []
        keys = {expr_id(key) for key in expr_list_field(node, "keys")}
        for ident, _ in child:
            lineage = self.attrs.get(ident)
            if ident in keys:
                add_into(sink, GROUP_BY, lineage)
            elif lineage:
                self.attrs[ident] = {src: shift(AGGREGATION, mask) for src, mask in lineage.items()}
        return child

    def _generate(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """Every generator output (explode's value, posexplode's pos...) reads all its inputs."""
        child = inputs[0] if inputs else []
        dropped = node.fields.get("unrequiredChildIndex")
        if isinstance(dropped, list) and dropped:
            child = [attr for index, attr in enumerate(child) if index not in dropped]
        lineage = self.exprs.lineage(expr_field(node, "generator"))
        generated = self._attrs_field(node, "generatorOutput")
        for ident, _ in generated:
            self.attrs[ident] = lineage
        return child + generated

    def _expand(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """GROUPING SETS / ROLLUP / CUBE: output i takes expression i of every projection."""
        output = self._attrs_field(node, "output")
        projections = node.fields.get("projections")
        rows = [
            [parse_tree(item) for item in row]
            for row in (projections if isinstance(projections, list) else [])
            if isinstance(row, list)
        ]
        merged = [
            union(self.exprs.lineage(row[i]) for row in rows if i < len(row)) for i in range(len(output))
        ]
        for (ident, _), lineage in zip(output, merged, strict=True):
            self.attrs[ident] = lineage
        return output

    def _with_cte(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        index = node.fields.get("plan")
        if isinstance(index, int) and 0 <= index < len(inputs):
            return inputs[index]
        return inputs[-1] if inputs else []

    def _cte_def(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        child = inputs[0] if inputs else []
        self.cte_outputs[_hashable(node.fields.get("id"))] = child
        return child

    def _cte_ref(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """A CTE reference's columns are, by position, the definition's output columns."""
        output = self._attrs_field(node, "output")
        definition = self.cte_outputs.get(_hashable(node.fields.get("cteId")))
        if definition is None:
            self.unknown[node.cls] = None
            return output
        for (ident, _), (source, _) in zip(output, definition, strict=False):
            self.attrs[ident] = self.attrs.get(source, {})
        return output

    def _union_loop(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """WITH RECURSIVE: column i is column i of the anchor or of the recursion, whose reference
        to the loop reads the loop's own columns: re-walk the recursion until that settles."""
        anchor = inputs[0] if inputs else []
        ids = node.fields.get("outputAttrIds")
        idents = [item.get("id") if isinstance(item, dict) else None for item in _as_list(ids)]
        output = [
            (ident, name) for ident, (_, name) in zip(idents, anchor, strict=False) if type(ident) is int
        ]
        loop = _hashable(node.fields.get("id"))
        current = [self.attrs.get(ident, {}) for ident, _ in anchor]
        recursion = inputs[1] if len(inputs) > 1 else []  # walked once, the loop still unknown
        for rounds in range(_LOOP_ROUNDS):
            merged = [
                union([lineage, self.attrs.get(recursion[i][0]) if i < len(recursion) else None])
                for i, lineage in enumerate(current)
            ]
            if merged == current and rounds:
                break
            current = merged
            if self.loop_budget <= 0 or len(node.children) < 2:  # nested loops: bounded work
                break
            self.loop_budget -= 1
            self.loop_outputs[loop] = current
            recursion = self.walk(node.children[1], sink)
        for (ident, _), lineage in zip(output, current, strict=False):
            self.attrs[ident] = lineage
        return output

    def _union_loop_ref(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        output = self._attrs_field(node, "output")
        loop = self.loop_outputs.get(_hashable(node.fields.get("loopId")), [])
        for index, (ident, _) in enumerate(output):
            self.attrs[ident] = loop[index] if index < len(loop) else {}
        return output


_LOOP_ROUNDS = 5  # lineage of a recursive CTE settles in two or three rounds (finite types)
_LOOP_BUDGET = 32  # re-walks of recursions per plan


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (int, str)) else json.dumps(value, sort_keys=True)


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


def lineage_of_plan(
    plan_json: str | list[Any], output_names: Sequence[str] | None = None
) -> PlanColumnLineage:
    """See :mod:`lineage_operators.column_lineage`. Never raises."""
    # A plan's JSON is millions of acyclic objects: the cyclic garbage collector's passes over
    # them are pure cost (they halve the time on the benchmark's plan), so pause it meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _lineage_of_plan(plan_json, output_names)
    finally:
        if collecting:
            gc.enable()


def _lineage_of_plan(plan_json: str | list[Any], output_names: Sequence[str] | None) -> PlanColumnLineage:
    try:
        items = json.loads(plan_json) if isinstance(plan_json, (str, bytes)) else plan_json
        root = parse_tree(items)
    except (ValueError, TypeError, RecursionError):
        root = None
    if root is None:
        return PlanColumnLineage(unknown_nodes=(INVALID_PLAN,))
    walk = _Walk()
    try:
        sink: Lineage = {}
        outputs = walk.walk(_query_of(root), sink)
    except Exception as error:  # a plan shape no rule foresaw: report it, never fail the task
        walk.unknown[f"{INVALID_PLAN} ({type(error).__name__})"] = None
        return PlanColumnLineage(unknown_nodes=tuple(walk.unknown))
    names = list(output_names) if output_names is not None else [name for _, name in outputs]
    fields: dict[str, dict[SourceColumn, frozenset[Transformation]]] = {}
    for name, (ident, _) in zip(names, outputs, strict=False):
        columns = _columns(walk.attrs.get(ident, {}), walk.sources)
        if name in fields:  # a duplicate output name: one entry with both columns' sources
            for column, kinds in columns.items():
                fields[name][column] = fields[name].get(column, frozenset()) | kinds
        else:
            fields[name] = columns
    return PlanColumnLineage(
        fields=fields,
        dataset=_columns(sink, walk.sources),
        unknown_nodes=tuple(walk.unknown),
    )
