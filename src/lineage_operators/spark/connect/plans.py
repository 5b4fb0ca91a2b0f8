"""What one Spark Connect ``ExecutePlanRequest`` asks the server to read and write, as plain data.

Pure: works on the protobuf messages pyspark's client sends (``pyspark.sql.connect.proto``), no
server call. The relation tree is walked generically (every message field), so reads nested in
joins, unions, subquery expressions or ``with_relations`` are all found:

* ``Read.DataSource`` (format, paths, options: file sources and JDBC) -> :class:`SourceRead`;
* ``Read.NamedTable`` (``spark.table``) -> :class:`TableRead`;
* ``SQL`` relations -> their text (parsed later by :mod:`~lineage_operators.spark.connect.sql`).

Commands: ``WriteOperation`` (path or table, save mode, format, options), ``WriteOperationV2``
(``writeTo``), ``WriteStreamOperationStart`` (a stream's start: what it reads, and the path or table
of a file sink), ``SqlCommand`` (``spark.sql``) and ``CreateDataFrameViewCommand`` (temp views, so a
later SQL statement naming the view resolves to what the view reads).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

#: ``WriteOperation.SaveMode`` / ``WriteOperationV2.Mode`` -> short names.
_SAVE_MODES = {1: "append", 2: "overwrite", 3: "error", 4: "ignore"}
_V2_MODES = {
    1: "create",
    2: "overwrite",
    3: "overwrite_partitions",
    4: "append",
    5: "replace",
    6: "create_or_replace",
}
_SAVE_METHODS = {1: "save_as_table", 2: "insert_into"}


@dataclass(frozen=True)
class SourceRead:
    """``spark.read.format(...).load(paths)``; ``relation`` is the leaf, for server analysis."""

    format: str | None
    paths: tuple[str, ...]
    options: Mapping[str, str]
    relation: Any = field(compare=False, hash=False)
    user_schema: bool = False  # ``.schema(...)`` given: the files' own schema is not what is read

    @property
    def key(self) -> tuple[Any, ...]:
        """Identity for per-task caching (plan ids differ between equal reads)."""
        return ("source", self.format, self.paths, tuple(sorted(self.options.items())))


@dataclass(frozen=True)
class TableRead:
    """``spark.table(name)`` / ``spark.read.table(name)``."""

    name: str
    relation: Any = field(compare=False, hash=False)


@dataclass(frozen=True)
class WriteTarget:
    """Where a ``WriteOperation`` / ``WriteOperationV2`` writes."""

    v2: bool
    mode: str | None
    source: str | None = None
    path: str | None = None
    table: str | None = None
    save_method: str | None = None  # save_as_table / insert_into (v1 table writes)
    options: Mapping[str, str] = field(default_factory=dict)
    partitioned: bool = False  # partitionBy / bucketBy / clusterBy: files' layout differs from rows
    stream: bool = False  # a stream's file sink, on a path or a table (its micro-batches append)


@dataclass
class ConnectPlan:
    """One request: what it reads, and what its command (if any) writes."""

    operation_id: str
    kind: str  # query / write / stream / sql / view / other
    reads: list[SourceRead | TableRead] = field(default_factory=list)
    sql: list[str] = field(default_factory=list)  # SQL relation texts inside the relation tree
    write: WriteTarget | None = None
    command_sql: str | None = None  # the SqlCommand's statement
    query: Any = None  # the relation whose rows are written (output schema)
    view: str | None = None  # a temp view this request (re)defines


def _is_repeated(descriptor: Any) -> bool:
    flag = getattr(descriptor, "is_repeated", None)  # protobuf >= 5 (``label`` is gone in upb 7)
    if flag is not None:
        return bool(flag)
    return bool(descriptor.label == descriptor.LABEL_REPEATED)


def _relations(message: Any) -> Iterator[Any]:
    """Every ``Relation`` message inside ``message`` (itself included), depth first."""
    from pyspark.sql.connect.proto import relations_pb2

    stack = [message]
    while stack:
        current = stack.pop()
        if isinstance(current, relations_pb2.Relation):
            yield current
        children: list[Any] = []
        for descriptor, value in current.ListFields():
            if descriptor.message_type is None:
                continue
            if _is_repeated(descriptor):
                if descriptor.message_type.GetOptions().map_entry:
                    continue  # string maps (options)
                children.extend(value)
            else:
                children.append(value)
        stack.extend(reversed(children))


def _leaf_relation(read: Any) -> Any:
    """The read alone, for the server's analysis: as a batch read (a stream's source has the same
    schema and files, and the server lists files or plans a query of a batch read only)."""
    from pyspark.sql.connect.proto import relations_pb2

    relation = relations_pb2.Relation()
    relation.read.CopyFrom(read)
    relation.read.is_streaming = False
    return relation


def collect_reads(relation: Any) -> tuple[list[SourceRead | TableRead], list[str]]:
    """(reads, SQL texts) of a relation tree, in tree order, duplicates kept once."""
    reads: list[SourceRead | TableRead] = []
    texts: list[str] = []
    seen: set[Any] = set()
    for rel in _relations(relation):
        kind = rel.WhichOneof("rel_type")
        if kind == "sql":
            if rel.sql.query and rel.sql.query not in texts:
                texts.append(rel.sql.query)
            continue
        if kind != "read":
            continue
        read_type = rel.read.WhichOneof("read_type")
        found: SourceRead | TableRead
        if read_type == "data_source":
            source = rel.read.data_source
            found = SourceRead(
                format=source.format if source.HasField("format") and source.format else None,
                paths=tuple(source.paths),
                options=dict(source.options),
                relation=_leaf_relation(rel.read),
                user_schema=bool(source.HasField("schema") and source.schema),
            )
            key: Any = found.key
        elif read_type == "named_table":
            found = TableRead(rel.read.named_table.unparsed_identifier, _leaf_relation(rel.read))
            key = ("table", found.name)
        else:
            continue
        if key not in seen:
            seen.add(key)
            reads.append(found)
    return reads, texts


def _write_target(write: Any) -> WriteTarget:
    options = dict(write.options)
    table = path = method = None
    save_type = write.WhichOneof("save_type")
    if save_type == "path":
        path = write.path
    elif save_type == "table":
        table = write.table.table_name
        method = _SAVE_METHODS.get(write.table.save_method)
    if path is None and table is None:
        path = options.get("path")
    return WriteTarget(
        v2=False,
        mode=_SAVE_MODES.get(write.mode),
        source=write.source if write.HasField("source") and write.source else None,
        path=path,
        table=table,
        save_method=method,
        options=options,
        partitioned=bool(
            write.partitioning_columns or write.HasField("bucket_by") or write.clustering_columns
        ),
    )


#: Stream sinks that write files (``FileStreamSink``): the only ones a classic capture reports too.
_FILE_SINKS = frozenset({"parquet", "orc", "json", "csv", "text", "avro"})


def _stream_target(start: Any) -> WriteTarget | None:
    """Where a stream's file sink writes: ``start(path)`` / ``option("path")`` or ``toTable``.

    Every micro-batch appends. Other sinks (console, memory, Kafka, ``foreach``/``foreachBatch``) write
    no dataset a client can see: ``foreachBatch`` runs on the server, its own writes unseen here. No
    format is the session's default source (a file format unless changed), as for a batch write.
    """
    if start.HasField("foreach_writer") or start.HasField("foreach_batch"):
        return None
    options = dict(start.options)
    fmt = start.format.lower() or None
    if start.table_name:
        return WriteTarget(
            v2=False,
            mode="append",
            source=fmt,
            table=start.table_name,
            options=options,
            stream=True,
        )
    path = start.path or options.get("path")
    if not path or (fmt is not None and fmt not in _FILE_SINKS):
        return None
    return WriteTarget(
        v2=False,
        mode="append",
        source=fmt,
        path=path,
        options=options,
        partitioned=bool(start.partitioning_column_names),
        stream=True,
    )


def _write_v2_target(write: Any) -> WriteTarget:
    return WriteTarget(
        v2=True,
        mode=_V2_MODES.get(write.mode),
        source=write.provider if write.HasField("provider") and write.provider else None,
        table=write.table_name,
        options=dict(write.options),
        partitioned=bool(write.partitioning_columns or write.clustering_columns),
    )


def read_plan(request: Any) -> ConnectPlan:
    """The :class:`ConnectPlan` of an ``ExecutePlanRequest``."""
    plan = ConnectPlan(operation_id=request.operation_id, kind="other")
    op = request.plan.WhichOneof("op_type")
    if op == "root":
        plan.kind = "query"
        plan.reads, plan.sql = collect_reads(request.plan.root)
        return plan
    if op != "command":
        return plan
    command = request.plan.command
    which = command.WhichOneof("command_type")
    if which == "write_operation":
        plan.kind, plan.write, plan.query = "write", _write_target(command.write_operation), None
        plan.query = command.write_operation.input
    elif which == "write_operation_v2":
        plan.kind, plan.write = "write", _write_v2_target(command.write_operation_v2)
        plan.query = command.write_operation_v2.input
    elif which == "write_stream_operation_start":
        start = command.write_stream_operation_start
        plan.kind, plan.write, plan.query = "stream", _stream_target(start), start.input
    elif which == "sql_command":
        sql = command.sql_command
        plan.kind = "sql"
        if sql.HasField("input") and sql.input.WhichOneof("rel_type") == "sql":
            plan.command_sql = sql.input.sql.query
        else:
            plan.command_sql = sql.sql or None
        return plan
    elif which == "create_dataframe_view":
        view = command.create_dataframe_view
        plan.kind, plan.view, plan.query = "view", view.name, view.input
    else:
        return plan
    plan.reads, plan.sql = collect_reads(plan.query)
    return plan


__all__ = ["ConnectPlan", "SourceRead", "TableRead", "WriteTarget", "collect_reads", "read_plan"]
