"""``If(cond, x, x)`` is just ``x``: Spark's optimizer rule ``SimplifyConditionals``, emulated.

Why it matters: a copy-on-write UPDATE on a V2 table (Iceberg) is rewritten by Spark into a
``ReplaceData`` whose query rewrites every column of the affected rows as
``If(<WHERE condition>, <SET value>, <column>)``; for the columns the UPDATE does not set, the value
is the column itself: ``If(id = 1, w, w)``. openlineage-spark walks the *optimized* plan, where
``SimplifyConditionals`` has already folded those into the plain column, so it reports such a column
as an IDENTITY of itself with no CONDITIONAL dependency on the WHERE columns. Read on the analyzed
plan, the ``If`` would make every untouched column a TRANSFORMATION depending on the condition.

Spark folds only when both branches are semantically equal and the whole expression is
deterministic (``semanticEquals`` requires it): branches compare by structure, attributes by
``exprId`` (names and qualifiers do not matter), as Spark's canonical form compares them.
"""

from __future__ import annotations

from lineage_operators.column_lineage.plan_tree import Node, expr_id

#: Expressions whose value differs per evaluation (Spark's ``Nondeterministic`` ones, and UDFs
#: declared so): an ``If`` containing one is never folded.
NONDETERMINISTIC = frozenset(
    {
        "Rand",
        "Randn",
        "Uniform",
        "RandStr",
        "Uuid",
        "Shuffle",
        "MonotonicallyIncreasingID",
        "SparkPartitionID",
        "InputFileName",
        "InputFileBlockStart",
        "InputFileBlockLength",
        "CurrentBatchTimestamp",
        "PythonUDF",
        "ScalaUDF",
    }
)
#: Fields that are not part of an expression's value (Spark's canonical form drops them).
_COSMETIC = frozenset({"name", "qualifier", "num-children", "metadata", "nullable"})


def _deterministic(root: Node) -> bool:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.cls in NONDETERMINISTIC:
            return False
        stack.extend(node.children)
    return True


def same_value(left: Node, right: Node) -> bool:
    """Whether two expression trees compute the same value (attributes by ``exprId``)."""
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        if a.cls != b.cls or len(a.children) != len(b.children):
            return False
        if a.cls == "AttributeReference":
            ident = expr_id(a)
            if ident is None or ident != expr_id(b):
                return False
            continue
        fields_a = {k: v for k, v in a.fields.items() if k not in _COSMETIC}
        fields_b = {k: v for k, v in b.fields.items() if k not in _COSMETIC}
        if fields_a != fields_b:
            return False
        stack.extend(zip(a.children, b.children, strict=True))
    return True


def folded_if(node: Node) -> Node | None:
    """The branch an ``If(cond, x, x)`` folds to, or None when Spark would keep the ``If``."""
    if node.cls != "If" or len(node.children) != 3:
        return None
    _, then, otherwise = node.children
    if not same_value(then, otherwise) or not _deterministic(node):
        return None
    return then


__all__ = ["NONDETERMINISTIC", "folded_if", "same_value"]
