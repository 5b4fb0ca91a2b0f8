"""The plan walk: one rule per plan node class, each deriving the node's output attributes.

The JSON lists only the leaves' outputs; every other node's output is derived here from its class
(a Project's list, a Join's two sides...). Each rule records the lineage of the attributes it
creates (``{source exprId: transformation bitmask}``) in ``attrs`` and puts dataset-wide
dependencies (filters, join conditions, grouping, sorting) in the sink it is given. The semantics,
and where they emulate Spark's optimizer, are described in engine.py.

Size: one rule per plan node class openlineage-spark knows, over one shared walk state;
splitting the rules from the walk would only scatter the table of node classes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lineage_operators.column_lineage.expressions import (
    AGGREGATION,
    CAST_CLASSES,
    CONDITIONAL,
    FILTER,
    GROUP_BY,
    IDENTITY,
    IDENTITY_MASK,
    JOIN,
    SORT,
    ExpressionEvaluator,
    Lineage,
    add_into,
    cast_code,
    shift,
    union,
)
from lineage_operators.column_lineage.lineage import (
    SourceColumn,
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

Attr = tuple[int, str]  # an output attribute: exprId, name

# Nodes whose output is their (first) child's output, with nothing to record.
PASS_THROUGH = frozenset(
    [
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
    ]
)
# Leaves whose "output" field lists source columns (any other leaf with an output field is too).
EMPTY_LEAVES = frozenset({"OneRowRelation"})
# Join types after which only the left side's columns are output.
LEFT_ONLY_JOINS = frozenset({"LeftSemi", "LeftAnti"})
# Expressions through which a null input gives a null result: a join condition built from them
# makes Spark's optimizer add ``IS NOT NULL`` filters (InferFiltersFromConstraints).
NULL_INTOLERANT = frozenset(
    [
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
    ]
)
#: Spark's ``JoinType.sql`` of the join type objects (descriptions: ``INNER JOIN ON ...``).
_JOIN_SQL = {
    "Inner": "INNER",
    "Cross": "CROSS",
    "LeftOuter": "LEFT OUTER",
    "RightOuter": "RIGHT OUTER",
    "FullOuter": "FULL OUTER",
    "LeftSemi": "LEFT SEMI",
    "LeftAnti": "LEFT ANTI",
}
_TRANSPARENT_FOR_CHECKS = frozenset({"SubqueryAlias", "View", "ResolvedHint"})


#: Generators of one row per element: a null or empty collection yields no row (Spark's
#: ``InferFiltersFromGenerate`` infers filters under them: ``ExplodeBase`` and ``Inline``).
_ROW_DROPPING_GENERATORS = frozenset({"Explode", "PosExplode", "Inline"})
#: Collections built in the query itself: never null, their size known; the filter inferred on a
#: column holding one is simplified away once pushed down to the expression.
_COLLECTION_BUILDERS = frozenset({"CreateArray", "CreateMap", "CreateNamedStruct"})


class PlanWalk:
    """State of one :func:`lineage_of_plan` call."""

    def __init__(self, optimized: bool = True) -> None:
        #: Emulate what Spark's optimizer changes (openlineage-spark reads most writes' optimized
        #: plan); False: the analyzed plan as it is (its view of a V1 CTAS command, engine.py).
        self.optimized = optimized
        self.attrs: dict[int, Lineage] = {}
        self.sources: dict[int, SourceColumn] = {}
        self.cte_outputs: dict[Any, list[Attr]] = {}
        self.loop_outputs: dict[Any, list[Lineage]] = {}
        self.loop_budget = _LOOP_BUDGET
        self.unknown: dict[str, None] = {}
        # Descriptions (only when the plan JSON carries expression texts, "sql"): an attribute's
        # defining expression, and the dataset-wide dependencies of the root plan with their text.
        self.texts: dict[int, str] = {}
        self.computed: set[int] = set()  # attributes whose text is an alias's (not a bare column)
        self.built: set[int] = set()  # attributes holding a collection built in the query (array(...))
        self.dataset_texts: list[tuple[str, Lineage]] = []
        self.root_sink: Lineage | None = None
        self.exprs = ExpressionEvaluator(self.attrs, self._subquery, fold_ifs=optimized)
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
            "MergeRows": self._merge_rows,
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
                    text = items[0].get("sql")
                    if type(text) is str:  # a bare column keeps the text of what made it, if any
                        self.texts.setdefault(attr[0], text)
            elif cls == "Alias":
                expr = parse_tree(items)
                ident = expr_id(expr) if expr is not None else None
                if expr is not None and ident is not None:
                    self.attrs[ident] = self.exprs.lineage(expr)
                    out.append((ident, name_of(expr)))
                    if self._is_built(expr.children[0] if expr.children else None):
                        self.built.add(ident)
                    text = expr.fields.get("sql")
                    if type(text) is str:
                        self.texts[ident] = self._inherited_text(expr) or text
                        self.computed.add(ident)
        return out

    def _inherited_text(self, alias: Node) -> str | None:
        """A renamed attribute (or one cast without change) keeps the text of its own expression:
        ``total AS t`` over ``sum(amount) AS total`` is described as ``sum(amount)``."""
        child = alias.children[0] if alias.children else None
        while child is not None and child.cls in CAST_CLASSES and cast_code(child) == IDENTITY:
            child = child.children[0] if child.children else None
        if child is None or child.cls != "AttributeReference":
            return None
        ident = expr_id(child)
        return self.texts.get(ident) if ident in self.computed else None

    def _collect(
        self, exprs: list[Node], code: int, sink: Lineage, clause: str, separator: str = ", "
    ) -> None:
        """Dataset-wide dependencies of one clause's expressions; with their texts, kept apart too,
        described as openlineage-spark does: ``clause`` formatted with the joined texts
        (``WHERE (a > 1)``, ``GROUP BY a, b``, ``INNER JOIN ON (a = b)``, ``SORT BY a ASC...``)."""
        texts = [text for text in (expr.fields.get("sql") for expr in exprs) if type(text) is str]
        if sink is not self.root_sink or not exprs or len(texts) != len(exprs):
            for expr in exprs:
                self.exprs.collect(expr, code, sink)
            return
        part: Lineage = {}
        for expr in exprs:
            self.exprs.collect(expr, code, part)
        add_into(sink, IDENTITY, part)
        self.dataset_texts.append((clause.format(separator.join(texts)), part))

    def _attr_lineage(self, attrs: list[Attr], code: int, sink: Lineage) -> None:
        for ident, _ in attrs:
            add_into(sink, code, self.attrs.get(ident))

    def _is_built(self, expr: Node | None) -> bool:
        """Whether ``expr`` is a collection built in the query (through casts and renames)."""
        while expr is not None and expr.cls in CAST_CLASSES and expr.children:
            expr = expr.children[0]
        if expr is None:
            return False
        if expr.cls == "AttributeReference":
            return expr_id(expr) in self.built
        return expr.cls in _COLLECTION_BUILDERS

    def _infers_filter(self, node: Node, generator: Node | None) -> bool:
        """Whether Spark's optimizer puts a filter under this ``Generate`` (InferFiltersFromGenerate):
        a generator that drops the rows of a null or empty collection, not ``OUTER``, reading a
        column (an attribute: Spark infers nothing for an expression such as ``split(a, ' ')``)
        that does not hold a collection built in the query (its filter is simplified away)."""
        if not self.optimized or generator is None or node.fields.get("outer") is True:
            return False
        if generator.cls not in _ROW_DROPPING_GENERATORS or len(generator.children) != 1:
            return False
        collection = generator.children[0]
        return collection.cls == "AttributeReference" and not self._is_built(collection)

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
            self._collect(grouping, GROUP_BY, sink, "GROUP BY {}")
        return outputs

    def _window(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        child = inputs[0] if inputs else []
        return child + self._named(node, "windowExpressions")

    def _filter(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        condition = expr_field(node, "condition")
        if condition is not None:
            self._collect([condition], FILTER, sink, "WHERE {}")
        return inputs[0] if inputs else []

    def _sort(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        self._collect(expr_list_field(node, "order"), SORT, sink, "SORT BY {}", ";")
        return inputs[0] if inputs else []

    def _join(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        left = inputs[0] if inputs else []
        right = inputs[1] if len(inputs) > 1 else []
        kind = object_name(node.fields.get("joinType"))
        condition = expr_field(node, "condition")
        if condition is not None:
            self._collect([condition], JOIN, sink, _JOIN_SQL.get(kind, kind.upper()) + " JOIN ON {}")
            if self.optimized:
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
            self._collect([condition], JOIN, sink, "LATERAL JOIN ON {}")
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
        if not self.optimized:
            return left
        for attrs in inputs:
            self._attr_lineage(attrs, JOIN, sink)
        if node.fields.get("isAll") is not True:
            self._attr_lineage(left, GROUP_BY, sink)
        return left

    def _distinct(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """DISTINCT becomes an Aggregate grouping by every column (not reported over a UNION)."""
        child = inputs[0] if inputs else []
        if self.optimized and self._first_child_class(node) != "Union":
            self._attr_lineage(child, GROUP_BY, sink)
        return child

    def _deduplicate(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """dropDuplicates(keys) becomes GROUP BY keys with first() of every other column."""
        child = inputs[0] if inputs else []
        if not self.optimized:
            return child
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
        generator = expr_field(node, "generator")
        lineage = self.exprs.lineage(generator)
        if generator is not None and self._infers_filter(node, generator):
            # the optimizer filters out the rows whose collection is null or empty: the
            # collection's columns decide which rows go on, as openlineage-spark reports
            self.exprs.collect(generator, FILTER, sink)
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

    def _merge_rows(self, node: Node, inputs: list[list[Attr]], sink: Lineage) -> list[Attr]:
        """MERGE INTO's row rewrite (Spark 3.4+, under ``ReplaceData``/``WriteDelta``): output i takes
        output expression i of every instruction (``Keep``; ``Split`` holds two rows); the WHEN
        conditions choose the rows written: CONDITIONAL dataset dependencies."""
        output = self._attrs_field(node, "output")
        rows: list[list[Node]] = []
        instructions = (
            node.fields.get("matchedInstructions"),
            node.fields.get("notMatchedInstructions"),
            node.fields.get("notMatchedBySourceInstructions"),
        )
        for field in instructions:
            for item in _as_list(field):
                instruction = parse_tree(item)
                if instruction is None or not instruction.children:
                    continue
                condition, *values = instruction.children
                self.exprs.collect(condition, CONDITIONAL, sink)
                if instruction.cls.endswith("Split") and len(values) == 2 * len(output):
                    rows += [values[: len(output)], values[len(output) :]]
                elif values:
                    rows.append(values)
        for index, (ident, _) in enumerate(output):
            self.attrs[ident] = union(self.exprs.lineage(row[index]) for row in rows if index < len(row))
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
