"""RDD-only jobs (no SQL execution): their input and output locations read from the RDD graph (the helper
jobs Spark runs for a read are named as the files the task read by a pass over the task's facts:
:func:`lineage_operators.spark.passes.name_helper_reads`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.rdd.jobs import RddJobWatcher

_EXPORTS = {
    "RddJobWatcher": "lineage_operators.spark.rdd.jobs",
}

__all__ = [
    "RddJobWatcher",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
