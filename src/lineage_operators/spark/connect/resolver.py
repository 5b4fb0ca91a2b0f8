"""A recorded Connect plan + server lookups -> the plain facts the classic capture produces.

The output is :class:`~lineage_operators.spark.plan.ExecutionFacts` holding
:class:`~lineage_operators.spark.plan.RelationFacts`, so naming, merging and facets are the classic
capture's (:mod:`lineage_operators.spark.resolve`). The rules mirror what a classic session's plan
says for the same action (see :mod:`lineage_operators.spark.plan`):

* file reads: the read's root paths (globs expanded from the server's input files; a single root
  stays what it is, with several a file stands for its directory), the relation's full schema,
  the format;
* table reads/writes: the catalog's location, identity and provider (DESCRIBE TABLE EXTENDED);
* ``df.write...save(path)``: the path, the written query's schema, OVERWRITE for mode overwrite;
* ``saveAsTable`` (a CTAS on the server): CREATE, or no change when appending; ``insertInto``:
  OVERWRITE or none; ``writeTo``: CREATE / OVERWRITE / none as the V2 command it runs;
* SQL: tables from ``openlineage-sql``, lifecycle from the statement (:mod:`.sql`); DROP of a table
  reports its remembered location (the classic capture's memory), else the managed location;
* JDBC reads/writes: URL (redacted) and table or query, as the classic capture.
"""

from __future__ import annotations

import fnmatch
import posixpath
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from lineage_operators._logging import get_logger
from lineage_operators.spark.connect.plans import ConnectPlan, SourceRead, TableRead, WriteTarget
from lineage_operators.spark.connect.server import ServerLookups, TableInfo
from lineage_operators.spark.connect.sql import SqlStatement, SqlTable, parse_statement
from lineage_operators.spark.plan import ExecutionFacts, RelationFacts, TableRef, known_table, remember_table

log = get_logger(__name__)

_GLOB = frozenset("*?[]{}")
_SESSION_CATALOG = "spark_catalog"
_FILE_FORMATS = frozenset({"parquet", "csv", "json", "orc", "text", "avro", "binaryfile", "xml"})
_DEFAULT_SOURCE = "spark.sql.sources.default"


def _path_of(uri: str) -> str:
    parts = urlsplit(uri)
    path = unquote(parts.path) if parts.scheme else uri
    return path.rstrip("/") or "/"


def _prefix_of(uri: str) -> str:
    """``file:///a/b`` -> ``file:``, ``s3a://bucket/k`` -> ``s3a://bucket``, ``/a`` -> ``""``."""
    parts = urlsplit(uri)
    if not parts.scheme:
        return ""
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else f"{parts.scheme}:"


def source_roots(paths: tuple[str, ...], files: list[str]) -> list[str]:
    """Pure: the datasets a classic session names for a read of ``paths`` that listed ``files``.

    Like Spark's file index: a glob stands for what it matched. Then, as openlineage-spark (and
    ``plan._directories``): a single root stays what it is, file or directory; with several roots,
    a root that is a file stands for its directory. Roots are qualified with the files' scheme.
    """
    file_paths = [(_path_of(f), _prefix_of(f)) for f in files]
    file_set = {p for p, _ in file_paths}
    expanded: list[tuple[str, str]] = []

    def add(path: str, prefix: str) -> None:
        if (path, prefix) not in expanded:
            expanded.append((path, prefix))

    for given in paths:
        path, prefix = _path_of(given), _prefix_of(given)
        if not any(ch in _GLOB for ch in path):
            add(path, prefix or next((p for f, p in file_paths if f.startswith(path)), ""))
            continue
        depth = len(path.strip("/").split("/"))
        matched = False
        for file_path, file_prefix in file_paths:
            candidate = "/" + "/".join(file_path.strip("/").split("/")[:depth])
            if fnmatch.fnmatchcase(candidate, path):
                add(candidate, prefix or file_prefix)
                matched = True
        if not matched:
            add(path, prefix)  # nothing matched: named by the directory above the glob
    single = len(expanded) == 1
    roots: list[str] = []
    for path, prefix in expanded:
        named = posixpath.dirname(path) if not single and path in file_set else path
        root = f"{prefix}{named}" if prefix else named
        if root not in roots:
            roots.append(root)
    return roots


def _split_name(name: str) -> tuple[str | None, str | None, str]:
    parts = [p.strip("`") for p in name.split(".")]
    if len(parts) >= 3:
        return parts[-3], parts[-2], parts[-1]
    if len(parts) == 2:
        return None, parts[0], parts[1]
    return None, None, parts[0]


@dataclass
class ConnectResolver:
    """Resolves the task's plans in order; remembers its temp views and tables."""

    lookups: ServerLookups
    views: dict[str, list[SourceRead | TableRead | SqlTable]] = field(default_factory=dict)
    #: Paths the task's ``df.write`` created: directories, so reading them needs no file listing.
    written: set[str] = field(default_factory=set)

    def _known_directories(self, paths: tuple[str, ...], written: set[str]) -> bool:
        return bool(paths) and all(not any(ch in _GLOB for ch in p) and _path_of(p) in written for p in paths)

    # -- entry -------------------------------------------------------------------------------

    def facts(self, plan: ConnectPlan, succeeded: bool) -> ExecutionFacts | None:
        """The facts of one executed plan, or None when it touched no dataset."""
        if plan.kind == "view":
            if plan.view:
                self.views[plan.view.lower()] = [*plan.reads, *self._sql_tables(plan.sql)]
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
        facts.inputs = self._inputs(plan.reads, plan.sql, statement, succeeded)
        if plan.write is not None:
            facts.outputs = self._write_outputs(plan.write, plan.query, plan.operation_id, succeeded)
        elif statement is not None:
            facts.outputs = self._sql_outputs(statement)
        for rel in (*facts.inputs, *facts.outputs):
            if rel.table is not None and rel.lifecycle not in ("DROP", "RENAME"):
                remember_table(rel.table, rel.location, rel.provider)
        if not facts.inputs and not facts.outputs and not facts.sql:
            return None
        return facts

    def prefetch(self, plans: list[ConnectPlan], workers: int = 4) -> None:
        """Ask the server, concurrently, the ``AnalyzePlan`` questions the plans will need.

        Answers (and failures) land in the lookups' cache; :meth:`facts` then reads them in order.
        Only ``AnalyzePlan`` calls (never an ``ExecutePlan``), so nothing here looks like an action.
        """
        from concurrent.futures import ThreadPoolExecutor

        jobs: list[Any] = []
        written = set(self.written)
        for plan in plans:
            for read in plan.reads:
                if isinstance(read, SourceRead) and read.paths and (read.format or "").lower() != "jdbc":
                    if not self._known_directories(read.paths, written):
                        jobs.append((self.lookups.input_files, read.relation, read.key))
                    jobs.append((self.lookups.schema, read.relation, read.key))
            if plan.write is not None and plan.query is not None:
                jobs.append((self.lookups.schema, plan.query, ("query", plan.operation_id)))
                if plan.write.path and not plan.write.table:
                    written.add(_path_of(plan.write.path))
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
    ) -> list[RelationFacts]:
        items: list[SourceRead | TableRead | SqlTable] = [*reads, *self._sql_tables(texts)]
        if statement is not None:
            items.extend(statement.inputs)
        result: list[RelationFacts] = []
        for item in self._expand_views(items):
            try:
                result.extend(self._input(item))
            except Exception as exc:
                if succeeded:
                    raise
                log.debug("lineage capture: failed action's input not resolved: %s", type(exc).__name__)
        return result

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
        known = self._known_directories(tuple(paths), self.written)
        files = [] if known else self.lookups.input_files(read.relation, read.key)
        schema = self.lookups.schema(read.relation, read.key)
        file_format = fmt if fmt in _FILE_FORMATS else None
        provider = fmt if fmt == "delta" else None
        return [
            RelationFacts(location=root, schema_text=schema, file_format=file_format, provider=provider)
            for root in source_roots(tuple(paths), files)
        ]

    def _table(self, name: str, *, with_schema: bool, lifecycle: str | None = None) -> list[RelationFacts]:
        info = self.lookups.table(name)
        if info.kind == "VIEW":
            if info.view_text:  # a persistent view reads what its query reads
                return [r for t in parse_statement(info.view_text).inputs for r in self._input(t)]
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

    # -- outputs -----------------------------------------------------------------------------

    def _write_outputs(
        self, write: WriteTarget, query: Any, operation_id: str, succeeded: bool
    ) -> list[RelationFacts]:
        schema = None
        try:
            schema = self.lookups.schema(query, key=("query", operation_id)) if query is not None else None
        except Exception as exc:
            log.debug("lineage capture: written query has no schema: %s", type(exc).__name__)
        if write.table:
            return self._table_write(write, schema, succeeded)
        fmt = self._format(write.source)
        if fmt == "jdbc":
            options = {k.lower(): v for k, v in write.options.items()}
            rel = _jdbc(options, schema)
            rel.lifecycle = {"overwrite": "OVERWRITE", "append": None}.get(write.mode or "", "CREATE")
            return [rel]
        if not write.path:
            return []
        self.written.add(_path_of(write.path))
        return [
            RelationFacts(
                location=write.path,
                schema_text=schema,
                file_format=fmt if fmt in _FILE_FORMATS else None,
                provider=fmt if fmt == "delta" else None,
                lifecycle="OVERWRITE" if write.mode == "overwrite" else None,
            )
        ]

    def _table_write(self, write: WriteTarget, schema: str | None, succeeded: bool) -> list[RelationFacts]:
        assert write.table is not None
        if write.v2:
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

    def _sql_outputs(self, statement: SqlStatement) -> list[RelationFacts]:
        lifecycle = statement.lifecycle
        if statement.kind != "drop":
            self.lookups.forget("table")
        outputs: list[RelationFacts] = []
        for table in statement.outputs:
            if table.path:
                continue
            if statement.kind == "drop":
                outputs.extend(self._dropped(table))
                continue
            with_schema = statement.kind not in ("truncate",)
            rels = self._table(table.qualified, with_schema=with_schema, lifecycle=lifecycle)
            if statement.kind == "rename" and statement.previous is not None:
                for rel in rels:
                    rel.previous_table = TableRef(statement.previous.database, statement.previous.name)
            outputs.extend(rels)
        return outputs

    def _dropped(self, table: SqlTable) -> list[RelationFacts]:
        database = table.database or self.lookups.current_database()
        ref = TableRef(
            database, table.name, None if table.catalog in (None, _SESSION_CATALOG) else table.catalog
        )
        known = known_table(ref)
        location, provider = known if known else (self._default_location(ref), None)
        if not location:
            return []
        return [RelationFacts(location=location, table=ref, provider=provider, lifecycle="DROP")]

    def _default_location(self, ref: TableRef) -> str | None:
        if ref.catalog not in (None, _SESSION_CATALOG) or not ref.database:
            return None
        base = self.lookups.database_location(ref.database)
        return f"{base.rstrip('/')}/{ref.table.lower()}" if base else None


def _table_ref(info: TableInfo) -> TableRef:
    catalog = None if info.catalog in (None, _SESSION_CATALOG) else info.catalog
    return TableRef(info.database, info.table, catalog)


def _jdbc(options: dict[str, str], schema: str | None) -> RelationFacts:
    from lineage_operators.redaction import redact_url

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


__all__ = ["ConnectResolver", "source_roots"]
