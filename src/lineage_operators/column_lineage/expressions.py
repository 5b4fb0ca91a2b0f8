"""Expression rules: which attributes an expression reads, and how (OpenLineage transformation types).

Internally a transformation is a small int code (subtype ordinal as openlineage-spark's
``TransformationInfo.Subtypes``, plus 9 when masking) and a set of them an int bitmask, so the
lineage of an attribute is a plain ``{source exprId: bitmask}`` dict: cheap to copy, merge and shift.

Combining an outer transformation with an inner one follows openlineage-spark's
``TransformationInfo.merge``: an INDIRECT outer wins, else an INDIRECT inner wins, else the stronger
DIRECT one (AGGREGATION > TRANSFORMATION > IDENTITY); masking is kept if either side masks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from lineage_operators.column_lineage.conditionals import folded_if
from lineage_operators.column_lineage.plan_tree import Node, expr_id, parse_tree

# Subtype ordinals, in openlineage-spark's order (the merge compares them).
AGGREGATION, TRANSFORMATION, IDENTITY, CONDITIONAL, SORT, GROUP_BY, JOIN, FILTER, WINDOW = range(9)
SUBTYPES = (
    "AGGREGATION",
    "TRANSFORMATION",
    "IDENTITY",
    "CONDITIONAL",
    "SORT",
    "GROUP_BY",
    "JOIN",
    "FILTER",
    "WINDOW",
)
MASKING = 9  # added to a subtype code when the transformation masks the value
CODES = 2 * MASKING
IDENTITY_MASK = 1 << IDENTITY

Lineage = dict[int, int]  # source exprId -> bitmask of transformation codes


def is_direct(code: int) -> bool:
    return code % MASKING <= IDENTITY


def merge(outer: int, inner: int) -> int:
    """The transformation of a path ``outer`` then ``inner`` (see the module docstring)."""
    sub_outer, sub_inner = outer % MASKING, inner % MASKING
    if sub_outer > IDENTITY:
        subtype = sub_outer
    elif sub_inner > IDENTITY:
        subtype = sub_inner
    else:
        subtype = min(sub_outer, sub_inner)
    return subtype + (MASKING if outer >= MASKING or inner >= MASKING else 0)


_SHIFTED: dict[int, int] = {}


def shift(code: int, mask: int) -> int:
    """Every transformation of ``mask`` seen through the outer transformation ``code``."""
    key = code << CODES | mask
    result = _SHIFTED.get(key)
    if result is None:
        result, bits, inner = 0, mask, 0
        while bits:
            if bits & 1:
                result |= 1 << merge(code, inner)
            bits >>= 1
            inner += 1
        _SHIFTED[key] = result
    return result


def add_into(out: Lineage, code: int, lineage: Lineage | None) -> None:
    """``out |= lineage`` seen through ``code``."""
    if not lineage:
        return
    if code == IDENTITY:
        for source, mask in lineage.items():
            out[source] = out.get(source, 0) | mask
    else:
        for source, mask in lineage.items():
            out[source] = out.get(source, 0) | shift(code, mask)


def union(lineages: Iterable[Lineage | None]) -> Lineage:
    out: Lineage = {}
    for lineage in lineages:
        add_into(out, IDENTITY, lineage)
    return out


# openlineage-spark's ExpressionTraverser masking classes (Mask when the Spark version has it).
MASKING_CLASSES = frozenset(
    {"Crc32", "HiveHash", "Md5", "Murmur3Hash", "Sha1", "Sha2", "XxHash64", "Count", "Mask"}
)
# Window functions whose value only depends on the window's ordering (RankLike, RowNumberLike):
# their children (the ORDER BY expressions) are not read as values.
RANKING_CLASSES = frozenset({"Rank", "DenseRank", "PercentRank", "RowNumber", "CumeDist", "NTile"})
SUBQUERY_CLASSES = frozenset({"ScalarSubquery", "ListQuery", "Exists", "LateralSubquery"})
CAST_CLASSES = frozenset({"Cast", "UpCast"})
_WIDENING = {
    "byte": {"short", "integer", "long", "float", "double"},
    "short": {"integer", "long", "float", "double"},
    "integer": {"long", "double"},
    "float": {"double"},
}
_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)")
_INTEGRAL_DIGITS = {"byte": 3, "short": 5, "integer": 10, "long": 20}


def _keeps_value(source: Any, target: Any) -> bool:
    """Whether casting ``source`` to ``target`` (Spark JSON data types) loses nothing."""
    if source == target:
        return True
    if not isinstance(source, str) or not isinstance(target, str):
        return False
    if target in _WIDENING.get(source, ()):
        return True
    wide = _DECIMAL.fullmatch(target)
    if wide is None:
        return False
    precision, scale = int(wide.group(1)), int(wide.group(2))
    narrow = _DECIMAL.fullmatch(source)
    if narrow is not None:
        p, s = int(narrow.group(1)), int(narrow.group(2))
        return scale >= s and precision - scale >= p - s
    return precision - scale >= _INTEGRAL_DIGITS.get(source, precision + 1)


def cast_code(node: Node) -> int:
    """IDENTITY for an UpCast or a cast that keeps the value (same type, exact widening)."""
    if node.cls == "UpCast":
        return IDENTITY
    child = node.children[0] if node.children else None
    if (
        child is not None
        and child.cls == "AttributeReference"
        and _keeps_value(child.fields.get("dataType"), node.fields.get("dataType"))
    ):
        return IDENTITY
    return TRANSFORMATION


def child_codes(node: Node, fold_ifs: bool = True) -> list[tuple[Node, int]]:
    """Each child of a value-computing expression with how the result reads it (a subtype code);
    ``fold_ifs``: ``If(cond, x, x)`` is ``x``, as in the optimized plan (conditionals.py)."""
    cls, children = node.cls, node.children
    if cls == "Alias" or ("replacement" in node.fields and len(children) == 1):
        # RuntimeReplaceable (nvl, nullif, ...): its only child is what it evaluates to
        return [(child, IDENTITY) for child in children]
    if cls in CAST_CLASSES:
        code = cast_code(node)
        return [(child, code) for child in children]
    if cls == "CaseWhen":  # condition, value, condition, value, ... [else value]
        pairs = len(children) // 2 * 2
        return [
            (child, CONDITIONAL if index < pairs and index % 2 == 0 else TRANSFORMATION)
            for index, child in enumerate(children)
        ]
    folded = folded_if(node) if cls == "If" and fold_ifs else None
    if folded is not None:  # If(cond, x, x): the optimizer's plan reads x alone (conditionals.py)
        return [(folded, IDENTITY)]
    if cls in ("If", "NullIfResult", "PivotFirst"):  # predicate (or pivot column), then values
        return [
            (child, CONDITIONAL if index == 0 else TRANSFORMATION) for index, child in enumerate(children)
        ]
    if cls == "Coalesce":  # every argument is both tested and returned
        return [(child, code) for child in children for code in (CONDITIONAL, TRANSFORMATION)]
    if cls == "AggregateExpression":  # the function, then its FILTER (WHERE ...) clause if any
        return [(child, AGGREGATION if index == 0 else FILTER) for index, child in enumerate(children)]
    if cls == "WindowExpression":  # the function, then the window spec (PARTITION BY, ORDER BY)
        function = (
            [(children[0], TRANSFORMATION)] if children and children[0].cls not in RANKING_CLASSES else []
        )
        return function + [(child, WINDOW) for child in children[1:]]
    code = TRANSFORMATION + (MASKING if cls in MASKING_CLASSES else 0)
    return [(child, code) for child in children]


SubqueryWalker = Callable[[Node], tuple[list[Lineage], Lineage]]


class ExpressionEvaluator:
    """Collects the source lineage of expressions, resolving attributes through ``attrs``.

    ``subquery`` walks the plan of a subquery expression and returns the lineage of its output
    columns and its own dataset-wide dependencies (filters, joins... inside the subquery);
    ``fold_ifs``: read ``If(cond, x, x)`` as ``x`` (the optimized plan) or as written.
    """

    def __init__(self, attrs: dict[int, Lineage], subquery: SubqueryWalker, fold_ifs: bool = True) -> None:
        self.attrs = attrs
        self.subquery = subquery
        self.fold_ifs = fold_ifs

    def lineage(self, expr: Node | None, code: int = IDENTITY) -> Lineage:
        out: Lineage = {}
        if expr is not None:
            self.collect(expr, code, out)
        return out

    def collect(self, root: Node, code: int, out: Lineage) -> None:
        """Add into ``out`` every source ``root`` reads, seen through the outer ``code``."""
        stack: list[tuple[Node, int, Lineage | None]] = [(root, code, None)]
        while stack:
            node, ctx, common = stack.pop()
            cls = node.cls
            if cls == "AttributeReference":
                ident = expr_id(node)
                if ident is not None:
                    add_into(out, ctx, self.attrs.get(ident))
            elif cls == "Literal":
                continue
            elif cls == "OuterReference":  # a correlated subquery reading the outer query
                inner = parse_tree(node.fields.get("e"))
                if inner is not None:
                    stack.append((inner, ctx, common))
            elif cls in SUBQUERY_CLASSES:
                outputs, dataset = self.subquery(node)
                if cls != "Exists":  # EXISTS only reads its plan's conditions, not its columns
                    for lineage in outputs:
                        add_into(out, ctx, lineage)
                add_into(out, ctx, dataset)
            elif cls == "With":
                # With(body, CommonExpressionDef...): refs in the body stand for the defs' values
                children = node.children
                defs = union(self.lineage(d.children[0]) for d in children[1:] if d.children)
                if children:
                    stack.append((children[0], ctx, defs))
            elif cls == "CommonExpressionRef":
                add_into(out, ctx, common)
            else:
                stack.extend(
                    (child, merge(ctx, sub), common) for child, sub in child_codes(node, self.fold_ifs)
                )
