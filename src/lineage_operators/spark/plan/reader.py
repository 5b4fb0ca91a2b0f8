"""Reading the datasets of one Spark execution from its analyzed logical plan.

Runs on the capture's reader thread, one execution at a time in the order they ended (Spark's
listener bus only queues them: :mod:`~lineage_operators.spark.listen.execution_queue`),
extracts plain facts at once and keeps py4j round trips constant in the plan size: every leaf of
the plan, of its subqueries and of a write command's query is read by JVM-side functions built in
:mod:`lineage_operators.spark.jvm.tools` (one ``map`` + ``mkString`` for all leaves), and the root command
by one more. ``ExecutionReader.java`` applies them all in one call
(:mod:`~lineage_operators.spark.plan.batch`); where it cannot be compiled they are called one by one
here. Either way the result is one :class:`~lineage_operators.spark.plan.execution.ExecutionRead`, turned
into facts by one function (:func:`~lineage_operators.spark.plan.execution.execution_facts`). Naming and
facets happen later, in plain Python (:mod:`lineage_operators.spark.resolve`).

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
from lineage_operators.spark.jvm.text import split_records
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.listen.execution_ids import query_key
from lineage_operators.spark.listen.execution_queue import QueuedReply
from lineage_operators.spark.plan import execution as rules
from lineage_operators.spark.plan.batch import METRICS_COMMANDS, REPLY_IN_FILE, batch_reader, parse
from lineage_operators.spark.plan.columns.compact import ANALYZED_QUERY_COMMANDS
from lineage_operators.spark.plan.command_table import BY_CLASS
from lineage_operators.spark.plan.commands import Call
from lineage_operators.spark.plan.execution import ExecutionRead, Observation, execution_facts
from lineage_operators.spark.plan.leaves import (
    build_collect_leaves_fn,
    build_leaf_builder_fn,
    build_leaf_fn,
    catalog_table_record,
)
from lineage_operators.spark.plan.outputs import CommandOutputs, RootReader, root_reader
from lineage_operators.spark.plan.records import field_at
from lineage_operators.spark.plan.statistics import relation_stats_text, write_metrics_text
from lineage_operators.spark.rdd.sources import is_logical_rdd_fn, logical_rdd_locations
from lineage_operators.spark.tables import delta, delta_columns
from lineage_operators.spark.tables.iceberg_scans import read_scans
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
        self,
        func_name: str,
        qe: Any,
        succeeded: bool,
        reply: QueuedReply | None = None,
        *,
        by_steps: bool = False,
    ) -> ExecutionFacts | None:
        """Facts of one execution, or None when it has no analyzed plan (failed analysis).

        The execution is read into an :class:`~lineage_operators.spark.plan.execution.ExecutionRead`
        in one py4j call (:meth:`_read_batched`) or, where that reader is missing or its reply is not
        well formed (or ``by_steps``), step by step (:meth:`_read_steps`); one function turns either
        into facts (:func:`~lineage_operators.spark.plan.execution.execution_facts`)."""
        execution = _Execution(self, qe)
        got = None if by_steps else self._read_batched(qe, succeeded, reply)
        if got is None:
            got = self._read_steps(execution, succeeded)
        facts = execution_facts(got, func_name, succeeded, execution)
        if facts is not None:
            self._remember_tables(facts)
        return facts

    def _read_batched(self, qe: Any, succeeded: bool, reply: QueuedReply | None) -> ExecutionRead | None:
        """The one-call read (:mod:`~lineage_operators.spark.plan.batch`), a write's column lineage plan
        included: ``reply`` when the JVM read it as it left the queue
        (:mod:`~lineage_operators.spark.listen.execution_queue`), else the call made here; None where
        that reader is missing or the reply is not well formed."""
        batch = batch_reader(self._t) if reply is None else None
        if batch is None and reply is None:
            return None
        try:
            with_plan = self._columns is not None  # the written plan's JSON, for column lineage
            text: str | None = (
                reply.text if reply is not None else self._t.read(self._batch_read(batch, qe, succeeded))
            )
            if with_plan and text == REPLY_IN_FILE:
                text = self._columns.read_reply_file()
            return parse(text, with_plan, has_query_id=self._t.line.has_query_id)
        except Exception as exc:
            log.debug("lineage capture: one-call read failed, reading step by step: %s", describe(exc))
            return None

    def _batch_read(self, batch: Any, qe: Any, succeeded: bool) -> Any:
        limit, path = self.batch_request()  # (0, None) without column lineage: read(qe, succeeded)
        return batch.read(qe, bool(succeeded), limit, path)

    def batch_request(self, with_file: bool = True) -> tuple[int, str | None]:
        """What a one-call read made elsewhere (``ExecutionReader.next``) may render for this
        reader's column lineage: no plan (0) without it; no file for long replies unless ``with_file``."""
        return self._columns.batch_request(with_file) if self._columns is not None else (0, None)

    def _read_steps(self, execution: _Execution, succeeded: bool) -> ExecutionRead:
        """The step-by-step reading, a few dozen py4j calls (the fallback of the one-call read): the
        same functions the Java class applies, called one by one."""
        t, qe = self._t, execution.qe
        qe_id = query_id = None
        try:
            qe_id, query_id = int(qe.id()), query_key(t, qe)
        except Exception as exc:
            log.debug("lineage capture: no query id: %s", describe(exc))
        try:
            plan = execution.plan()
        except Exception:
            return ExecutionRead(qe_id, query_id, analyzed=False)
        root_text = t.read(self._root.function.apply(plan)) or ""
        cls = field_at(split_records(root_text)[0], 0) if root_text else None
        leaves = self._plan_leaves(plan, cls)
        records, schema_text = self._leaf_texts(leaves)
        got = ExecutionRead(qe_id, query_id, True, root_text, records, schema_text)
        got.has_logical_rdd = bool(leaves.exists(is_logical_rdd_fn(t)))
        got.stats_text = (relation_stats_text(t, leaves) or None) if records else None
        if succeeded:
            got.metrics_text = _metrics_text(t, qe) if cls in METRICS_COMMANDS else None
            got.observations = _observed_steps(qe)
            got.scans = read_scans(t, qe)
        return got

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


def _metrics_text(t: JvmTools, qe: Any) -> str | None:
    """The write metrics of the executed plan (a few calls); None when unreadable."""
    try:
        return write_metrics_text(t, qe.executedPlan())
    except Exception as exc:
        log.debug("lineage capture: no write metrics: %s", describe(exc))
        return None


def _observed_steps(qe: Any) -> list[Observation]:
    """The observations read through py4j, by the rules ``ExecutionReader.observed`` is given
    (one call when there are none)."""
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
    if depth > rules.MAX_DEPTH:
        return
    kind = node.getClass().getSimpleName()
    if changed and kind == "CollectMetrics":
        below = node.child()
        while below.getClass().getSimpleName() in rules.OVER_READ:
            below = below.children().head()
        if below.children().isEmpty() and not below.output().isEmpty():
            found[str(node.name())] = int(below.output().head().exprId().id())
    below_changed = changed or not (kind in rules.KEEPS_ROWS or command.isInstance(node))
    children = node.children().iterator()
    while children.hasNext():
        _observed_reads(children.next(), command, found, depth + 1, changed=below_changed)


class _Execution:
    """One execution as :func:`~lineage_operators.spark.plan.execution.execution_facts` asks the JVM
    about it (its :class:`~lineage_operators.spark.plan.execution.ExecutionSource`): the reader's
    handlers and lookups, and the analyzed plan, read once, when something needs it."""

    def __init__(self, reader: PlanReader, qe: Any) -> None:
        self._reader = reader
        self.qe = qe
        self._plan: Any = None

    def plan(self) -> Any:
        if self._plan is None:
            self._plan = self.qe.analyzed()
        return self._plan

    def inputs(self, records: list[list[str | None]], schema_text: str | None) -> list[RelationFacts]:
        return self._reader._inputs_of(records, schema_text)

    def outputs(
        self, cls: str, fields: list[str | None], facts: ExecutionFacts, metrics_text: str | None
    ) -> list[RelationFacts]:
        reader = self._reader
        plan = self.plan() if _needs_plan(cls) else self._plan
        values = reader._root.values(cls, fields)
        call = Call(cls, values, plan, facts.succeeded, facts.inputs, metrics_text=metrics_text)
        return reader._outputs_of(call)

    def rdd_locations(self, cls: str | None) -> list[str]:
        reader = self._reader
        return logical_rdd_locations(reader._t, reader._plan_leaves(self.plan(), cls))

    def column_lineage(
        self, cls: str | None, facts: ExecutionFacts, query_facts: str | None, plan_json: str | None
    ) -> Any:
        columns = self._reader._columns
        if columns is None:
            return None
        lineage = columns.read(  # without the plan object, the writer takes it JVM-side
            self._plan,
            facts.inputs,
            query_facts,
            execution=self.qe,
            rendered=plan_json,
            optimized=cls not in ANALYZED_QUERY_COMMANDS,
        )
        if lineage is None and cls in delta.ROW_LEVEL_COMMANDS:
            lineage = self._reader._delta_row_level_lineage(self.plan(), cls, facts)
        return lineage


def _needs_plan(cls: str) -> bool:
    """Root commands whose outputs are read from the plan object itself (a relation node)."""
    command = BY_CLASS.get(cls)
    return command is not None and command.needs_plan


__all__ = ["PlanReader"]
