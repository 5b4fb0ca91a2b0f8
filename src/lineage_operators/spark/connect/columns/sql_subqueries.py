"""Subqueries inside SQL expressions (``x IN (SELECT ...)``, ``EXISTS (...)``, scalar ``(SELECT ...)``)
as Connect Relations, for :mod:`~lineage_operators.spark.connect.columns.sql_relation`.

Pure (sqlglot imported lazily). Each subquery is replaced in its expression by a placeholder call
``__lineage_<kind>_<n>(values...)`` and its query becomes a Relation with plan id ``n``; the
statement's relation is then wrapped in ``WithRelations`` (root + those references, the form
Connect uses for relations referenced from elsewhere in a plan). The translation
(:mod:`~lineage_operators.spark.connect.columns.plan_translate`) renders each placeholder as the
classic analyzer's expression holding the subquery's plan (``InSubquery`` over ``ListQuery``,
``Exists``, ``ScalarSubquery``), the subquery's columns of the outer query as ``OuterReference``:
the classic rules then read them as in a classic session.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

#: ``__lineage_<kind>_<plan id>``: the placeholder of one subquery in an expression.
PLACEHOLDER = re.compile(r"__lineage_(in|exists|scalar)_(\d+)")


def without_subqueries(node: Any, build: Callable[[Any], int]) -> Any:
    """A copy of ``node`` with each subquery a placeholder; ``build(query)`` maps the subquery's
    query to a Relation and returns the plan id it gave it."""
    from sqlglot import exp

    def swap(item: Any) -> Any:
        if isinstance(item, exp.In) and item.args.get("query") is not None:
            values = item.this.expressions if isinstance(item.this, exp.Tuple) else [item.this]
            ident = build(item.args["query"])
            return exp.Anonymous(this=f"__lineage_in_{ident}", expressions=[v.copy() for v in values])
        if isinstance(item, exp.Exists):
            return exp.Anonymous(this=f"__lineage_exists_{build(item.this)}", expressions=[])
        if isinstance(item, exp.Subquery):
            return exp.Anonymous(this=f"__lineage_scalar_{build(item)}", expressions=[])
        return item

    return node.transform(swap)


__all__ = ["PLACEHOLDER", "without_subqueries"]
