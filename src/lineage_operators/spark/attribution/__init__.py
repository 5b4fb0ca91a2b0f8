"""Which task an execution belongs to: the job tags a capture puts on its threads
(:mod:`.ownership`, shared by the classic and the Connect capture) and the classic rule over
Spark's status stores (:mod:`.classic`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.attribution.classic import attributed, claim_task_threads

_EXPORTS = {
    "attributed": "lineage_operators.spark.attribution.classic",
    "claim_task_threads": "lineage_operators.spark.attribution.classic",
}

__all__ = [
    "attributed",
    "claim_task_threads",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
