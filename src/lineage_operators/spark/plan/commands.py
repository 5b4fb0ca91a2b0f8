"""Outputs: the root command of a plan (write commands, DDL, V1 and V2), read by one JVM-side
function (:func:`_build_root_fn`) and turned into output
:class:`~lineage_operators.spark.facts.RelationFacts` (:meth:`CommandOutputs._outputs`)."""

from __future__ import annotations

from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import RelationFacts
from lineage_operators.spark.jvm.text import CTSEP, NONE, SEP3
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.plan import kafka
from lineage_operators.spark.plan.catalog import CatalogOutputs
from lineage_operators.spark.plan.classes import (
    ORIGIN,
    QUERY_PLAN,
    TREE_NODE,
)
from lineage_operators.spark.plan.command_table import BY_CLASS, COMMANDS, Call, FieldReaders
from lineage_operators.spark.plan.leaves import InputReading
from lineage_operators.spark.plan.records import _at, parse_metrics
from lineage_operators.spark.plan.statistics import write_metrics_text
from lineage_operators.spark.tables import delta

log = get_logger(__name__)


#: ``CommandOutputs._prefetched_metrics`` when the metrics were not read ahead.
_NOT_FETCHED = object()


def _build_root_fn(t: JvmTools) -> Any:
    """Root plan -> class name, the command's fields (SEP3-joined) and SQL text candidates."""
    dispatch = t.constant(NONE)
    readers = FieldReaders(t)
    for command in reversed(COMMANDS):
        if command.fields is None or not t.has_class(command.cls):
            continue  # a class missing from this Spark build (e.g. no Hive module) is skipped
        try:
            dispatch = t.when(command.cls, t.record(command.fields(readers), SEP3), dispatch)
        except Exception as exc:  # a Spark version without one of the methods: skip that command
            log.debug("lineage capture: cannot read %s on this Spark version: %s", command.cls, describe(exc))
    origin = (TREE_NODE, "origin")
    sql = [t.opt(t.chain(origin, (ORIGIN, "sqlText"))), t.opt(t.chain(origin, (ORIGIN, "objectType")))]
    head = (t.line.collection_class("iterable"), "head")
    child0 = t.chain((TREE_NODE, "children"), head)
    inner0 = t.chain((QUERY_PLAN, "innerChildren"), head)
    candidates = [
        t.identity(),
        child0,
        inner0,
        t.chain(child0, child0),
        t.chain(child0, child0, child0),
    ]
    sql_record = t.record([t.record([t.chain(c, h) for h in sql], CTSEP) for c in candidates], SEP3)
    return t.function(
        t.builder(
            t.record(
                [
                    t.chain(("java.lang.Object", "getClass"), ("java.lang.Class", "getName")),
                    dispatch,
                    sql_record,
                ]
            )
        )
    )


class CommandOutputs(InputReading, CatalogOutputs):
    """The output half of :class:`~lineage_operators.spark.plan.reader.PlanReader` (inputs and catalog
    lookups are its bases: an insert reads its target as a leaf, DDL looks tables up)."""

    _t: JvmTools

    # -- outputs -------------------------------------------------------------------------------

    #: the write metrics text when the execution's one-call read fetched it
    #: (:mod:`~lineage_operators.spark.plan.batch`)
    _prefetched_metrics: str | object | None = _NOT_FETCHED

    def _metrics(self, qe: Any) -> dict[str, int]:
        try:
            if self._prefetched_metrics is not _NOT_FETCHED:
                return parse_metrics(self._prefetched_metrics)  # type: ignore[arg-type]
            return parse_metrics(write_metrics_text(self._t, qe.executedPlan()))
        except Exception as exc:
            log.debug("lineage capture: no write metrics: %s", describe(exc))
            return {}

    def _with_stats(self, rel: RelationFacts, qe: Any, succeeded: bool) -> RelationFacts:
        if not succeeded:
            return rel
        metrics = self._metrics(qe)
        rel.rows = metrics.get("numOutputRows")
        rel.size = metrics.get("numOutputBytes")
        rel.files = metrics.get("numFiles")
        return rel

    def _outputs(
        self,
        cls: str,
        cmd: list[str | None],
        plan: Any,
        qe: Any,
        *,
        succeeded: bool,
        inputs: list[RelationFacts],
    ) -> list[RelationFacts]:
        """Datasets written by the root command ``cls``: the handler of its entry in
        :data:`~lineage_operators.spark.plan.command_table.COMMANDS`, none for other roots."""
        command = BY_CLASS.get(cls)
        if command is None:
            return []
        outputs = command.handle(self, Call(cls, cmd, plan, qe, succeeded, inputs))
        # a failed write made no Delta version: the table's current one is not this task's
        if not succeeded:
            return outputs
        counted = self.__dict__.setdefault("_delta_commits_counted", set())
        return delta.complete_written(self._t, self._jss, outputs, counted)

    def _save_into(self, cmd: list[str | None], qe: Any, succeeded: bool) -> list[RelationFacts]:
        source_cls, mode, url, dbtable, query, path, schema, short = (_at(cmd, i) for i in range(8))
        lifecycle = {"Overwrite": "OVERWRITE", "Append": None}.get(mode or "", "CREATE")
        if source_cls == kafka.KAFKA_PROVIDER:  # whatever the save mode, a topic is appended to
            return [
                self._with_stats(r, qe, succeeded)
                for r in kafka.write_facts(_at(cmd, 8), _at(cmd, 9), schema)
            ]
        if url and url.lower().startswith("jdbc:"):
            rel = self._jdbc(url, dbtable, query, schema)
        elif path:
            rel = RelationFacts(location=path, schema_text=schema, file_format=short)
            if short == "delta":
                rel.provider = "delta"
        else:
            name = (source_cls or "?").rsplit(".", 1)[-1]
            if short != "noop":
                log.info("lineage capture: write to data source %s has no dataset identity", short or name)
            return []
        rel.lifecycle = lifecycle
        return [self._with_stats(rel, qe, succeeded)]
