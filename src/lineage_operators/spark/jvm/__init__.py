"""The py4j bridge of the classic capture: functions built (or compiled from ``java/``) in the driver's
JVM so that a whole plan crosses py4j in one reply, and the differences between Spark lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.jvm.handles import release
    from lineage_operators.spark.jvm.spark_line import SparkLine
    from lineage_operators.spark.jvm.text import (
        CTSEP,
        NONE,
        PART,
        RSEP,
        SEP,
        SEP2,
        SEP3,
        split_list,
        split_records,
    )
    from lineage_operators.spark.jvm.tools import JvmTools

_EXPORTS = {
    "JvmTools": "lineage_operators.spark.jvm.tools",
    "SparkLine": "lineage_operators.spark.jvm.spark_line",
    "release": "lineage_operators.spark.jvm.handles",
    "NONE": "lineage_operators.spark.jvm.text",
    "SEP": "lineage_operators.spark.jvm.text",
    "SEP2": "lineage_operators.spark.jvm.text",
    "SEP3": "lineage_operators.spark.jvm.text",
    "RSEP": "lineage_operators.spark.jvm.text",
    "CTSEP": "lineage_operators.spark.jvm.text",
    "PART": "lineage_operators.spark.jvm.text",
    "split_records": "lineage_operators.spark.jvm.text",
    "split_list": "lineage_operators.spark.jvm.text",
}

__all__ = [
    "CTSEP",
    "NONE",
    "PART",
    "RSEP",
    "SEP",
    "SEP2",
    "SEP3",
    "JvmTools",
    "SparkLine",
    "release",
    "split_list",
    "split_records",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
