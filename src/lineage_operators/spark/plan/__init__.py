"""One execution's analyzed plan read into :mod:`~lineage_operators.spark.facts`: the reader and its
one-call batch, the root commands and the leaves, catalog lookups, ALTERs, v2 tables, scan
statistics and the compact plan JSON column lineage is computed from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.plan.reader import PlanReader

_EXPORTS = {
    "PlanReader": "lineage_operators.spark.plan.reader",
}

__all__ = [
    "PlanReader",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
