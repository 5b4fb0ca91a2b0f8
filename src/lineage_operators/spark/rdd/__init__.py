"""RDD-only jobs (no SQL execution): their input and output locations read from the RDD graph, and
the helper jobs Spark runs for a read (schema inference) named as the files the task read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.rdd.helper_reads import name_helper_reads
    from lineage_operators.spark.rdd.jobs import RddJobWatcher

_EXPORTS = {
    "RddJobWatcher": "lineage_operators.spark.rdd.jobs",
    "name_helper_reads": "lineage_operators.spark.rdd.helper_reads",
}

__all__ = [
    "RddJobWatcher",
    "name_helper_reads",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
