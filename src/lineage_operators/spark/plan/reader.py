"""Reading the datasets of one Spark execution from its analyzed logical plan.

Runs on the capture's reader thread, one execution at a time in the order they ended (Spark's
listener bus only queues them: :mod:`~lineage_operators.spark.listen.execution_queue`),
extracts plain facts at once and keeps py4j round trips constant in the plan size: every leaf of
the plan, of its subqueries and of a write command's query is read by JVM-side functions built in
:mod:`lineage_operators.spark.jvm.tools` (one ``map`` + ``mkString`` for all leaves), and the root command
by one more. Naming and facets happen later, in plain Python (:mod:`lineage_operators.spark.resolve`).

What is read of which Spark class comes from two tables: the root commands in
:data:`~lineage_operators.spark.plan.command_table.COMMANDS`, the leaves in
:data:`~lineage_operators.spark.plan.leaves.LEAVES` (``docs/supported-commands.md`` is generated from
both). Besides them:

* a file root of a ``HadoopFsRelation`` stands for its parent directory, as openlineage-spark's
  ``PlanUtils.getDirectoryPath``, unless it is the only root: then the file is the dataset, as
  ``LogicalRelationDatasetBuilder``. Cached DataFrames need nothing special: the analyzed plan still
  holds the relations the cache was built from. ``SaveAsV1TableCommand`` (``saveAsTable``) is
  covered by the CTAS or insert it runs as a nested execution.
* statistics: write metrics of ``DataWritingCommandExec``; inputs: what the relation is
  (:mod:`lineage_operators.spark.plan.statistics`).
* SQL text: the parser's ``Origin.sqlText`` of the root or of its first descendants (not a view's).
"""

from __future__ import annotations

from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import ExecutionFacts, RelationFacts
from lineage_operators.spark.jvm.text import SEP3, split_records
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.listen.execution_ids import query_key
from lineage_operators.spark.listen.execution_queue import QueuedReply
from lineage_operators.spark.plan.batch import (
    REPLY_IN_FILE,
    ExecutionRead,
    Observation,
    attach_observed,
    batch_reader,
    observed_values,
    parse,
)
from lineage_operators.spark.plan.columns.compact import ANALYZED_QUERY_COMMANDS
from lineage_operators.spark.plan.command_table import BY_CLASS
from lineage_operators.spark.plan.commands import Call
from lineage_operators.spark.plan.leaves import (
    build_collect_leaves_fn,
    build_leaf_builder_fn,
    build_leaf_fn,
    catalog_table_record,
)
from lineage_operators.spark.plan.outputs import CommandOutputs, RootReader, root_reader
from lineage_operators.spark.plan.records import field_at, pick_sql, sub_fields
from lineage_operators.spark.plan.statistics import apply_relation_stats, read_relation_stats
from lineage_operators.spark.rdd.sources import logical_rdd_locations
from lineage_operators.spark.tables import delta, delta_columns
from lineage_operators.spark.tables.iceberg_scans import attach_scans, parse_scans, read_scans
from lineage_operators.spark.tables.memory import TableMemory

log = get_logger(__name__)


class PlanReader(CommandOutputs):
    """Reads :class:`ExecutionFacts` from ``QueryExecution`` objects of one session."""

    def __init__(
        self, tools: JvmTools, jsession: Any, redact_url: Any, columns: Any = None, tables: Any = None
    ) -> None:
        self._t = tools
        #: the tables this capture saw (DROP reports the location remembered here)
        self.tables: TableMemory = tables if tables is not None else TableMemory()
        self._columns = columns  # a plan_json.PlanJsonReader when column lineage is on
        self._jss = jsession
        self._redact_url = redact_url
        self._catalog: Any = None
        self._delta_commits_counted = set()

    # JVM functions are built on first use (on the listener thread, not in the task's start())
    # and shared by every reader of the same JVM.

    @property
    def _leaf_fn(self) -> Any:
        return self._t.cached("plan.leaf", build_leaf_fn)

    @property
    def _leaves_fn(self) -> Any:
        return self._t.cached("plan.collectLeaves", build_collect_leaves_fn)

    @property
    def _root(self) -> RootReader:
        return root_reader(self._t)

    @property
    def _ct_full_fn(self) -> Any:
        return self._t.cached(
            "plan.ct_full", lambda t: t.function(t.builder(catalog_table_record(t, with_schema=True)))
        )

    @property
    def _leaf_builder_fn(self) -> Any:
        return self._t.cached("plan.leaf_builder", build_leaf_builder_fn)

    # -- entry point ---------------------------------------------------------------------------

    def read(
        self, func_name: str, qe: Any, succeeded: bool, reply: QueuedReply | None = None
    ) -> ExecutionFacts | None:
        """Facts of one execution, or None when it has no analyzed plan (failed analysis).

        One py4j call gathers what every execution needs (:mod:`~lineage_operators.spark.plan.batch`), a
        write's column lineage plan included: ``reply`` when the JVM read it as it left the queue
        (:mod:`~lineage_operators.spark.listen.execution_queue`), else the call made here. A write read from
        its plan object (an insert into a V2 table, a row-level command) makes one more. Where that reader is
        missing or its reply is not well formed, the execution is read step by step as before."""
        batch = batch_reader(self._t) if reply is None else None
        if batch is not None or reply is not None:
            try:
                with_plan = self._columns is not None  # the written plan's JSON, for column lineage
                text: str | None = (
                    reply.text if reply is not None else self._t.read(self._batch_read(batch, qe, succeeded))
                )
                if with_plan and text == REPLY_IN_FILE:
                    text = self._columns.read_reply_file()
                got = parse(text, with_plan)
            except Exception as exc:
                log.debug("lineage capture: one-call read failed, reading step by step: %s", describe(exc))
                got = None
            if got is not None:
                return self._read_batched(func_name, qe, succeeded, got)
        return self._read_steps(func_name, qe, succeeded)

    def _batch_read(self, batch: Any, qe: Any, succeeded: bool) -> Any:
        limit, path = self.batch_request()  # (0, None) without column lineage: read(qe, succeeded)
        return batch.read(qe, bool(succeeded), limit, path)

    def batch_request(self, with_file: bool = True) -> tuple[int, str | None]:
        """What a one-call read made elsewhere (``ExecutionReader.next``) may render for this
        reader's column lineage: no plan (0) without it; no file for long replies unless ``with_file``."""
        return self._columns.batch_request(with_file) if self._columns is not None else (0, None)

    def _read_batched(
        self, func_name: str, qe: Any, succeeded: bool, got: ExecutionRead
    ) -> ExecutionFacts | None:
        facts = ExecutionFacts(
            func_name=func_name, succeeded=succeeded, qe_id=got.qe_id, query_id=got.query_id
        )
        if not got.analyzed:
            return None  # analysis failed: nothing was read or written
        root = split_records(got.root_text)[0] if got.root_text else []
        cls = root[0] if root else None
        facts.root = cls
        cmd = sub_fields(field_at(root, 1), SEP3)
        facts.sql = pick_sql(field_at(root, 2))
        facts.inputs = self._inputs_of(got.leaf_records or [], got.schema_text) if got.leaf_records else []
        plan: Any = None
        if cls and _needs_plan(cls):
            plan = qe.analyzed()
        if cls:
            values = self._root.values(cls, cmd)
            call = Call(
                cls,
                values,
                plan,
                qe,
                succeeded,
                facts.inputs,
                metrics_text=got.metrics_text,
                metrics_fetched=True,
            )
            facts.outputs = self._outputs_of(call)
        if got.has_logical_rdd:
            plan = plan if plan is not None else qe.analyzed()
            leaves = self._plan_leaves(plan, cls)
            facts.inputs.extend(RelationFacts(location=loc) for loc in logical_rdd_locations(self._t, leaves))
        if any(rel.location or rel.table for rel in facts.inputs):
            apply_relation_stats(got.stats_text, facts.inputs)
        if got.observed_text:
            attach_observed(observed_values(got.observed_text), facts.inputs, facts.outputs)
        if facts.outputs and self._columns is not None:  # the writer takes the plan JVM-side
            facts.column_lineage = self._columns.read(
                plan,
                facts.inputs,
                got.query_facts,
                execution=qe,
                rendered=got.plan_json,
                optimized=cls not in ANALYZED_QUERY_COMMANDS,
            )
            if facts.column_lineage is None and cls in delta.ROW_LEVEL_COMMANDS:
                facts.column_lineage = self._delta_row_level_lineage(plan, cls, facts)
        read_targets(facts)
        if got.scans_text:
            attach_scans(parse_scans(got.scans_text), facts.inputs)
        self._remember_tables(facts)
        return facts

    def _read_steps(self, func_name: str, qe: Any, succeeded: bool) -> ExecutionFacts | None:
        """The step-by-step reading: a few dozen py4j calls (the fallback of the one-call read)."""
        facts = ExecutionFacts(func_name=func_name, succeeded=succeeded)
        try:
            facts.qe_id = int(qe.id())
            facts.query_id = query_key(self._t, qe)
        except Exception as exc:
            log.debug("lineage capture: no query id: %s", describe(exc))
        try:
            plan = qe.analyzed()
        except Exception:
            return None  # analysis failed: nothing was read or written
        root_text = self._t.read(self._root.function.apply(plan))
        root = split_records(root_text)[0] if root_text else []
        cls = root[0] if root else None
        facts.root = cls
        cmd = sub_fields(field_at(root, 1), SEP3)
        facts.sql = pick_sql(field_at(root, 2))
        facts.inputs = self.plan_inputs(plan, cls)
        if cls:
            facts.outputs = self._outputs_of(
                Call(cls, self._root.values(cls, cmd), plan, qe, succeeded, facts.inputs)
            )
        leaves = self._plan_leaves(plan, cls)
        facts.inputs.extend(RelationFacts(location=loc) for loc in logical_rdd_locations(self._t, leaves))
        if any(rel.location or rel.table for rel in facts.inputs):
            read_relation_stats(self._t, leaves, facts.inputs)
        if succeeded:
            attach_observed(_observed_steps(qe), facts.inputs, facts.outputs)
        if facts.outputs and self._columns is not None:
            facts.column_lineage = self._columns.read(
                plan, facts.inputs, optimized=cls not in ANALYZED_QUERY_COMMANDS
            )
            if facts.column_lineage is None and cls in delta.ROW_LEVEL_COMMANDS:
                facts.column_lineage = self._delta_row_level_lineage(plan, cls, facts)
        read_targets(facts)
        if succeeded:
            read_scans(self._t, qe, facts.inputs)
        self._remember_tables(facts)
        return facts

    def _outputs_of(self, call: Call) -> list[RelationFacts]:
        """The root command's outputs; a handler that fails loses them only, with a warning."""
        try:
            return self.outputs(call)
        except Exception as exc:
            log.warning(
                "lineage capture: cannot read the output of %s: %s",
                call.cls.rsplit(".", 1)[-1],
                describe(exc),
            )
            return []

    def _delta_row_level_lineage(self, plan: Any, cls: str, facts: ExecutionFacts) -> Any:
        """Column lineage of a Delta MERGE/UPDATE/DELETE (:mod:`.tables.delta_columns` of spark/).
        Its target and source are fields of the command, not children: their leaves are read here with
        their attributes, so the lineage's source columns name them (Delta reads them again in nested
        executions, whose attributes differ)."""
        lineage = delta_columns.row_level_lineage(plan)
        if lineage is None:
            return None
        try:
            plans = [plan.target()] + ([plan.source()] if cls.endswith("MergeIntoCommand") else [])
        except Exception as exc:
            log.debug("lineage capture: no Delta command leaves: %s", describe(exc))
            return lineage
        for part in plans:
            try:
                facts.inputs.extend(self.plan_inputs(part, None))
            except Exception as exc:
                log.debug("lineage capture: cannot read a Delta command's leaves: %s", describe(exc))
        return lineage

    def _remember_tables(self, facts: ExecutionFacts) -> None:
        for rel in (*facts.inputs, *facts.outputs):
            if rel.table is not None and rel.lifecycle != "DROP":
                self.tables.remember(rel.table, rel.location, rel.provider)


#: Plan nodes that pass every row of their child on (as ``KEEPS_ROWS`` in ExecutionReader.java).
_KEEPS_ROWS = frozenset(
    {
        "Project",
        "SubqueryAlias",
        "Sort",
        "Repartition",
        "RepartitionByExpression",
        "View",
        "CollectMetrics",
        "ResolvedHint",
    }
)


def _observed_steps(qe: Any) -> list[Observation]:
    """The observations read through py4j, as ``ExecutionReader.observed`` reads them (one call
    when there are none)."""
    import json

    try:
        values = qe.observedMetrics()
        if values.isEmpty():
            return []
        reads: dict[str, int] = {}
        plan = qe.analyzed()
        command = plan.getClass().forName("org.apache.spark.sql.catalyst.plans.logical.Command")
        _observed_reads(plan, command, reads, 0, changed=False)
        observed: list[Observation] = []
        entries = values.iterator()
        while entries.hasNext():
            entry = entries.next()
            name = str(entry._1())
            observed.append(Observation(name, json.loads(entry._2().json()), reads.get(name)))
        return observed
    except Exception as exc:
        log.debug("lineage capture: observations not read: %s", describe(exc))
        return []


def _observed_reads(node: Any, command: Any, found: dict[str, int], depth: int, *, changed: bool) -> None:
    if depth > 200:
        return
    kind = node.getClass().getSimpleName()
    if changed and kind == "CollectMetrics":
        below = node.child()
        while below.getClass().getSimpleName() in ("Project", "SubqueryAlias"):
            below = below.children().head()
        if below.children().isEmpty() and not below.output().isEmpty():
            found[str(node.name())] = int(below.output().head().exprId().id())
    below_changed = changed or not (kind in _KEEPS_ROWS or command.isInstance(node))
    children = node.children().iterator()
    while children.hasNext():
        _observed_reads(children.next(), command, found, depth + 1, changed=below_changed)


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


def _needs_plan(cls: str) -> bool:
    """Root commands whose outputs are read from the plan object itself (a relation node)."""
    command = BY_CLASS.get(cls)
    return command is not None and command.needs_plan


__all__ = ["PlanReader"]
