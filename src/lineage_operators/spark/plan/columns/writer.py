"""The compact plan writer: a small Java class compiled in the driver's JVM, once per JVM.

``TreeNode.toJSON()`` costs about 1 KiB of JSON per leaf column of a plan (every attribute carries
its whole, possibly nested, data type, its metadata and qualifier) and json4s builds the whole
document as a tree first: seconds and tens of megabytes on a 15,000-column plan. The column-lineage
engine reads a few fields of each node. ``jvm/java/PlanWriter.java`` writes the same JSON shape with
only those fields, straight into a ``StringBuilder``.

It is compiled with Janino, the compiler Spark's own code generation uses (so it is on every
driver's classpath), against Spark's class loader, the first time a plan needs it. If that fails
(no Janino, an incompatible Spark), :func:`compact_writer` returns None once and for all and the
caller falls back to ``toJSON``.
"""

from __future__ import annotations

from typing import Any

from lineage_operators.spark.jvm import classes as jvm_classes
from lineage_operators.spark.jvm.tools import JvmTools

SOURCE = "PlanWriter.java"
CLASS_NAME = "lineage_operators.PlanWriter"


def java_source() -> str:
    return jvm_classes.java_source(SOURCE)


def compact_writer(tools: JvmTools) -> Any:
    """The JVM's ``PlanWriter`` instance (compiled on first use), or None when it cannot be built."""
    return jvm_classes.compiled_instance(
        tools, SOURCE, CLASS_NAME, "column lineage uses toJSON (the compact plan writer is missing)"
    )


__all__ = ["CLASS_NAME", "compact_writer", "java_source"]
