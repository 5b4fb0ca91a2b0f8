"""Table formats read beside the plan: Iceberg tables (snapshot, catalog facet, symlink) and the
memory of the tables a capture saw, for the DROP that comes after them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.tables.memory import TableMemory

_EXPORTS = {
    "TableMemory": "lineage_operators.spark.tables.memory",
}

__all__ = [
    "TableMemory",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
