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

from dataclasses import dataclass
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.spark.jvm import classes as jvm_classes
from lineage_operators.spark.jvm.spark_classes import INNER_QUERY, INSERT_HADOOP, INSERT_HIVE, SAVE_INTO
from lineage_operators.spark.jvm.text import NONE, PART, SEP, split_records
from lineage_operators.spark.jvm.tools import JvmTools

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


@dataclass
class ExecutionRead:
    """The parsed reply; texts are in the formats the step-by-step reading produced."""

    qe_id: int | None
    query_id: str | None
    analyzed: bool
    root_text: str = ""
    leaf_records: list[list[str | None]] | None = None
    schema_text: str = ""
    stats_text: str = ""
    has_logical_rdd: bool = False
    query_facts: str | None = None
    metrics_text: str | None = None
    #: The values of the execution's observations (``Dataset.observe``): see :func:`observed_values`
    observed_text: str | None = None
    #: The Iceberg scans of the executed plan (``tables.iceberg_scans.parse_scans``)
    scans_text: str | None = None
    #: The written query's compact plan JSON part ("=" and the JSON; None when not rendered)
    plan_json: str | None = None


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
    reader.configure(
        t.array("scala.Function1", functions),
        SEP.join(INNER_QUERY),
        SEP.join(METRICS_COMMANDS),
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


def parse(text: str | None, with_plan: bool = False) -> ExecutionRead | None:
    """The reply of ``ExecutionReader.read``; None when it is not well formed (read step by step).
    ``with_plan``: the read was asked for the written plan's part (its twelfth)."""
    if text is None:
        return None
    parts = text.split(PART)
    if len(parts) < 3:
        return None

    def field(value: str) -> str | None:
        return None if value == NONE else value

    qe_id_text, query_id = field(parts[0]), field(parts[1])
    try:
        qe_id = int(qe_id_text) if qe_id_text is not None else None
    except ValueError:
        qe_id = None
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
        schema_text=parts[4],
        stats_text=parts[5],
        has_logical_rdd=parts[6] == "1",
        query_facts=parts[7],
        metrics_text=field(parts[8]),
        observed_text=field(parts[9]),
        scans_text=field(parts[10]),
        plan_json=field(parts[11]) if with_plan else None,
    )


@dataclass(frozen=True)
class Observation:
    """What one of the execution's observations (``Dataset.observe``) collected."""

    name: str
    values: dict[str, Any]
    #: the first output attribute id of the read it was made on, below a filter, join or aggregate
    #: (its values describe the rows read); None: it describes the rows written
    read_expr_id: int | None = None


def observed_values(text: str | None) -> list[Observation]:
    """The observations in ``text`` (per observation: name SEP the row as JSON SEP the read's
    attribute id or nothing; RSEP between them). Pure; an unreadable record is skipped."""
    import json

    observed: list[Observation] = []
    for record in split_records(text):
        if len(record) < 2 or not record[0]:
            continue
        try:
            row = json.loads(record[1] or "")
        except ValueError:
            log.debug("lineage capture: unreadable values of observation %s", record[0])
            continue
        read = record[2] if len(record) > 2 else None
        if isinstance(row, dict):
            observed.append(Observation(record[0], row, int(read) if read and read.isdigit() else None))
    return observed


def attach_observed(observations: list[Observation], inputs: list[Any], outputs: list[Any]) -> None:
    """Give each observation's values to the read it was made on (when that read is among
    ``inputs``, by attribute id), else to every output (``RelationFacts.observed``). Pure."""
    for observation in observations:
        targets = outputs
        if observation.read_expr_id is not None:
            targets = [r for r in inputs if observation.read_expr_id in r.expr_ids] or outputs
        for rel in targets:
            rel.observed = {**(rel.observed or {}), observation.name: observation.values}


__all__ = [
    "REPLY_IN_FILE",
    "ExecutionRead",
    "Observation",
    "attach_observed",
    "batch_reader",
    "observed_values",
    "parse",
]
