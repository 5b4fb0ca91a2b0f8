"""Outputs: the root command read (:class:`RootReader`, one JVM function built from the table of commands),
dispatched to its handler, and the catalog lookups handlers make (a session-catalog table's location,
provider and schema as the catalog holds it after the command, a v2 catalog's table, the altered table, the
managed location of a dropped table).

:class:`CommandOutputs` is the reader's side of
:class:`~lineage_operators.spark.plan.commands.CommandContext`: the handlers of
:data:`~lineage_operators.spark.plan.command_table.COMMANDS` call only its public methods. It is a base of
:class:`~lineage_operators.spark.plan.reader.PlanReader`, with the leaves'
:class:`~lineage_operators.spark.plan.leaves.InputReading` (an insert reads its target as a leaf).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import SESSION_CATALOG, RelationFacts, TableRef
from lineage_operators.spark.jvm import spark_classes as c
from lineage_operators.spark.jvm.text import CTSEP, NONE, SEP3
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.plan.alter import build_alter_fn
from lineage_operators.spark.plan.command_table import BY_CLASS, COMMANDS, FieldReaders
from lineage_operators.spark.plan.commands import Call
from lineage_operators.spark.plan.leaves import InputReading
from lineage_operators.spark.plan.records import field_at, parse_catalog_table, parse_metrics, uri_to_path
from lineage_operators.spark.tables import delta, iceberg
from lineage_operators.spark.tables.memory import TableMemory

log = get_logger(__name__)

#: A catalog lookup's answer: the table as found, its location, provider and schema.
LookedUp = tuple[TableRef | None, str | None, str | None, str | None]


@dataclass(frozen=True)
class RootReader:
    """The JVM function reading a plan's root (class name, the command's fields SEP3-joined, SQL text
    candidates) and the names of each command's fields, in the order the function reads them."""

    function: Any
    names: Mapping[str, tuple[str, ...]]

    def values(self, cls: str, fields: list[str | None]) -> dict[str, str | None]:
        """The root command's fields by name (a command whose fields this Spark cannot read: none)."""
        return {name: field_at(fields, i) for i, name in enumerate(self.names.get(cls, ()))}


def build_root_reader(t: JvmTools) -> RootReader:
    """The :class:`RootReader` of this JVM, built from the table (once per JVM: :func:`root_reader`)."""
    dispatch = t.constant(NONE)
    readers = FieldReaders(t)
    names: dict[str, tuple[str, ...]] = {}
    for command in reversed(COMMANDS):
        if command.fields is None or not t.has_class(command.cls):
            continue  # a class missing from this Spark build (e.g. no Hive module) is skipped
        try:
            fields = command.fields(readers)
            dispatch = t.when(command.cls, t.record(list(fields.values()), SEP3), dispatch)
        except Exception as exc:  # a Spark version without one of the methods: skip that command
            log.debug("lineage capture: cannot read %s on this Spark version: %s", command.cls, describe(exc))
            continue
        names[command.cls] = tuple(fields)
    origin = (c.TREE_NODE, "origin")
    sql = [t.opt(t.chain(origin, (c.ORIGIN, "sqlText"))), t.opt(t.chain(origin, (c.ORIGIN, "objectType")))]
    head = (t.line.collection_class("iterable"), "head")
    child0 = t.chain((c.TREE_NODE, "children"), head)
    inner0 = t.chain((c.QUERY_PLAN, "innerChildren"), head)
    candidates = [t.identity(), child0, inner0, t.chain(child0, child0), t.chain(child0, child0, child0)]
    sql_record = t.record([t.record([t.chain(x, y) for y in sql], CTSEP) for x in candidates], SEP3)
    class_name = t.chain(("java.lang.Object", "getClass"), ("java.lang.Class", "getName"))
    return RootReader(t.function(t.builder(t.record([class_name, dispatch, sql_record]))), names)


def root_reader(t: JvmTools) -> RootReader:
    """This JVM's :class:`RootReader` (built on first use, shared by every reader of the JVM)."""
    reader: RootReader = t.cached("plan.root", build_root_reader)
    return reader


class CatalogOutputs:
    """The catalog lookups of :class:`~lineage_operators.spark.plan.reader.PlanReader`."""

    _t: JvmTools
    _jss: Any
    _catalog: Any
    _ct_full_fn: Any
    tables: TableMemory

    def _session_catalog(self) -> Any:
        if self._catalog is None:
            self._catalog = self._jss.sessionState().catalog()
        return self._catalog

    def _table_identifier(self, table: TableRef) -> Any:
        db = self._t.java_class("scala.Option").apply(table.database)
        return self._t.java_class(c.TABLE_ID).apply(table.table, db)

    def _lookup(self, table: TableRef) -> LookedUp:
        meta = self._session_catalog().getTableMetadata(self._table_identifier(table))
        return parse_catalog_table(self._t.read(self._ct_full_fn.apply(meta)))

    def default_location(self, table: TableRef) -> str | None:
        """Where the session catalog puts ``table`` when it manages it (None for other catalogs)."""
        if table.catalog not in (None, SESSION_CATALOG):
            return None
        try:
            uri = self._session_catalog().defaultTablePath(self._table_identifier(table)).toString()
            return uri_to_path(str(uri))
        except Exception as exc:
            log.debug("lineage capture: no default location for %s: %s", table.table, describe(exc))
            return None

    def catalog_output(
        self, table: TableRef, lifecycle: str | None, with_schema: bool = True
    ) -> list[RelationFacts]:
        """A session-catalog table as an output, as the catalog holds it now."""
        if not table.table:
            return []
        try:
            looked_up = self._lookup(table)
        except Exception:
            log.warning("lineage capture: table %s not found in the catalog", table.table)
            return []
        return [self._looked_up_output(table, looked_up, lifecycle, with_schema)]

    def _looked_up_output(
        self, table: TableRef, looked_up: LookedUp, lifecycle: str | None, with_schema: bool = True
    ) -> RelationFacts:
        """The output made of one :meth:`_lookup` answer (a second lookup could miss a table the task
        renamed meanwhile)."""
        found, location, provider, schema = looked_up
        return RelationFacts(
            location=location or self.default_location(found or table),
            table=found or table,
            provider=provider,
            schema_text=schema if with_schema else None,
            lifecycle=lifecycle,
        )

    def dropped(self, table: TableRef, if_exists: bool) -> list[RelationFacts]:
        """DROP: the table is gone, so its location comes from memory or the catalog's default.

        openlineage-spark reads the table at the execution's START event; a query listener only
        sees the end, so: the location remembered from an earlier plan of this capture, else the
        managed-table location ``SessionCatalog.defaultTablePath`` (right for managed tables).
        """
        if table.database is None and table.catalog is None:
            try:
                table = TableRef(str(self._jss.catalog().currentDatabase()), table.table)
            except Exception as exc:
                log.debug("lineage capture: no current database: %s", describe(exc))
        known = self.tables.known(table)
        location, provider = known if known else (self.default_location(table), None)
        if not location:
            return []
        if not known and if_exists:
            log.debug("lineage capture: DROP TABLE IF EXISTS %s: location assumed managed", table.table)
        return [RelationFacts(location=location, table=table, provider=provider, lifecycle="DROP")]

    def v2_table_output(
        self, catalog: str | None, namespace: str | None, name: str, lifecycle: str | None
    ) -> list[RelationFacts]:
        """A table of a v2 catalog as an output, loaded from its catalog: an Iceberg table with its
        snapshot and symlink, a session-catalog table from the catalog, else the table's properties."""
        loaded = iceberg.load_table(self._jss, self._t, catalog, namespace, name)
        if loaded is not None:
            return [RelationFacts(table=TableRef(namespace, name, catalog), lifecycle=lifecycle, **loaded)]
        if catalog == SESSION_CATALOG:
            return self.catalog_output(TableRef(namespace, name), lifecycle)
        try:
            plugin = self._jss.sessionState().catalogManager().catalog(catalog)
            ns = self._t.array("java.lang.String", namespace.split(".") if namespace else [])
            ident = self._t.java_class(c.IDENTIFIER).of(ns, name)
            props = plugin.loadTable(ident).properties()
            location, provider, fmt = (props.get(k) for k in ("location", "provider", "format"))
        except Exception as exc:
            log.debug("lineage capture: cannot load %s.%s: %s", catalog, name, describe(exc))
            location = provider = fmt = None
        return [
            RelationFacts(
                location=location,
                table=TableRef(namespace, name, catalog),
                provider=provider,
                file_format=fmt.split("/")[-1] if fmt else None,
                lifecycle=lifecycle,
            )
        ]

    def altered(self, plan: Any) -> list[RelationFacts]:
        """The table an ALTER TABLE changed (:mod:`~lineage_operators.spark.plan.alter`), read back from
        its catalog, lifecycle ALTER; [] when ``plan`` is no ALTER."""
        text = self._t.cached("alter.table", build_alter_fn).apply(plan)
        if not isinstance(text, str) or text == NONE or not text:
            return []
        values = [None if v in ("", NONE) else v for v in text.split(SEP3)]
        catalog, namespace, name = [*values, None, None, None][:3]
        if not name:
            return []
        if catalog in (None, SESSION_CATALOG):
            loaded = iceberg.load_table(self._jss, self._t, SESSION_CATALOG, namespace, name)
            if loaded is not None:  # Iceberg's SparkSessionCatalog: its v1 entry keeps the created schema
                table = TableRef(namespace, name, SESSION_CATALOG)
                return [RelationFacts(table=table, lifecycle="ALTER", **loaded)]
            return self.altered_session_table(TableRef(namespace, name))
        return self.v2_table_output(catalog, namespace, name, "ALTER")

    def altered_session_table(self, table: TableRef) -> list[RelationFacts]:
        """The altered session-catalog table as the catalog holds it now; when it is no longer there
        (a later command of the task renamed or dropped it before this execution was read), the table
        under its name, without schema: :func:`lineage_operators.spark.passes.schema_from_renames` takes
        it from the rename."""
        try:
            looked_up = self._lookup(table)
        except Exception:
            known = self.tables.known(table)
            location = known[0] if known else self.default_location(table)
            if not location:
                return []
            return [RelationFacts(location=location, table=table, lifecycle="ALTER")]
        return [self._looked_up_output(table, looked_up, "ALTER")]


class CommandOutputs(InputReading, CatalogOutputs):
    """The output half of :class:`~lineage_operators.spark.plan.reader.PlanReader`: the root command's
    outputs, from the handler of its class (the handlers' context is this class)."""

    #: the ``(location, version)`` Delta commits whose statistics this reader gave already
    _delta_commits_counted: set[tuple[str, int]]

    def with_stats(self, rel: RelationFacts, call: Call) -> RelationFacts:
        """``rel`` with the write's metrics (rows, bytes, files) when it succeeded: the text read with
        the execution (for :data:`~lineage_operators.spark.plan.batch.METRICS_COMMANDS`)."""
        if not call.succeeded:
            return rel
        metrics = parse_metrics(call.metrics_text)
        rel.rows = metrics.get("numOutputRows")
        rel.size = metrics.get("numOutputBytes")
        rel.files = metrics.get("numFiles")
        return rel

    def outputs(self, call: Call) -> list[RelationFacts]:
        """Datasets written by the root command ``call.cls``: the handler of its entry in
        :data:`~lineage_operators.spark.plan.command_table.COMMANDS`, none for other roots."""
        command = BY_CLASS.get(call.cls)
        if command is None:
            return []
        outputs = command.handle(self, call)
        # a failed write made no Delta version: the table's current one is not this task's
        if not call.succeeded:
            return outputs
        return delta.complete_written(self._t, self._jss, outputs, self._delta_commits_counted)


__all__ = ["CatalogOutputs", "CommandOutputs", "LookedUp", "RootReader", "build_root_reader", "root_reader"]
