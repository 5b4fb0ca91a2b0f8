"""One py4j call per execution: what :class:`~lineage_operators.spark.plan.reader.PlanReader` reads of a
``QueryExecution``, gathered JVM-side by ``jvm/java/ExecutionReader.java``.

Profiled on the many-tiny-actions benchmark (see docs/history.md), reading one execution
made 33 py4j round trips when it wrote nothing (a count) and 40-48 when it wrote: ids, the
analyzed plan, the root record, the leaves (``subqueriesAll``, ``prepended``, ``flatMap``,
``map``, ``distinct``, a builder, ``length``/``toString``), the schemas and the statistics (the
leaves again), the write metrics (``executedPlan``, find/open) and the written query's facts.
Round trips, not JVM work, were most of the 4-12 ms. The Java class applies the same JVM-side
functions (built from method handles as before, in :mod:`~lineage_operators.spark.plan.leaves`,
:mod:`~lineage_operators.spark.plan.commands`,
:mod:`~lineage_operators.spark.plan.statistics`, :mod:`~lineage_operators.spark.rdd.jobs`,
:mod:`~lineage_operators.spark.plan.columns.compact`) in one call and returns their texts joined
with :data:`PART`; a schema serialized once is kept JVM-side by the ``StructType`` (a table read
again costs no second JSON). Where it cannot be compiled, the capture reads as before.

With column lineage on, the same call renders a write's compact plan JSON
(:mod:`~lineage_operators.spark.plan.columns.writer`)
into the reply, and a reply longer than one py4j segment (8 KiB: a longer one waits 40 ms on
Nagle's algorithm) goes through the capture's plan file instead of a chunked read: a write costs
one round trip too (two, and a file write and read, before 2026-11-27).
"""

from __future__ import annotations

from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.spark.jvm import classes as jvm_classes
from lineage_operators.spark.jvm.spark_classes import INNER_QUERY, INSERT_HADOOP, INSERT_HIVE, SAVE_INTO
from lineage_operators.spark.jvm.text import NONE, PART, SEP, split_records
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.listen.execution_ids import key_of
from lineage_operators.spark.plan import execution as rules
from lineage_operators.spark.plan.execution import ExecutionRead, observed_values
from lineage_operators.spark.plan.statistics import MAX_WRAPPERS
from lineage_operators.spark.tables.iceberg_scans import parse_scans

log = get_logger(__name__)

SOURCE = "ExecutionReader.java"
CLASS_NAME = "lineage_operators.ExecutionReader"
_PARTS = 11
#: With the write's plan part (``read`` with a leaf-column limit).
_PARTS_WITH_PLAN = 12
#: The reply of a read given a file, when the reply is in the file.
REPLY_IN_FILE = "@"
#: Root commands whose output gets the write metrics (``CommandOutputs.with_stats``).
METRICS_COMMANDS = (INSERT_HADOOP, INSERT_HIVE, SAVE_INTO)


def _configure(t: JvmTools) -> Any:
    """The JVM's ``ExecutionReader``, compiled and given the capture's functions; False if not."""
    from lineage_operators.spark.plan.columns.compact import build_query_facts_fn
    from lineage_operators.spark.plan.leaves import (
        build_leaf_fn,
        build_leaf_schema_fn,
        build_schema_record_fn,
    )
    from lineage_operators.spark.plan.outputs import root_reader
    from lineage_operators.spark.plan.statistics import build_find_fn, build_open_fn, build_stats_fn
    from lineage_operators.spark.rdd.sources import is_logical_rdd_fn

    reader = jvm_classes.compiled_instance(t, SOURCE, CLASS_NAME, "executions are read step by step")
    if reader is None:
        return False
    functions = [
        root_reader(t).function,
        t.cached("plan.leaf", build_leaf_fn),
        t.cached("plan.leaf_schema", build_leaf_schema_fn),
        t.cached("plan.schema_record", build_schema_record_fn),
        t.cached("statistics.relation", build_stats_fn),
        is_logical_rdd_fn(t),
        t.cached("plan_json.query", build_query_facts_fn),
        t.cached("statistics.find_write", build_find_fn),
        t.cached("statistics.open", build_open_fn),
    ]
    reader.configure(  # every rule the Java applies comes from here: Python applies the same ones
        t.array("scala.Function1", functions),
        SEP.join(INNER_QUERY),
        SEP.join(METRICS_COMMANDS),
        SEP.join(rules.KEEPS_ROWS),
        SEP.join(rules.OVER_READ),
        rules.MAX_DEPTH,
        MAX_WRAPPERS,
        t.line.has_query_id,
    )
    _configure_plans(t, reader)
    _configure_scans(t, reader)
    return reader


def _configure_plans(t: JvmTools, reader: Any) -> None:
    """Give the reader the compact plan writer, so a write's plan JSON comes with its read;
    without it (not compiled) column lineage asks for the JSON in a call of its own."""
    from lineage_operators.spark.plan.columns.compact import query_of_fn
    from lineage_operators.spark.plan.columns.writer import compact_writer

    writer = compact_writer(t)
    if writer is None:
        return
    try:
        reader.configurePlans(writer, query_of_fn(t))
    except Exception as exc:
        from lineage_operators._errors import describe

        log.info("lineage capture: a write's plan JSON is read in a call of its own (%s)", describe(exc))


def _configure_scans(t: JvmTools, reader: Any) -> None:
    """Give the reader the Iceberg scan reader where Iceberg is on the classpath, so an Iceberg
    input's scan figures come with the execution's read."""
    from lineage_operators.spark.tables.iceberg_scans import scan_reader

    scans = scan_reader(t)
    if scans is None:
        return
    try:
        reader.configureScans(scans)
    except Exception as exc:
        from lineage_operators._errors import describe

        log.info("lineage capture: Iceberg reads report no scan figures (%s)", describe(exc))


def batch_reader(t: JvmTools) -> Any:
    """The configured reader of this JVM (built on first use), or None where it cannot be."""
    try:
        found = t.cached("plan_batch.reader", _configure)
    except Exception as exc:
        from lineage_operators._errors import describe

        log.info("lineage capture: executions are read step by step (%s)", describe(exc))
        found = t.cached("plan_batch.reader", lambda _t: False)  # only when building raised
    return found or None


def parse(text: str | None, with_plan: bool = False, *, has_query_id: bool = False) -> ExecutionRead | None:
    """The reply of ``ExecutionReader.read``; None when it is not well formed (read step by step).
    ``with_plan``: the read was asked for the written plan's part (its twelfth); ``has_query_id``:
    Spark 4.2+, whose ``queryId`` is the execution's key (else the key is made of its id)."""
    if text is None:
        return None
    parts = text.split(PART)
    if len(parts) < 3:
        return None

    def field(value: str) -> str | None:
        return None if value == NONE else value

    qe_id_text = field(parts[0])
    try:
        qe_id = int(qe_id_text) if qe_id_text is not None else None
    except ValueError:
        qe_id = None
    query_id = key_of(has_query_id, qe_id, field(parts[1]))
    if len(parts) == 3 and parts[2] == "!":
        return ExecutionRead(qe_id, query_id, analyzed=False)
    if len(parts) != (_PARTS_WITH_PLAN if with_plan else _PARTS):
        return None  # a separator inside a text (SQL?): the step-by-step reading is exact
    return ExecutionRead(
        qe_id=qe_id,
        query_id=query_id,
        analyzed=True,
        root_text=parts[2],
        leaf_records=split_records(parts[3]),
        schema_text=parts[4] or None,
        stats_text=parts[5] or None,
        has_logical_rdd=parts[6] == "1",
        query_facts=parts[7],
        metrics_text=field(parts[8]),
        observations=observed_values(field(parts[9])),
        scans=parse_scans(field(parts[10])),
        plan_json=field(parts[11]) if with_plan else None,
    )


__all__ = ["METRICS_COMMANDS", "REPLY_IN_FILE", "batch_reader", "parse"]
