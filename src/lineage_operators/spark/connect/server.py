"""The server round trips the Connect capture needs, each made once per task (cached).

* ``AnalyzePlan`` schema of a relation (``SparkConnectClient.schema``) -> ``StructType.json``;
* ``AnalyzePlan`` input files of a read (``SparkConnectClient._analyze("input_files")``, the call
  ``DataFrame.inputFiles`` makes) -> to tell a file from a directory and expand globs;
* ``DESCRIBE TABLE EXTENDED`` -> a table's catalog identity, type, provider and location;
* the catalog's database location and current database (DROP of a table the task never saw);
* ``DESCRIBE TABLE EXTENDED`` of a table a DROP is about to remove (the one lookup made before an
  action runs: read only, on the task's thread, before the DROP is sent);
* ``spark.conf.getAll`` (one call) -> run facets and naming context.

All of them run inside ``interceptor.paused()`` so they are not mistaken for the task's actions.
Except that DROP read, they run after the task's actions, and none changes anything on the server.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from lineage_operators._logging import quiet_here
from lineage_operators.spark.connect.analyzed import WIDE_FIELDS, explains_without_running

T = TypeVar("T")


@dataclass(frozen=True)
class TableInfo:
    """What ``DESCRIBE TABLE EXTENDED`` says about a table (or view)."""

    catalog: str | None
    database: str | None
    table: str
    kind: str | None  # MANAGED / EXTERNAL / VIEW
    provider: str | None
    location: str | None
    view_text: str | None = None
    #: A view's: the namespace its text's unqualified names are in.
    view_namespace: str | None = None
    #: The column names DESCRIBE lists first (a view's are its own, not its query's).
    columns: tuple[str, ...] = ()


def table_info_from_rows(name: str, rows: list[tuple[str, str]]) -> TableInfo:
    """Pure: the ``# Detailed Table Information`` section of DESCRIBE TABLE EXTENDED, and the column
    names its first rows list."""
    details: dict[str, str] = {}
    columns: list[str] = []
    in_details = in_columns = False
    for index, (raw_key, value) in enumerate(rows):
        key = (raw_key or "").strip()
        in_columns = (index == 0 or in_columns) and bool(key) and not key.startswith("#")
        if in_columns:
            columns.append(key)
        if key.startswith("# Detailed Table Information"):
            in_details = True
            continue
        if in_details and key.startswith("#"):
            break
        if in_details and key:
            details[key] = value or ""
    table = details.get("Table") or name.rsplit(".", 1)[-1].strip("`")
    return TableInfo(
        catalog=details.get("Catalog") or None,
        database=details.get("Database") or None,
        table=table,
        kind=(details.get("Type") or "").upper() or None,
        provider=(details.get("Provider") or "").lower() or None,
        location=details.get("Location") or None,
        view_text=details.get("View Text") or details.get("View Original Text") or None,
        view_namespace=details.get("View Catalog and Namespace") or None,
        columns=tuple(columns),
    )


_QUERY_CONTEXT_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")


@functools.cache  # pyspark's getLogger swaps the process's logger class: once, not per lookup
def _query_context_loggers() -> tuple[logging.Logger, ...]:
    """pyspark logs each error that carries a query context at ERROR, with the server's stack
    trace, through handlers of its own: a lookup's expected failure (``DESCRIBE`` of a table a
    ``DROP ... IF EXISTS`` will not find) would print one into a successful task's log."""
    try:
        from pyspark.logger import PySparkLogger  # pyspark 4; through it, never a plain Logger
    except ImportError:
        return ()
    return tuple(PySparkLogger.getLogger(name) for name in _QUERY_CONTEXT_LOGGERS)


class ServerLookups:
    """Cached server lookups for one task's Connect session."""

    def __init__(self, spark: Any, paused: Callable[[], contextlib.AbstractContextManager[None]]) -> None:
        self._spark = spark
        self._paused = paused
        self._cache: dict[Any, Any] = {}
        self.calls = 0

    @contextlib.contextmanager
    def _quiet(self) -> Iterator[None]:
        with self._paused(), quiet_here(_query_context_loggers()):
            yield

    def _cached(self, key: Any, fetch: Callable[[], T]) -> T:
        if key in self._cache:
            value = self._cache[key]
            if isinstance(value, Exception):
                raise value
            return value  # type: ignore[no-any-return]
        try:
            with self._quiet():
                self.calls += 1
                value = fetch()
        except Exception as exc:
            self._cache[key] = exc
            raise
        self._cache[key] = value
        return value

    def forget(self, kind: str) -> None:
        """Drop cached answers of one kind (tables change when the task writes them)."""
        for key in [k for k in self._cache if k[0] == kind]:
            del self._cache[key]

    @staticmethod
    def _plan(relation: Any) -> Any:
        from pyspark.sql.connect.proto import base_pb2

        plan = base_pb2.Plan()
        plan.root.CopyFrom(relation)
        return plan

    def schema(self, relation: Any, key: Any = None) -> str:
        """``StructType.json`` of a relation; uncached when ``key`` is None."""
        client = self._spark.client

        def fetch() -> str:
            return str(client.schema(self._plan(relation)).json())

        if key is None:
            with self._quiet():
                self.calls += 1
                return fetch()
        return self._cached(("schema", key), fetch)

    def input_files(self, relation: Any, key: Any) -> list[str]:
        client = self._spark.client
        return self._cached(
            ("files", key),
            lambda: list(client._analyze(method="input_files", plan=self._plan(relation)).input_files),
        )

    def analyzed_plan(self, text: str, wide: bool = False) -> str:
        """``explain(extended)`` of a SQL statement, analyzed and never run, uncached; ``wide``: with
        ``spark.sql.debug.maxToStringFields`` raised for this call and restored.

        ``AnalyzePlan`` where the server only analyzes what it explains; a 4.0 server runs a SQL command
        it is asked to explain there (an ``INSERT`` explained was inserted once more), so it is asked
        ``EXPLAIN EXTENDED <statement>``, a command that explains without running (Spark's
        ``ExplainCommand`` plans the statement in its skip-commands mode), its one row the same text."""
        from pyspark.sql.connect.proto import relations_pb2

        client = self._spark.client
        if explains_without_running(self.version()):

            def fetch() -> str:
                self.calls += 1
                relation = relations_pb2.Relation()
                relation.sql.query = text
                answer = client._analyze(method="explain", plan=self._plan(relation), explain_mode="extended")
                return str(answer.explain_string)

        else:

            def fetch() -> str:
                self.calls += 1
                return _explained(client, f"EXPLAIN EXTENDED {text}")

        with self._quiet():
            if not wide:
                return fetch()
            key = "spark.sql.debug.maxToStringFields"
            before = self._spark.conf.get(key, None)
            self._spark.conf.set(key, str(WIDE_FIELDS))
            try:
                return fetch()
            finally:
                if before is None:
                    self._spark.conf.unset(key)
                else:
                    self._spark.conf.set(key, before)

    def _describe(self, name: str) -> TableInfo:
        rows = self._spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect()
        return table_info_from_rows(name, [(r[0], r[1]) for r in rows])

    def table(self, name: str) -> TableInfo:
        return self._cached(("table", name), lambda: self._describe(name))

    def describe(self, name: str) -> TableInfo:
        """``table`` read now, not from the cache (a DROP about to run: the table as it is)."""
        with self._quiet():
            self.calls += 1
            return self._describe(name)

    def table_schema(self, name: str) -> str:
        from pyspark.sql.connect.proto import relations_pb2

        relation = relations_pb2.Relation()
        relation.read.named_table.unparsed_identifier = name
        return self.schema(relation, key=("table", name))

    def current_database(self) -> str:
        return self._cached(("db",), lambda: str(self._spark.catalog.currentDatabase()))

    def database_location(self, database: str) -> str | None:
        def fetch() -> str | None:
            return str(self._spark.catalog.getDatabase(database).locationUri or "") or None

        return self._cached(("dblocation", database), fetch)

    def conf(self) -> dict[str, str]:
        return self._cached(("conf",), lambda: dict(self._spark.conf.getAll))

    def version(self) -> str:
        return self._cached(("version",), lambda: str(self._spark.version))


def _explained(client: Any, statement: str) -> str:
    """The one row of an ``EXPLAIN`` command, in one round trip: the server answers a SQL command
    with its result rows inline (an Arrow batch in a local relation), which ``spark.sql(...).collect()``
    would send back to the server to read."""
    import pyarrow as pa
    from pyspark.sql.connect.plan import SQL

    _, properties, _ = client.execute_command(SQL(statement).command(client))
    data = properties["sql_command_result"].local_relation.data
    return str(pa.ipc.open_stream(data).read_all().column(0)[0].as_py())


__all__ = ["ServerLookups", "TableInfo", "table_info_from_rows"]
