"""The key joining a captured execution to Spark's SQL status store, on every Spark line.

Attribution (:mod:`~lineage_operators.spark.attribution.classic`) and JDBC job statistics
(:mod:`~lineage_operators.spark.listen.job_statistics`) look up what
the status store knows of an execution the query listener saw (its root execution, its jobs and
their tags). The query listener sees a ``QueryExecution``, the status store an execution id:

* Spark 4.2+: both carry ``queryId`` (``QueryExecution.queryId``, ``SQLExecutionUIData.queryId``).
* Before 4.2 (3.5, 4.0, 4.1) neither has it. ``jvm/java/ExecutionIds.java``, a ``SparkListener``
  registered once per ``SparkContext`` (JVM-side, no py4j callback), remembers each ended
  execution's ``QueryExecution.id``; the key is then ``"qe:<QueryExecution id>"`` on both sides.

If the recorder cannot be compiled, the records carry no key and attribution falls back to the
time window (its rule 3) for executions whose ``QueryExecution`` predates the capture.
"""

from __future__ import annotations

from typing import Any

from lineage_operators.spark.jvm import classes as jvm_classes
from lineage_operators.spark.jvm.spark_classes import SQL_EXECUTION_UI_DATA
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.listen.listener import add_to_bus

SOURCE = "ExecutionIds.java"
CLASS_NAME = "lineage_operators.ExecutionIds"


def query_key(tools: JvmTools, qe: Any) -> str | None:
    """The join key of a ``QueryExecution`` (one py4j call); None if it cannot be read."""
    if tools.line.has_query_id:
        return str(qe.queryId().toString())
    return key_of(False, int(qe.id()), None)


def key_of(has_query_id: bool, qe_id: int | None, query_id: str | None) -> str | None:
    """The join key of an execution whose id and ``queryId`` (Spark 4.2+) were read elsewhere
    (``ExecutionReader.java`` reads both and leaves the key to this rule)."""
    if has_query_id:
        return query_id
    return f"qe:{qe_id}" if qe_id is not None else None


def recorder(tools: JvmTools) -> Any:
    """The JVM's ``ExecutionIds`` listener (compiled on first use), or None."""
    return jvm_classes.compiled_instance(
        tools, SOURCE, CLASS_NAME, "executions older than the capture are attributed by time only"
    )


def start_recording(tools: JvmTools, jsc: Any, app_id: str) -> None:
    """Register the recorder on the context of application ``app_id`` (once; lines before 4.2)."""
    if tools.line.has_query_id:
        return

    def register(t: JvmTools) -> bool:
        found = recorder(t)
        if found is None:
            return False
        add_to_bus(jsc.sc(), found)
        return True

    tools.cached(f"execution_ids.registered.{app_id}", register)


def key_field(tools: JvmTools) -> Any:
    """Handle: ``SQLExecutionUIData`` -> its join key (NONE when unknown)."""
    t = tools
    if t.line.has_query_id:
        return t.step(SQL_EXECUTION_UI_DATA, "queryId")
    found = recorder(t)
    if found is None:
        return t.constant(None)
    obj = t.cls("java.lang.Object")
    key_of = t._lookup.findVirtual(found.getClass(), "keyOf", t._mt.methodType(obj, obj))
    return t.chain((SQL_EXECUTION_UI_DATA, "executionId"), key_of.bindTo(found).asType(t._oo))


__all__ = ["key_field", "key_of", "query_key", "recorder", "start_recording"]
