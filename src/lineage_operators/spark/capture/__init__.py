"""The task's capture: the classic life cycle (start, hand over, drain, stop), the chooser between
the classic and the Spark Connect capture, and the automatic capture of unmodified tasks
(:mod:`.automatic`, imported as a module: the plugin checks whether it was ever imported).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.capture.chooser import LineageCapture, is_connect_session, new_capture
    from lineage_operators.spark.capture.classic import SparkLineageCapture

_EXPORTS = {
    "new_capture": "lineage_operators.spark.capture.chooser",
    "is_connect_session": "lineage_operators.spark.capture.chooser",
    "LineageCapture": "lineage_operators.spark.capture.chooser",
    "SparkLineageCapture": "lineage_operators.spark.capture.classic",
}

__all__ = [
    "LineageCapture",
    "SparkLineageCapture",
    "is_connect_session",
    "new_capture",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
