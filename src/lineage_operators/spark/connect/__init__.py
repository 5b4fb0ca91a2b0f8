"""The Spark Connect capture: the client's plans, taken by a gRPC interceptor, read into the same
:mod:`~lineage_operators.spark.facts` as the classic capture's; ``columns/`` translates them for
column lineage. No classic module is imported: the two captures sit side by side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.connect.capture import SparkConnectLineageCapture

_EXPORTS = {
    "SparkConnectLineageCapture": "lineage_operators.spark.connect.capture",
}

__all__ = [
    "SparkConnectLineageCapture",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
