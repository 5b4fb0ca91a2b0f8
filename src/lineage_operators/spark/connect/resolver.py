"""A recorded Connect plan + server lookups -> the plain facts the classic capture produces.

The output is :class:`~lineage_operators.spark.facts.ExecutionFacts` holding
:class:`~lineage_operators.spark.facts.RelationFacts`, so naming, merging and facets are the classic
capture's (:mod:`lineage_operators.spark.resolve`). The rules mirror what a classic session's plan
says for the same action (see :mod:`lineage_operators.spark.plan.reader`):

* file reads: the read's root paths (globs expanded from the server's input files; a single root
  stays what it is, with several a file stands for its directory), the relation's full schema,
  the format;
* table reads/writes: the catalog's location, identity and provider (DESCRIBE TABLE EXTENDED);
* ``df.write...save(path)``: the path, the written query's schema, OVERWRITE for mode overwrite;
* ``saveAsTable`` (a CTAS on the server): CREATE, or no change when appending; ``insertInto``:
  OVERWRITE or none; ``writeTo``: CREATE / OVERWRITE / none as the V2 command it runs;
* SQL: tables from ``openlineage-sql``, lifecycle from the statement
  (:mod:`~lineage_operators.spark.connect.sql`), and for a
  written SQL query its column lineage (:mod:`~lineage_operators.spark.connect.columns.sql_columns`); DROP of
  a table reports the location read from the catalog just before it ran (:meth:`ConnectResolver.before_drop`),
  else what this capture saw of the table (its own :class:`TableMemory`), else the managed location;
* JDBC reads/writes: URL (redacted) and table or query, as the classic capture.

Size: one method per kind of recorded Connect plan (reads, writes, SQL commands, DDL), over
the server lookups they share; the pure parts are already in paths.py, written.py and columns/.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.column_lineage.lineage import PlanColumnLineage
from lineage_operators.redaction import redact_url
from lineage_operators.spark.connect.analyzed import analyzed_column_lineage
from lineage_operators.spark.connect.columns.frame_columns import (
    frame_column_lineage,
    read_key,
    rels_of_reads,
)
from lineage_operators.spark.connect.columns.sql_columns import column_names, sql_column_lineage
from lineage_operators.spark.connect.columns.sql_merge import merge_translation, parse_merge
from lineage_operators.spark.connect.columns.sql_relation import Unsupported, parse_query
from lineage_operators.spark.connect.paths import source_roots
from lineage_operators.spark.connect.persistent_views import ViewQueries, view_inputs
from lineage_operators.spark.connect.plans import (
    ConnectPlan,
    SourceRead,
    TableRead,
    WriteTarget,
    collect_reads,
)
from lineage_operators.spark.connect.server import ServerLookups, TableInfo
from lineage_operators.spark.connect.sql import SqlStatement, SqlTable, parse_statement, statement_kind
from lineage_operators.spark.connect.written import WrittenFiles
from lineage_operators.spark.facts import SESSION_CATALOG, ExecutionFacts, RelationFacts, TableRef
from lineage_operators.spark.tables.memory import TableMemory

log = get_logger(__name__)

_FILE_FORMATS = frozenset({"parquet", "csv", "json", "orc", "text", "avro", "binaryfile", "xml"})
_DEFAULT_SOURCE = "spark.sql.sources.default"


@dataclass
class ConnectResolver:
    """Resolves the task's plans in order; remembers its temp views and tables."""

    lookups: ServerLookups
    views: dict[str, list[SourceRead | TableRead | SqlTable]] = field(default_factory=dict)
    #: Temp views defined as a plain read: their columns are the read's (column lineage).
    plain_views: set[str] = field(default_factory=set)
    #: The task's file writes: reading them back needs no listing, often no schema lookup.
    written: WrittenFiles = field(default_factory=WrittenFiles)
    #: The tables this capture saw (this task's catalog only): a DROP reports their location.
    tables: TableMemory = field(default_factory=TableMemory)
    #: operation id of a DROP -> catalog entries of its tables, read before it ran.
    dropping: dict[str, dict[str, TableInfo]] = field(default_factory=dict)
    #: operation ids of stream starts into a table that did not exist before them.
    stream_creates: set[str] = field(default_factory=set)
    #: Column lineage of DataFrame writes (off when the task turned column lineage off).
    frame_columns: bool = True
    #: Column lineage descriptions (column_lineage_descriptions): translated plans carry texts.
    describe: bool = False
    #: Temp view name -> the relation that defined it (a DataFrame write reading it by name).
    view_queries: dict[str, Any] = field(default_factory=dict)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    # -- entry -------------------------------------------------------------------------------

    def facts(self, plan: ConnectPlan, succeeded: bool) -> ExecutionFacts | None:
        """The facts of one executed plan, or None when it touched no dataset."""
        if plan.kind == "view":
            if plan.view:
                name = plan.view.lower()
                self.views[name] = [*plan.reads, *self._sql_tables(plan.sql)]
                self.view_queries[name] = plan.query
                if _rel_type(plan.query) == "read":
                    self.plain_views.add(name)
                else:
                    self.plain_views.discard(name)
            return None
        facts = ExecutionFacts(func_name=plan.kind, succeeded=succeeded)
        statement = None
        if plan.kind == "sql" and plan.command_sql:
            statement = parse_statement(plan.command_sql)
            if statement.kind in ("query", "other"):
                return None  # analysed only: its execution is a later root plan
            facts.sql = plan.command_sql
        elif plan.sql:
            facts.sql = plan.sql[0]
        facts.inputs, sources, by_read = self._inputs(plan.reads, plan.sql, statement, succeeded)
        columns = None
        if plan.write is not None:
            facts.outputs = self._write_outputs(plan.write, plan.query, plan.operation_id, succeeded)
            if _rel_type(plan.query) == "sql" and len(plan.sql) == 1:  # a SQL query written as is
                columns = parse_statement(plan.sql[0]).columns
            elif self.frame_columns and len(facts.outputs) == 1:
                try:
                    rels_of = rels_of_reads(by_read, sources, facts.inputs)
                    optimized = not _runs_v1_ctas(plan.write, None, facts.outputs[0])
                    facts.column_lineage = self._frame_columns(plan, facts.outputs[0], rels_of, optimized)
                except Exception as exc:  # a failed lookup: this write's column lineage only
                    log.info("lineage capture: no column lineage for a DataFrame write: %s", describe(exc))
        elif statement is not None:
            facts.outputs = self._sql_outputs(statement, plan.operation_id)
            if statement.kind in ("create", "replace", "insert", "insert_overwrite", "merge"):
                columns = statement.columns
        if columns is not None and len(facts.outputs) == 1:
            text = plan.command_sql or (plan.sql[0] if plan.sql else None)
            if self.frame_columns and text:
                try:  # the classic rules: over the server's analyzed plan, else the translation
                    optimized = not _runs_v1_ctas(plan.write, statement, facts.outputs[0])
                    facts.column_lineage = self._analyzed_columns(
                        text, facts, sources, by_read, optimized
                    ) or self._select_columns(
                        text, facts.outputs[0], rels_of_reads(by_read, sources, facts.inputs), optimized
                    )
                except Exception as exc:
                    log.info("lineage capture: SQL column lineage from openlineage-sql: %s", describe(exc))
            if facts.column_lineage is None and columns:
                facts.column_lineage = sql_column_lineage(
                    columns, sources, facts.outputs[0].schema_text, self._ids
                )
        for rel in (*facts.inputs, *facts.outputs):
            if rel.table is not None and rel.lifecycle not in ("DROP", "RENAME"):
                self.tables.remember(rel.table, rel.location, rel.provider)
        if not facts.inputs and not facts.outputs and not facts.sql:
            return None
        return facts

    def before_drop(self, operation_id: str, text: str) -> None:
        """Read the catalog entry of each table a DROP statement removes, before it is sent.

        Read only (``DESCRIBE TABLE EXTENDED``): what runs is unchanged. A table this capture saw
        needs no read; one that does not exist (``DROP TABLE IF EXISTS``) is left to :meth:`_dropped`.
        """
        statement = parse_statement(text)
        if statement.kind != "drop":
            return
        found: dict[str, TableInfo] = {}
        for table in statement.outputs:
            if table.path or (table.database and self.tables.known(_sql_ref(table, table.database))):
                continue
            try:
                info = self.lookups.describe(table.qualified)
            except Exception:
                continue
            if info.kind != "VIEW":
                found[table.qualified] = info
        if found:
            self.dropping[operation_id] = found

    def before_stream(self, operation_id: str, table: str) -> None:
        """Does the table a stream is about to start into exist? ``toTable`` creates it when not,
        and a classic session then reports the stream's table as created."""
        try:
            self.lookups.describe(table)
        except Exception:
            self.stream_creates.add(operation_id)

    def prefetch(self, plans: list[ConnectPlan], workers: int = 4) -> None:
        """Ask the server, concurrently, the ``AnalyzePlan`` questions the plans will need.

        Answers (and failures) land in the lookups' cache; :meth:`facts` then reads them in order.
        Only ``AnalyzePlan`` calls (never an ``ExecutePlan``), so nothing here looks like an action.
        Skipped: listings of directories the task wrote, schemas a write of the task gives.
        """
        from concurrent.futures import ThreadPoolExecutor

        jobs: list[Any] = []
        written = self.written.copy()
        for plan in plans:
            for read in plan.reads:
                if isinstance(read, SourceRead) and read.paths and (read.format or "").lower() != "jdbc":
                    if not written.known_directories(read.paths):
                        jobs.append((self.lookups.input_files, read.relation, read.key))
                    if not written.reusable(read, self._format(read.format)):
                        jobs.append((self.lookups.schema, read.relation, read.key))
            write = plan.write
            if write is not None and plan.query is not None:
                if _plain_source(plan.query) is None:
                    jobs.append((self.lookups.schema, plan.query, ("query", plan.operation_id)))
                if write.path and not write.table:
                    written.add(write, self._format(write.source), None, expected=True)
        if len(jobs) < 2:
            return

        def run(job: Any) -> None:
            method, relation, key = job
            try:
                method(relation, key)
            except Exception:
                return  # cached as a failure; reported when the plan is resolved

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lineage-connect") as pool:
            list(pool.map(run, jobs))

    # -- schemas -----------------------------------------------------------------------------

    def _read_schema(self, read: SourceRead) -> str:
        reused = self.written.schema_of(read, self._format(read.format))
        return reused if reused is not None else self.lookups.schema(read.relation, read.key)

    def _query_schema(self, query: Any, operation_id: str) -> str:
        """A written query's schema; a plain read's is the read's (cached or known from a write)."""
        read = _plain_source(query)
        if read is not None:
            return self._read_schema(read)
        return self.lookups.schema(query, key=("query", operation_id))

    # -- inputs ------------------------------------------------------------------------------

    def _sql_tables(self, texts: list[str]) -> list[SqlTable]:
        tables: list[SqlTable] = []
        for text in texts:
            tables.extend(parse_statement(text).inputs)
        return tables

    def _inputs(
        self,
        reads: list[SourceRead | TableRead],
        texts: list[str],
        statement: SqlStatement | None,
        succeeded: bool,
    ) -> tuple[list[RelationFacts], dict[SqlTable, list[RelationFacts]], dict[Any, list[RelationFacts]]]:
        """The inputs; for each SQL table whose columns are its relations' (column lineage) the
        relations it resolved to; the same for each DataFrame read (by :func:`read_key`)."""
        items: list[SourceRead | TableRead | SqlTable] = [*reads, *self._sql_tables(texts)]
        if statement is not None:
            items.extend(statement.inputs)
        result: list[RelationFacts] = []
        sources: dict[SqlTable, list[RelationFacts]] = {}
        by_read: dict[Any, list[RelationFacts]] = {}
        for item in items:
            rels: list[RelationFacts] = []
            for part in self._expand_views([item]):
                try:
                    found = self._input(part)
                except Exception as exc:
                    if succeeded:
                        raise
                    log.debug("lineage capture: failed action's input not resolved: %s", type(exc).__name__)
                    continue
                rels.extend(found)
                if not isinstance(part, SqlTable):
                    by_read.setdefault(read_key(part), []).extend(found)
            result.extend(rels)
            if isinstance(item, SqlTable) and rels and item not in sources and self._keeps_columns(item):
                sources[item] = rels
        return result, sources, by_read

    def _keeps_columns(self, table: SqlTable) -> bool:
        """Are the table's columns those of the relations it resolves to (not a renaming view)?"""
        if table.path:
            return True
        name = table.name.strip("`").lower()
        if not table.database and name in self.views:
            return name in self.plain_views
        try:
            return self.lookups.table(table.qualified).kind != "VIEW"
        except Exception:
            return False

    def _expand_views(
        self, items: list[SourceRead | TableRead | SqlTable], depth: int = 0
    ) -> list[SourceRead | TableRead | SqlTable]:
        expanded: list[SourceRead | TableRead | SqlTable] = []
        for item in items:
            name = item.name if isinstance(item, TableRead | SqlTable) else None
            view = self.views.get(name.strip("`").lower()) if name and "." not in name else None
            if view is not None and depth < 8:
                expanded.extend(self._expand_views(view, depth + 1))
            else:
                expanded.append(item)
        return expanded

    def _input(self, item: SourceRead | TableRead | SqlTable) -> list[RelationFacts]:
        if isinstance(item, SourceRead):
            return self._source(item)
        if isinstance(item, SqlTable) and item.path:
            from pyspark.sql.connect.proto import relations_pb2

            relation = relations_pb2.Relation()
            relation.read.data_source.format = item.file_format or ""
            relation.read.data_source.paths.append(item.path)
            return self._source(SourceRead(item.file_format, (item.path,), {}, relation))
        name = item.name if isinstance(item, TableRead) else item.qualified
        return self._table(name, with_schema=True)

    def _format(self, fmt: str | None) -> str:
        return (fmt or self.lookups.conf().get(_DEFAULT_SOURCE) or "parquet").lower()

    def _source(self, read: SourceRead) -> list[RelationFacts]:
        fmt = self._format(read.format)
        if fmt == "jdbc":
            options = {k.lower(): v for k, v in read.options.items()}
            schema = self.lookups.schema(read.relation, read.key) if options.get("dbtable") else None
            return [_jdbc(options, schema)]
        paths = read.paths or ((read.options["path"],) if "path" in read.options else ())
        if not paths:
            return []  # a source without paths (noop, rate...): no dataset identity
        known = self.written.known_directories(tuple(paths))
        files = [] if known else self.lookups.input_files(read.relation, read.key)
        schema = self._read_schema(read)
        file_format = fmt if fmt in _FILE_FORMATS else None
        provider = fmt if fmt == "delta" else None
        return [
            RelationFacts(location=root, schema_text=schema, file_format=file_format, provider=provider)
            for root in source_roots(tuple(paths), files)
        ]

    def _table(self, name: str, *, with_schema: bool, lifecycle: str | None = None) -> list[RelationFacts]:
        info = self.lookups.table(name)
        if info.kind == "VIEW":
            if info.view_text:  # a persistent view reads what its query reads, named where it was made
                return [r for t in view_inputs(info) for r in self._input(t)]
            return []
        ref = _table_ref(info)
        location = info.location or self._default_location(ref)
        schema = self.lookups.table_schema(name) if with_schema else None
        return [
            RelationFacts(
                location=location,
                table=ref,
                schema_text=schema,
                provider=info.provider,
                file_format=info.provider if info.provider in _FILE_FORMATS else None,
                lifecycle=lifecycle,
            )
        ]

    # -- column lineage of DataFrame writes --------------------------------------------------

    @property
    def _views(self) -> ViewQueries:
        """The views a translation reads through: the task's temp views, then persistent ones."""
        return ViewQueries(self.view_queries, self.lookups.table)

    def _leaf_schema(self, item: Any) -> str | None:
        if isinstance(item, SourceRead):
            if self._format(item.format) == "jdbc":
                return self.lookups.schema(item.relation, item.key)
            return self._read_schema(item)
        if isinstance(item, TableRead):
            return self.lookups.table_schema(item.name)
        return self.lookups.schema(item, key=("leaf", item.SerializeToString()))

    def _frame_columns(
        self, plan: ConnectPlan, output: RelationFacts, rels_of: Any, optimized: bool = True
    ) -> PlanColumnLineage | None:
        """The written DataFrame's column lineage (classic rules over the translated plan), or None;
        ``optimized``: False for a V1 CTAS (:func:`_runs_v1_ctas`)."""
        write = plan.write
        if write is None or plan.query is None:
            return None
        schema = output.schema_text
        if write.save_method == "insert_into" and write.table:  # by position, the table's names
            schema = self.lookups.table_schema(write.table)
        names = column_names(schema)
        return self._translated(plan.query, rels_of, names, optimized=optimized)

    def _analyzed_columns(
        self,
        text: str,
        facts: ExecutionFacts,
        sources: dict[SqlTable, list[RelationFacts]],
        by_read: dict[Any, list[RelationFacts]],
        optimized: bool,
    ) -> PlanColumnLineage | None:
        """Column lineage of a SQL statement from the server's analyzed plan
        (:mod:`~lineage_operators.spark.connect.analyzed`), or None (the translation is tried)."""
        if statement_kind(text) == "merge" or self.describe:
            return None  # descriptions need the expressions' SQL texts, which the plan text has not
        paths = [rels for table, rels in sources.items() if table.path]

        def candidates(view: str | None) -> list[list[RelationFacts]]:
            items = self.views.get(view.lower()) if view and "." not in view else None
            if items is None:
                return paths
            parts = self._expand_views(items)
            return [by_read.get(read_key(p)) or [] for p in parts if not isinstance(p, SqlTable)] + paths

        return analyzed_column_lineage(
            lambda wide: self.lookups.analyzed_plan(text, wide),
            column_names(facts.outputs[0].schema_text),
            facts.inputs,
            candidates,
            self._ids,
            optimized=optimized,
            statement=text,
        )

    def _select_columns(
        self, text: str, output: RelationFacts, rels_of: Any, optimized: bool = True
    ) -> PlanColumnLineage | None:
        """Column lineage of a SQL statement's query by the classic rules (parsed into Relations,
        :mod:`~lineage_operators.spark.connect.columns.sql_relation`), or None (logged at debug,
        with why: the statement keeps openlineage-sql's lineage)."""
        names = column_names(output.schema_text)
        if statement_kind(text) == "merge":
            return self._merge_columns(text, names, rels_of)
        try:
            query = parse_query(text)
        except Unsupported as exc:
            log.debug("lineage capture: SQL column lineage from openlineage-sql: %s", exc)
            return None
        relation = query.relation
        if query.columns is not None:  # INSERT INTO t (b, a): into the table's columns, by name
            if names is None:
                return None
            relation = _insert_columns(relation, query.columns, names)
        return self._translated(relation, rels_of, names, optimized=optimized)

    def _translated(
        self, relation: Any, rels_of: Any, names: list[str] | None, **how: Any
    ) -> PlanColumnLineage | None:
        """Column lineage of a translated relation (:mod:`~.columns.frame_columns`), by the classic rules."""
        return frame_column_lineage(
            relation, self._leaf_schema, self._views, rels_of, names, self._ids, self.describe, **how
        )

    def _merge_columns(self, text: str, names: list[str] | None, rels_of: Any) -> PlanColumnLineage | None:
        """A ``MERGE INTO``'s column lineage as a classic session's Delta MERGE gets it
        (:mod:`~lineage_operators.spark.connect.columns.sql_merge`), or None (logged at debug)."""
        try:
            merge = parse_merge(text)
        except Unsupported as exc:
            log.debug("lineage capture: SQL column lineage from openlineage-sql: %s", exc)
            return None
        return self._translated(merge, rels_of, names, translator=merge_translation)

    # -- outputs -----------------------------------------------------------------------------

    def _write_outputs(
        self, write: WriteTarget, query: Any, operation_id: str, succeeded: bool
    ) -> list[RelationFacts]:
        schema = None
        try:
            schema = self._query_schema(query, operation_id) if query is not None else None
        except Exception as exc:
            log.debug("lineage capture: written query has no schema: %s", type(exc).__name__)
        if write.table:
            return self._table_write(write, schema, succeeded, operation_id)
        fmt = self._format(write.source)
        if fmt == "jdbc":
            options = {k.lower(): v for k, v in write.options.items()}
            rel = _jdbc(options, schema)
            rel.lifecycle = {"overwrite": "OVERWRITE", "append": None}.get(write.mode or "", "CREATE")
            return [rel]
        if not write.path:
            return []
        if succeeded:
            self.written.add(write, fmt, schema)
        else:
            self.written.forget(write)
        return [
            RelationFacts(
                location=write.path,
                schema_text=schema,
                # a stream's path: no format, as a classic session (the sink keeps it private)
                file_format=fmt if fmt in _FILE_FORMATS and not write.stream else None,
                provider=fmt if fmt == "delta" else None,
                lifecycle="OVERWRITE" if write.mode == "overwrite" else None,
            )
        ]

    def _table_write(
        self, write: WriteTarget, schema: str | None, succeeded: bool, operation_id: str
    ) -> list[RelationFacts]:
        assert write.table is not None
        if write.stream:  # toTable: created by the stream's start when new
            lifecycle = "CREATE" if operation_id in self.stream_creates else None
        elif write.v2:
            lifecycle = {
                "create": "CREATE",
                "replace": "OVERWRITE",
                "create_or_replace": "OVERWRITE",
                "overwrite": "OVERWRITE",
                "overwrite_partitions": "OVERWRITE",
            }.get(write.mode or "")
        elif write.save_method == "insert_into":
            lifecycle = "OVERWRITE" if write.mode == "overwrite" else None
        else:  # saveAsTable: a CTAS unless it appended to an existing table
            lifecycle = None if write.mode in ("append", "ignore") else "CREATE"
        self.lookups.forget("table")
        try:
            rels = self._table(write.table, with_schema=False, lifecycle=lifecycle)
        except Exception:
            if succeeded:
                raise
            return []  # the failed write created no table
        for rel in rels:
            rel.schema_text = schema or rel.schema_text
        return rels

    def _sql_outputs(self, statement: SqlStatement, operation_id: str) -> list[RelationFacts]:
        lifecycle = statement.lifecycle
        before = self.dropping.pop(operation_id, {})
        if statement.kind != "drop":
            self.lookups.forget("table")
        outputs: list[RelationFacts] = []
        for table in statement.outputs:
            if table.path:
                continue
            if statement.kind == "drop":
                outputs.extend(self._dropped(table, before.get(table.qualified)))
                continue
            with_schema = statement.kind not in ("truncate",)
            rels = self._table(table.qualified, with_schema=with_schema, lifecycle=lifecycle)
            if statement.kind == "rename" and statement.previous is not None:
                for rel in rels:
                    rel.previous_table = TableRef(statement.previous.database, statement.previous.name)
            outputs.extend(rels)
        return outputs

    def _dropped(self, table: SqlTable, before: TableInfo | None) -> list[RelationFacts]:
        """The catalog entry read before the DROP ran, else what this capture saw of the table,
        else the managed location (as a classic session)."""
        if before is not None:
            ref = _table_ref(before)
            location, provider = before.location or self._default_location(ref), before.provider
        else:
            ref = _sql_ref(table, table.database or self.lookups.current_database())
            known = self.tables.known(ref)
            location, provider = known if known else (self._default_location(ref), None)
        if not location:
            return []
        return [RelationFacts(location=location, table=ref, provider=provider, lifecycle="DROP")]

    def _default_location(self, ref: TableRef) -> str | None:
        if ref.catalog not in (None, SESSION_CATALOG) or not ref.database:
            return None
        base = self.lookups.database_location(ref.database)
        return f"{base.rstrip('/')}/{ref.table.lower()}" if base else None


def _runs_v1_ctas(write: WriteTarget | None, statement: SqlStatement | None, output: RelationFacts) -> bool:
    """Whether the server runs this write as a V1 CTAS (``CreateDataSourceTableAsSelectCommand``,
    as a classic session does): ``saveAsTable`` (any mode), ``writeTo().create()`` or ``CREATE TABLE
    ... AS SELECT`` of a table in a built-in file format (Delta, Iceberg and Hive tables take other
    commands). openlineage-spark reads that command's query as analyzed, so the column lineage is
    read so too (``optimized=False``, spark/plan/columns/compact.py ``ANALYZED_QUERY_COMMANDS``)."""
    if (output.provider or "").lower() not in _FILE_FORMATS:
        return False
    if write is not None:
        if not write.table or write.stream:  # a stream's micro-batches append to its table
            return False
        return write.mode == "create" if write.v2 else write.save_method != "insert_into"
    return statement is not None and statement.kind == "create"


def _insert_columns(relation: Any, columns: tuple[str, ...], names: list[str]) -> Any:
    """An INSERT's query under its column list, projected to the table's columns (NULL for the
    ones not listed), as Spark's analyzer does."""
    from pyspark.sql.connect.proto import relations_pb2

    renamed = relations_pb2.Relation()
    renamed.to_df.input.CopyFrom(relation)
    renamed.to_df.column_names.extend(columns)
    projected = relations_pb2.Relation()
    projected.project.input.CopyFrom(renamed)
    listed = {c.lower(): c for c in columns}
    for name in names:
        quoted = "`" + name.replace("`", "``") + "`"
        text = listed.get(name.lower())
        expr = projected.project.expressions.add()
        expr.expression_string.expression = (
            f"`{text.replace('`', '``')}` AS {quoted}" if text else f"NULL AS {quoted}"
        )
    return projected


def _rel_type(relation: Any) -> str | None:
    return relation.WhichOneof("rel_type") if relation is not None else None


def _plain_source(query: Any) -> SourceRead | None:
    """The file/JDBC read a written query is, when it is nothing more (its schema is the read's)."""
    if _rel_type(query) != "read":
        return None
    reads, _ = collect_reads(query)
    return reads[0] if len(reads) == 1 and isinstance(reads[0], SourceRead) else None


def _sql_ref(table: SqlTable, database: str) -> TableRef:
    catalog = None if table.catalog in (None, SESSION_CATALOG) else table.catalog
    return TableRef(database, table.name, catalog)


def _table_ref(info: TableInfo) -> TableRef:
    catalog = None if info.catalog in (None, SESSION_CATALOG) else info.catalog
    return TableRef(info.database, info.table, catalog)


def _jdbc(options: dict[str, str], schema: str | None) -> RelationFacts:
    url = options.get("url")
    dbtable = options.get("dbtable")
    table_read = bool(dbtable) and not (dbtable or "").lstrip().startswith("(")
    return RelationFacts(
        jdbc_url=redact_url(url) if url else None,
        jdbc_table=dbtable,
        jdbc_query=options.get("query"),
        schema_text=schema if table_read else None,
        provider="jdbc",
    )


__all__ = ["ConnectResolver"]
