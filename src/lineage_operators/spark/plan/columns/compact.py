"""The written query's analyzed plan as JSON, for column lineage.

Runs in the listener callback of a write execution, next to
:class:`~lineage_operators.spark.plan.reader.PlanReader`:

1. one py4j call reads the command's query facts: the written column names and their count
   (outputs wider than ``max_columns`` stop here, before any JSON is made);
2. one py4j call serializes the query *and writes it to a temporary file JVM-side*; Python reads
   the file. A py4j reply over 8 KiB waits ~40 ms on Nagle's algorithm and a chunked read costs a
   round trip per 3,000 characters, while plan JSON is easily megabytes: the file costs one call
   whatever the size (measured on the large-plan benchmark, see docs/history.md). If the
   file cannot be used (a JVM on another host), the text is read in chunks instead.

The serializer is the compact plan writer (:mod:`lineage_operators.spark.plan.columns.writer`): the shape
of ``TreeNode.toJSON()`` with only the fields the engine reads, 10-30 times smaller and faster on
wide plans. Where it cannot be compiled, ``TreeNode.toJSON()`` itself is used, for plans of at
most :data:`TO_JSON_MAX_LEAF_COLUMNS` leaf columns.

The plan engine (:func:`lineage_operators.column_lineage.lineage_of_plan`) then runs right away in
plain Python, so only the small lineage result is kept, never the JSON. Every failure is caught:
that output gets no column lineage, the reason is logged once per kind.

Size: the compact plan JSON has one writer per node and expression shape the engine reads,
and its Python fallback must match the JVM writer (PlanWriter.java) field for field.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import threading
from collections.abc import Iterable
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger, log_once
from lineage_operators.column_lineage import lineage_of_plan
from lineage_operators.column_lineage.descriptions import JVM_CAP_CHARS
from lineage_operators.column_lineage.lineage import PlanColumnLineage
from lineage_operators.column_lineage.settings import DEFAULT_MAX_PLAN_LEAF_COLUMNS
from lineage_operators.spark.facts import RelationFacts
from lineage_operators.spark.jvm.spark_classes import CMD, DS, LOGICAL, QUERY_PLAN, STREAM_WRITE_V2, TREE_NODE
from lineage_operators.spark.jvm.text import NONE, SEP, split_list
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.plan.columns.writer import compact_writer

log = get_logger(__name__)

_QUERY_EXECUTION = "org.apache.spark.sql.execution.QueryExecution"
ATTRIBUTE = "org.apache.spark.sql.catalyst.expressions.NamedExpression"
EXPR_ID = "org.apache.spark.sql.catalyst.expressions.ExprId"

#: Write commands -> (how to get the written query, whether they name the written columns).
#: Interfaces first: ``DataWritingCommand`` covers InsertIntoHadoopFsRelationCommand,
#: InsertIntoHiveTable, InsertIntoHiveDirCommand; ``V2WriteCommand`` AppendData & co.
QUERY_COMMANDS: tuple[tuple[str, bool], ...] = (
    (f"{CMD}.DataWritingCommand", True),
    (f"{CMD}.CreateDataSourceTableAsSelectCommand", True),
    ("org.apache.spark.sql.hive.execution.CreateHiveTableAsSelectCommand", True),
    ("org.apache.spark.sql.hive.execution.OptimizedCreateHiveTableAsSelectCommand", True),
    (f"{LOGICAL}.V2WriteCommand", False),
    (f"{LOGICAL}.V2CreateTableAsSelectPlan", False),
    (f"{DS}.SaveIntoDataSourceCommand", False),
    (f"{DS}.InsertIntoDataSourceCommand", False),
    (f"{CMD}.InsertIntoDataSourceDirCommand", False),
    # a stream's micro-batch into a V1 sink (files; other sinks report no output to map it to)
    ("org.apache.spark.sql.execution.streaming.sources.WriteToMicroBatchDataSourceV1", False),
    # ... and into a V2 sink (Kafka)
    (STREAM_WRITE_V2, False),
)

#: Write commands whose query openlineage-spark reads as analyzed: a V1 CTAS (``CREATE TABLE ... AS
#: SELECT``, ``saveAsTable``, ``writeTo().create()`` into the session catalog) holds its query outside
#: its children, so the command's own execution never optimizes it; its lineage is read with
#: ``optimized=False`` and replaces the nested insert's (column_lineage/merge.py).
ANALYZED_QUERY_COMMANDS = frozenset({f"{CMD}.CreateDataSourceTableAsSelectCommand"})

#: Without the compact writer, plans reading more leaf columns than this get no column lineage (one
#: log line). ``toJSON`` costs about 1 KiB of JSON and 0.1-0.2 ms (JVM + Python) per leaf column of
#: a plan, plus a JVM heap of a few hundred bytes per JSON byte while json4s renders it: the
#: large-plan benchmark at 10x (a 50-way union of 300 columns, 15,350 leaf columns) makes 15.8 MB
#: of JSON and seconds of work, more than 1% of the task. See docs/history.md.
TO_JSON_MAX_LEAF_COLUMNS = 5000


def expr_ids_field(t: JvmTools) -> Any:
    """Leaf -> the ``exprId``s of its output attributes, joined with :data:`SEP2`.

    Added to the leaf records of :mod:`lineage_operators.spark.plan.reader`: a source column of the
    plan JSON (an ``exprId``) is joined to the dataset that leaf was read as.
    """
    expr_id = t.function(t.chain((ATTRIBUTE, "exprId"), (EXPR_ID, "id")))
    return t.mk_string(t.chain((QUERY_PLAN, "output"), t.coll.step("map", expr_id)))


def parse_expr_ids(field: str | None) -> tuple[int, ...]:
    ids = []
    for item in split_list(field):
        try:
            ids.append(int(item))
        except ValueError:
            continue
    return tuple(ids)


def query_of_fn(t: JvmTools) -> Any:
    """The JVM function: write command -> its query plan (NONE for other commands); cached."""
    return t.cached("plan_json.query_of", lambda tools: tools.function(_query_of(tools)))


def _query_of(t: JvmTools) -> Any:
    """Handle: write command -> its query plan (NONE for other commands)."""
    handle = t.constant(NONE)
    for cls, _ in reversed(QUERY_COMMANDS):
        if t.has_class(cls):
            handle = t.when(cls, t.step(cls, "query"), handle)
    return handle


def build_query_facts_fn(t: JvmTools) -> Any:
    """Root -> record: has a query, its output size, the written column names (SEP2-joined)."""
    names = t.constant(NONE)
    for cls, named in reversed(QUERY_COMMANDS):
        if named and t.has_class(cls):
            names = t.when(cls, t.mk_string(t.step(cls, "outputColumnNames")), names)
    query = _query_of(t)
    output_size = t.chain(query, (QUERY_PLAN, "output"), (t.once(), "size"))
    return t.function(t.record([output_size, names]))


def _build_to_json(t: JvmTools) -> Any:
    """Handle: root -> its query's ``toJSON()`` text."""
    return t.chain(_query_of(t), (TREE_NODE, "toJSON"))


def _write_to(t: JvmTools, path: str) -> Any:
    """A function: root -> query JSON written to ``path`` (returns the path; NONE on failure)."""
    files = t.cls("java.nio.file.Files")
    write = t._lookup.unreflect(
        files.getMethod(
            "writeString",
            t.array(
                "java.lang.Class",
                [
                    t.cls("java.nio.file.Path"),
                    t.cls("java.lang.CharSequence"),
                    t.cls("[Ljava.nio.file.OpenOption;"),
                ],
            ),
        )
    )
    jpath = t.java_class("java.nio.file.Paths").get(path, t.array("java.lang.String", []))
    write = t._mh.insertArguments(write, 0, t.array("java.lang.Object", [jpath]))
    write = t._mh.insertArguments(
        write, 1, t.array("java.lang.Object", [t.array("java.nio.file.OpenOption", [])])
    ).asType(t._oo)
    return t.function(t.text(t.chain(t.cached("plan_json.to_json", _build_to_json), write)))


class PlanJsonReader:
    """Reads the column lineage of write executions; one per capture (owns one temporary file)."""

    def __init__(
        self,
        tools: JvmTools,
        max_columns: int,
        max_leaf_columns: int = DEFAULT_MAX_PLAN_LEAF_COLUMNS,
        descriptions: bool = False,
    ) -> None:
        self._t = tools
        self._describe_cap = JVM_CAP_CHARS if descriptions else 0
        self._described_writer: Any = None  # the JVM's writer this reader turned texts on for
        self._max_columns = max_columns
        self._max_leaf_columns = max_leaf_columns
        self._path: str | None = None
        self._to_json_fn: Any = None
        self._use_file = True
        self._lock = threading.Lock()

    def batch_request(self, with_file: bool = True) -> tuple[int, str | None]:
        """What the one-call read (:mod:`~lineage_operators.spark.plan.batch`) may do for a write's column
        lineage: render its plan when it reads at most this many leaf columns, and put a reply too long for
        one py4j segment in this file (None: no file; none is made unless ``with_file``)."""
        if self._describe_cap or any(cap for _, cap in _describe_caps.values()):
            self._sync_descriptions(compact_writer(self._t))  # off: no call, no work
        return min(self._max_leaf_columns, 2**31 - 1), self._file() if self._use_file and with_file else None

    def read_reply_file(self) -> str:
        """The one-call read's reply it put in :meth:`batch_request`'s file."""
        with self._lock:
            return self._read_file()

    def read(
        self,
        root: Any,
        inputs: Iterable[Any] = (),
        query_facts: str | None = None,
        execution: Any = None,
        rendered: str | None = None,
        *,
        optimized: bool = True,
    ) -> PlanColumnLineage | None:
        """:class:`~lineage_operators.column_lineage.PlanColumnLineage` of a write, or None.

        ``inputs``: the execution's input relations (with their leaf ``expr_ids``), to size the plan;
        ``query_facts``: the text of :func:`build_query_facts_fn` when already read (one call less);
        ``execution``: the ``QueryExecution`` when ``root`` is None: the plan writer then takes its
        analyzed plan JVM-side (one call less); ``rendered``: the one-call read's plan part, so
        no call at all when it holds the JSON; ``optimized``: False for the commands of
        :data:`ANALYZED_QUERY_COMMANDS` (the engine's ``lineage_of_plan``).
        """
        try:
            return self._read(root, inputs, query_facts, execution, rendered, optimized=optimized)
        except Exception as exc:
            log_once(log, "read", logging.WARNING, "lineage capture: no column lineage: %s", describe(exc))
            return None

    def _read(
        self,
        root: Any,
        inputs: Iterable[RelationFacts],
        query_facts: str | None = None,
        execution: Any = None,
        rendered: str | None = None,
        *,
        optimized: bool = True,
    ) -> PlanColumnLineage | None:
        leaf_columns = len({expr_id for rel in inputs for expr_id in rel.expr_ids})
        writer = compact_writer(self._t) if leaf_columns <= self._max_leaf_columns else None
        self._sync_descriptions(writer)
        limit = self._max_leaf_columns
        if writer is None:
            limit = min(limit, TO_JSON_MAX_LEAF_COLUMNS)
        if leaf_columns > limit:
            log.info(
                "lineage capture: the plan reads %d leaf columns (more than %d): no columnLineage facet, "
                "serializing it would slow the task",
                leaf_columns,
                limit,
            )
            return None
        try:
            facts = query_facts
            if facts is None:
                root = root if root is not None else execution.analyzed()
                facts = self._t.read(self._t.cached("plan_json.query", build_query_facts_fn).apply(root))
        except Exception as exc:
            log_once(log, "facts", logging.INFO, "lineage capture: no column lineage: %s", describe(exc))
            return None
        size_text, _, names_text = (facts or "").partition(SEP)
        if not size_text or size_text == NONE:
            return None  # not a write of a query (DROP, TRUNCATE, CREATE TABLE...)
        size = int(size_text)
        if size > self._max_columns:
            log.info(
                "lineage capture: output has %d columns, more than column_lineage_max_columns=%d: "
                "no columnLineage facet",
                size,
                self._max_columns,
            )
            return None
        names = split_list(names_text) if names_text and names_text != NONE else None
        with self._lock:
            text = self._rendered(rendered) if writer is not None else None  # the writer's JSON
            if text is None:
                text = self._json(root, writer, leaf_columns, execution)
        if not text:
            return None
        try:
            lineage = lineage_of_plan(text, names, optimized)
        except Exception as exc:
            log_once(
                log,
                f"engine:{type(exc).__name__}",
                logging.WARNING,
                "lineage capture: column lineage failed for a plan: %s",
                describe(exc),
            )
            return None
        for node in lineage.unknown_nodes:
            log_once(
                log,
                f"unknown:{node}",
                logging.INFO,
                "lineage capture: column lineage does not understand plan node %s; "
                "lineage through it is partial",
                node.rsplit(".", 1)[-1],
            )
        return lineage

    def _reset_descriptions(self) -> None:
        """Turn the writer's texts off again if this capture turned them on: the writer is the
        JVM's, and the next capture (or a direct user of the writer) must not inherit them."""
        writer = self._described_writer
        if writer is not None and _describe_caps.get(id(writer), (None, 0))[1]:
            with contextlib.suppress(Exception):
                writer.describe(0)
                _describe_caps[id(writer)] = (writer, 0)

    def _sync_descriptions(self, writer: Any) -> None:
        """Tell the JVM's plan writer (one per JVM) whether this capture wants expression texts:
        one py4j call, and only when the wanted mode differs from the writer's current one."""
        if writer is None or _describe_caps.get(id(writer), (None, 0))[1] == self._describe_cap:
            return
        if self._describe_cap:
            self._described_writer = writer
        try:
            writer.describe(self._describe_cap)
            _describe_caps[id(writer)] = (writer, self._describe_cap)
        except Exception as exc:
            log_once(
                log, "describe", logging.INFO, "lineage capture: no column descriptions: %s", describe(exc)
            )

    def close(self) -> None:
        self._reset_descriptions()
        with self._lock:
            if self._path is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self._path)
                _OPEN_FILES.discard(self._path)
                self._path = None
                self._to_json_fn = None

    @staticmethod
    def _rendered(part: str | None) -> str | None:
        """The JSON the one-call read brought ("=" and the JSON), or None (NONE: it did not render
        it, and it is rendered here if the plan is not too wide)."""
        return part[1:] if part and part[0] == "=" else None

    def _json(self, root: Any, writer: Any, leaf_columns: int, execution: Any = None) -> str | None:
        if writer is not None:
            try:
                if root is None:
                    return self._compact_json(execution, writer, of_execution=True)
                return self._compact_json(root, writer)
            except Exception as exc:
                log_once(
                    log,
                    "compact",
                    logging.INFO,
                    "lineage capture: the compact plan writer failed (%s); using toJSON",
                    describe(exc),
                )
                if leaf_columns > TO_JSON_MAX_LEAF_COLUMNS:
                    return None
        return self._to_json(root if root is not None else execution.analyzed())

    def _compact_json(self, root: Any, writer: Any, of_execution: bool = False) -> str | None:
        if of_execution:  # root is the QueryExecution: its analyzed plan's query
            query_of = self._t.cached(
                "plan_json.execution_query_of",
                lambda t: t.function(t.chain((_QUERY_EXECUTION, "analyzed"), _query_of(t))),
            )
        else:
            query_of = query_of_fn(self._t)
        if self._use_file:
            written = writer.write(query_of, root, self._file())
            if not written:
                return None
            if not written.startswith("!"):
                return self._read_file()
            self._file_failed(written[1:])
        return self._t.read(writer.render(query_of, root))

    def _to_json(self, root: Any) -> str | None:
        if self._use_file:
            try:
                return self._to_json_via_file(root)
            except Exception as exc:
                self._file_failed(exc)
        try:
            builder = self._t.cached(
                "plan_json.to_json_builder", lambda t: t.function(t.builder(_build_to_json(t)))
            )
            text = self._t.read(builder.apply(root))
        except Exception as exc:
            log_once(
                log, "json", logging.WARNING, "lineage capture: cannot serialize a plan: %s", describe(exc)
            )
            return None
        return None if not text or text == NONE else text

    def _file(self) -> str:
        if self._path is None:
            fd, self._path = tempfile.mkstemp(prefix="lineage-plan-", suffix=".json")
            os.close(fd)
            _remove_at_exit(self._path)
        return self._path

    def _read_file(self) -> str:
        with open(self._file(), encoding="utf-8") as handle:
            return handle.read()

    def _file_failed(self, reason: Exception | str) -> None:
        self._use_file = False
        log_once(
            log,
            "file",
            logging.INFO,
            "lineage capture: plan JSON through a file failed (%s); reading it over py4j",
            describe(reason) if isinstance(reason, Exception) else reason[:300],
        )

    def _to_json_via_file(self, root: Any) -> str | None:
        if self._to_json_fn is None:
            self._to_json_fn = _write_to(self._t, self._file())
        written = self._t.read(self._to_json_fn.apply(root))
        if not written or written == NONE:
            # toJSON failed (a node that cannot be serialized): tell the chunked path to skip too
            log_once(
                log, "tojson", logging.WARNING, "lineage capture: a plan could not be serialized to JSON"
            )
            return None
        return self._read_file()


#: The description cap each JVM plan writer was last given, by its Python proxy's id (the proxy is
#: kept, so its id is never reused by another JVM's writer).
_describe_caps: dict[int, tuple[Any, int]] = {}

#: Plan files not closed yet: a reader hung at the process's exit never reaches its close.
_OPEN_FILES: set[str] = set()


def _remove_at_exit(path: str) -> None:
    if not _OPEN_FILES:
        import atexit

        atexit.unregister(_remove_open_files)  # registered once however often the set empties
        atexit.register(_remove_open_files)
    _OPEN_FILES.add(path)


def _remove_open_files() -> None:
    for path in list(_OPEN_FILES):
        with contextlib.suppress(OSError):
            os.unlink(path)
    _OPEN_FILES.clear()


__all__ = ["PlanJsonReader", "expr_ids_field", "parse_expr_ids"]
