"""The compact plan writer: a small Java class compiled in the driver's JVM, once per JVM.

``TreeNode.toJSON()`` costs about 1 KiB of JSON per leaf column of a plan (every attribute carries
its whole, possibly nested, data type, its metadata and qualifier) and json4s builds the whole
document as a tree first: seconds and tens of megabytes on a 15,000-column plan. The column-lineage
engine reads a few fields of each node. ``jvm_src/PlanWriter.java`` writes the same JSON shape with
only those fields, straight into a ``StringBuilder``.

It is compiled with Janino, the compiler Spark's own code generation uses (so it is on every
driver's classpath), against Spark's class loader, the first time a plan needs it. If that fails
(no Janino, an incompatible Spark), :func:`compact_writer` returns None once and for all and the
caller falls back to ``toJSON``.
"""

from __future__ import annotations

import logging
from importlib import resources
from typing import Any

from lineage_operators.spark._errors import describe
from lineage_operators.spark.jvm import JvmTools

SOURCE = "PlanWriter.java"
CLASS_NAME = "lineage_operators.PlanWriter"
COMPILER = "org.codehaus.janino.SimpleCompiler"


def java_source() -> str:
    return resources.files("lineage_operators.spark").joinpath("jvm_src", SOURCE).read_text(encoding="utf-8")


def compact_writer(tools: JvmTools) -> Any:
    """The JVM's ``PlanWriter`` instance (compiled on first use), or None when it cannot be built."""
    found = tools.cached("plan_writer.instance", _build)
    return found or None


def _build(tools: JvmTools) -> Any:
    from lineage_operators.spark.plan_json import log_once

    try:
        return _compile(tools)
    except Exception as exc:
        log_once(
            "compile",
            logging.INFO,
            "lineage capture: cannot compile the compact plan writer (%s); column lineage uses toJSON",
            describe(exc),
        )
        return False  # cached: never retried in this JVM


def _compile(tools: JvmTools) -> Any:
    compiler = tools.jvm.org.codehaus.janino.SimpleCompiler()
    compiler.setParentClassLoader(tools.jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader())
    compiler.cook(java_source())
    cls = compiler.getClassLoader().loadClass(CLASS_NAME)
    no_types = tools.array("java.lang.Class", [])
    return cls.getDeclaredConstructor(no_types).newInstance(tools.array("java.lang.Object", []))


__all__ = ["CLASS_NAME", "compact_writer", "java_source"]
