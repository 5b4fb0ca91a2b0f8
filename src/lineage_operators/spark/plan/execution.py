"""One execution as read from the JVM (:class:`ExecutionRead`), and the one function turning it into
:class:`~lineage_operators.spark.facts.ExecutionFacts` (:func:`execution_facts`).

Why one intermediate: an execution is read two ways, in one py4j call by ``jvm/java/ExecutionReader.java``
(:mod:`~lineage_operators.spark.plan.batch`) or step by step where that class cannot be compiled
(:meth:`~lineage_operators.spark.plan.reader.PlanReader.read`). Both produce an :class:`ExecutionRead`,
texts in the formats of the JVM-side functions both apply, and everything after that is done here,
once: parsing the root and the leaves, the outputs, the relation statistics, the observations, the
column lineage, the target of a row-level command, the Iceberg scan figures. What needs the JVM again
(a handler's catalog lookup, the column lineage, the files behind an RDD) is asked of an
:class:`ExecutionSource`; the rest is pure.

The rules of which plan nodes an observation sees the rows through (:data:`KEEPS_ROWS`,
:data:`OVER_READ`, :data:`MAX_DEPTH`) are kept here and given to the Java class when it is
configured, so both readings walk the plan by the same rules.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import ExecutionFacts, RelationFacts
from lineage_operators.spark.jvm.text import SEP3, split_records
from lineage_operators.spark.plan.records import field_at, pick_sql, sub_fields
from lineage_operators.spark.plan.statistics import apply_relation_stats
from lineage_operators.spark.tables.iceberg_scans import ScanFacts, attach_scans

log = get_logger(__name__)

#: Plan nodes that pass every row of their child on: an observation below only these (and the write
#: command) saw the rows written; below any other node (a filter, join, aggregate) the rows read.
KEEPS_ROWS = (
    "Project",
    "SubqueryAlias",
    "Sort",
    "Repartition",
    "RepartitionByExpression",
    "View",
    "CollectMetrics",
    "ResolvedHint",
)
#: Nodes between an observation and the read it was made on (simple class names).
OVER_READ = ("Project", "SubqueryAlias")
#: Plan depth the walk for observations goes down to at most.
MAX_DEPTH = 200


@dataclass(frozen=True)
class Observation:
    """What one of the execution's observations (``Dataset.observe``) collected."""

    name: str
    values: dict[str, Any]
    #: the first output attribute id of the read it was made on, below a filter, join or aggregate
    #: (its values describe the rows read); None: it describes the rows written
    read_expr_id: int | None = None


@dataclass
class ExecutionRead:
    """What was read of one ``QueryExecution``, the same from both readings (texts in the formats of
    the JVM-side functions: :func:`~lineage_operators.spark.plan.outputs.build_root_reader`,
    :func:`~lineage_operators.spark.plan.leaves.build_leaf_fn`, ...)."""

    qe_id: int | None
    #: the key joining it to Spark's status store
    #: (:func:`~lineage_operators.spark.listen.execution_ids.key_of`)
    query_id: str | None
    #: False: its analysis failed (nothing else was read)
    analyzed: bool
    #: the root record: class, the command's fields (SEP3), SQL text candidates
    root_text: str = ""
    #: the distinct leaf records of the plan, its subqueries and a command's inner query
    leaf_records: list[list[str | None]] = field(default_factory=list)
    #: the leaves' distinct schemas: hash code SEP JSON, RSEP between them
    schema_text: str | None = None
    #: the leaves' relation statistics (:func:`~lineage_operators.spark.plan.statistics.build_stats_fn`)
    stats_text: str | None = None
    has_logical_rdd: bool = False
    #: the written query's facts (:func:`~lineage_operators.spark.plan.columns.compact.build_query_facts_fn`);
    #: None: not read (column lineage reads it when it needs it)
    query_facts: str | None = None
    #: the write metrics map text (for :data:`~lineage_operators.spark.plan.batch.METRICS_COMMANDS`)
    metrics_text: str | None = None
    observations: list[Observation] = field(default_factory=list)
    scans: list[ScanFacts] = field(default_factory=list)
    #: the written query's compact plan JSON part ("=" and the JSON; None when not rendered)
    plan_json: str | None = None


class ExecutionSource(Protocol):
    """What :func:`execution_facts` asks the JVM about one execution (the reader answers)."""

    def inputs(self, records: list[list[str | None]], schema_text: str | None) -> list[RelationFacts]:
        """The input facts of the leaf records and schema records."""

    def outputs(
        self, cls: str, fields: list[str | None], facts: ExecutionFacts, metrics_text: str | None
    ) -> list[RelationFacts]:
        """The outputs of the root command ``cls`` with its ``fields`` (none when its handler fails)."""

    def rdd_locations(self, cls: str | None) -> list[str]:
        """The files behind the plan's ``LogicalRDD`` leaves."""

    def column_lineage(
        self, cls: str | None, facts: ExecutionFacts, query_facts: str | None, plan_json: str | None
    ) -> Any:
        """The column lineage of a write, or None (off, or not a query's write)."""


def execution_facts(
    read: ExecutionRead, func_name: str, succeeded: bool, source: ExecutionSource
) -> ExecutionFacts | None:
    """The facts of one execution, or None when its analysis failed (nothing was read or written)."""
    if not read.analyzed:
        return None
    facts = ExecutionFacts(func_name=func_name, succeeded=succeeded, qe_id=read.qe_id, query_id=read.query_id)
    root = split_records(read.root_text)[0] if read.root_text else []
    cls = field_at(root, 0)
    facts.root = cls
    facts.sql = pick_sql(field_at(root, 2))
    facts.inputs = source.inputs(read.leaf_records, read.schema_text) if read.leaf_records else []
    if cls:
        facts.outputs = source.outputs(cls, sub_fields(field_at(root, 1), SEP3), facts, read.metrics_text)
    if read.has_logical_rdd:
        facts.inputs.extend(RelationFacts(location=loc) for loc in source.rdd_locations(cls))
    if any(rel.location or rel.table for rel in facts.inputs):
        apply_relation_stats(read.stats_text, facts.inputs)
    attach_observed(read.observations, facts.inputs, facts.outputs)
    if facts.outputs:
        facts.column_lineage = source.column_lineage(cls, facts, read.query_facts, read.plan_json)
    read_targets(facts)
    attach_scans(read.scans, facts.inputs)
    return facts


def read_targets(facts: ExecutionFacts) -> None:
    """Pure, in place: an input that names a table but has no location (a row-level ``MERGE``,
    ``UPDATE`` or ``DELETE`` reads its target through Spark's ``RowLevelOperationTable``, which has
    none) is the table the execution wrote: it takes that output's location, names and version (the
    table's snapshot when the command ended, as for any read: openlineage-spark reports the target
    of these commands as an input too)."""
    written = {rel.table: rel for rel in facts.outputs if rel.table is not None and rel.location}
    for rel in facts.inputs:
        target = written.get(rel.table) if rel.location is None and rel.table is not None else None
        if target is None:
            continue
        rel.location, rel.symlink, rel.catalog_facts = target.location, target.symlink, target.catalog_facts
        rel.provider = rel.provider or target.provider
        rel.file_format = rel.file_format or target.file_format
        rel.schema_text = rel.schema_text or target.schema_text
        rel.version = target.written_version or target.version


def observed_values(text: str | None) -> list[Observation]:
    """The observations in ``text`` (per observation: name SEP the row as JSON SEP the read's
    attribute id or nothing; RSEP between them). Pure; an unreadable record is skipped."""
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
    "KEEPS_ROWS",
    "MAX_DEPTH",
    "OVER_READ",
    "ExecutionRead",
    "ExecutionSource",
    "Observation",
    "attach_observed",
    "execution_facts",
    "observed_values",
    "read_targets",
]
