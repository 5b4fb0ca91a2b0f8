"""The root commands plan reading knows, as one table: Spark class -> the fields the JVM reads of it,
the small handler that turns them into outputs, and what it reports.

Why a table: each supported command is one entry, so adding a command (or reading what is
supported) means reading one row, not a chain of ``if cls == ...``. The JVM-side reader of the root
(:func:`~lineage_operators.spark.plan.commands._build_root_fn`) is built from the ``fields`` of the
entries, :meth:`~lineage_operators.spark.plan.commands.CommandOutputs._outputs` dispatches to the
``handle`` of the root's class, and ``docs/supported-commands.md`` is generated from ``reports``
(``scripts/supported_commands.py``; a unit test fails when the page is stale).

Lifecycle as openlineage-spark: SaveMode.Overwrite / INSERT OVERWRITE -> OVERWRITE, CTAS and
CREATE TABLE -> CREATE, Append -> none; DROP/TRUNCATE/RENAME from their commands. One difference: a
``SaveIntoDataSourceCommand`` (JDBC...) in Append mode gets no lifecycle facet, where
openlineage-spark reports OVERWRITE for every such write.

Size: the table has one entry per supported command (the point of a table); the handlers are
a few lines each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from lineage_operators.spark.facts import RelationFacts, TableRef
from lineage_operators.spark.plan import classes as c
from lineage_operators.spark.plan import kafka
from lineage_operators.spark.plan.alter import V1_ALTERS, V2_ALTERS, alter_outputs
from lineage_operators.spark.plan.leaves import _ct_record, _schema
from lineage_operators.spark.plan.records import _at, _bool, _parse_ct, uri_to_path
from lineage_operators.spark.tables import delta
from lineage_operators.spark.tables.iceberg import ROW_LEVEL_WRITES

if TYPE_CHECKING:
    from lineage_operators.spark.jvm.tools import JvmTools
    from lineage_operators.spark.plan.commands import CommandOutputs


class FieldReaders:
    """The JVM-side field readers the entries combine (built on first use, per Spark session)."""

    def __init__(self, t: JvmTools) -> None:
        self.t = t
        self.ct = _ct_record(t)
        self.ct_full = _ct_record(t, with_schema=True)

    def schema(self, cls: str) -> Any:
        return _schema(self.t, cls)

    def table_id(self, cls: str, getter: str) -> list[Any]:
        """A ``TableIdentifier`` field: its database (optional) and table."""
        t, field = self.t, (cls, getter)
        return [t.chain(field, t.opt(t.step(c.TABLE_ID, "database"))), t.chain(field, (c.TABLE_ID, "table"))]

    def file_format(self, cls: str) -> Any:
        t = self.t
        return t.chain(
            (cls, "fileFormat"),
            t.when(c.REGISTER, t.step(c.REGISTER, "shortName"), t.step("java.lang.Object", "toString")),
        )

    @property
    def class_name(self) -> Any:
        """The class name of the argument."""
        return self.t.chain(("java.lang.Object", "getClass"), ("java.lang.Class", "getName"))

    def option(self, cls: str, key: str, getter: str = "options") -> Any:
        """The value of ``key`` in the command's options map (its ``getter``), or ""."""
        t = self.t
        get = (t.line.collection_class("map"), "get", ("java.lang.Object", key))
        return t.opt(t.chain((cls, getter), get))

    def resolved(self, cls: str, getter: str) -> list[Any]:
        """A ``ResolvedIdentifier`` field: catalog, namespace and name."""
        t = self.t
        handles = [
            t.chain((c.RESOLVED_ID, "catalog"), (c.CATALOG_PLUGIN, "name")),
            t.chain((c.RESOLVED_ID, "identifier"), (c.IDENTIFIER, "namespace"), t.array_join(".")),
            t.chain((c.RESOLVED_ID, "identifier"), (c.IDENTIFIER, "name")),
        ]
        return [t.chain((cls, getter), t.when(c.RESOLVED_ID, h)) for h in handles]

    def location(self, cls: str) -> Any:
        return self.t.opt(self.t.chain((cls, "storage"), (c.STORAGE, "locationUri")))


@dataclass
class Call:
    """One execution's root command, as its handler gets it."""

    cls: str
    fields: list[str | None]
    plan: Any
    qe: Any
    succeeded: bool
    inputs: list[RelationFacts]

    def f(self, index: int) -> str | None:
        return _at(self.fields, index)

    def table(self, database_at: int) -> TableRef:
        return TableRef(self.f(database_at), self.f(database_at + 1) or "")


Handler = Callable[["CommandOutputs", Call], list[RelationFacts]]
Fields = Callable[[FieldReaders], list[Any]]


@dataclass(frozen=True)
class Command:
    """A root command class: what the JVM reads of it (None: nothing at the root), its handler, and
    what it reports (a line of the supported-commands page)."""

    cls: str
    reports: str
    handle: Handler
    fields: Fields | None = None
    #: the handler reads the analyzed plan object (a relation node of it), fetched only then
    needs_plan: bool = False


# -- handlers ------------------------------------------------------------------------------------


def _insert_files(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    table, location, provider, _ = _parse_ct(call.f(2))
    rel = RelationFacts(
        location=call.f(0) or location,
        table=table,
        schema_text=call.f(3),
        file_format=call.f(4),
        provider=provider,
        lifecycle="OVERWRITE" if call.f(1) == "Overwrite" else None,
    )
    return [reader._with_stats(rel, call.qe, call.succeeded)]


def _create(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    table, location, provider, schema = _parse_ct(call.f(0))
    if table is None:
        return []
    as_select = call.cls not in (c.CREATE_DS, c.CREATE_TABLE)
    return [
        RelationFacts(
            location=location or reader._default_location(table),
            table=table,
            # a CTAS reads its table without the schema: the schema is its query's
            schema_text=call.f(2) if as_select else schema,
            provider=provider,
            lifecycle="CREATE",
        )
    ]


def _save_into(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    return reader._save_into(call.fields, call.qe, call.succeeded)


def _insert_relation(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    rels = reader._read_leaf(call.plan.logicalRelation())
    for rel in rels:
        rel.schema_text = call.f(1) or rel.schema_text
        rel.lifecycle = "OVERWRITE" if _bool(call.f(0)) else None
    return rels


def _insert_directory(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    if not call.f(0):
        return []
    data_source = call.cls == c.INSERT_DS_DIR
    overwrite, schema = (call.f(2), call.f(3)) if data_source else (call.f(1), call.f(2))
    return [
        RelationFacts(
            location=uri_to_path(call.f(0)),
            schema_text=schema,
            lifecycle="OVERWRITE" if _bool(overwrite) else None,
            file_format=call.f(1) if data_source else None,
        )
    ]


def _stream_file_sink(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    """A micro-batch of a stream writing files: the sink's path, or the table over it (``toTable``;
    the catalog's location, as openlineage-spark's ``WriteToMicroBatchDataSourceV1DatasetBuilder``).
    Other V1 sinks write nothing of their own (``foreachBatch``: its batch's writes are executions)."""
    sink_class, path, sink_text, catalog_table, schema = (call.f(i) for i in range(5))
    if (sink_class or "").rsplit(".", 1)[-1] != c.FILE_STREAM_SINK:
        return []
    table, location, provider, _ = _parse_ct(catalog_table)
    location = location or path or _file_sink_path(sink_text)
    if not location:
        return []
    # a table's provider is its file format (the sink's own format is private to it)
    return [
        RelationFacts(
            location=location, table=table, schema_text=schema, provider=provider, file_format=provider
        )
    ]


def _stream_v2_sink(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    """A micro-batch of a stream writing to a V2 sink: Kafka's topic (its ``topic`` write option; rows
    naming their own topic name none); other V2 sinks (console, memory...) write no dataset."""
    table_class, servers, topic, schema = (call.f(i) for i in range(4))
    if not (table_class or "").startswith(kafka.KAFKA_PROVIDER):
        return []
    return kafka.write_facts(servers, topic, schema)


def _file_sink_path(text: str | None) -> str | None:
    """The path in a file sink's ``toString`` (``FileSink[/data/out]`` on every line), for an option
    spelled other than ``path``."""
    if text and text.startswith("FileSink[") and text.endswith("]"):
        return text[len("FileSink[") : -1] or None
    return None


def _insert_hive(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    table, location, provider, _ = _parse_ct(call.f(0))
    if table is None:
        return []
    rel = RelationFacts(
        location=location or reader._default_location(table),
        table=table,
        schema_text=call.f(2),
        provider=provider,
        lifecycle="OVERWRITE" if _bool(call.f(1)) else None,
    )
    return [reader._with_stats(rel, call.qe, call.succeeded)]


def _load_data(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    source = call.f(2)
    if source:
        remote = ":" in source.split("/", 1)[0] or not _bool(call.f(3))
        call.inputs.append(RelationFacts(location=source if remote else f"file:{source}"))
    return reader._catalog_output(call.table(0), "OVERWRITE" if _bool(call.f(4)) else None)


def _truncate(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    return reader._catalog_output(call.table(0), "TRUNCATE", with_schema=False)


def _create_like(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    return reader._catalog_output(call.table(0), "CREATE")  # as the catalog holds it once created


def _rename(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    if _bool(call.f(4)):
        return []  # a view
    new = TableRef(call.f(2) or call.f(0), call.f(3) or "")
    out = reader._catalog_output(new, "RENAME", with_schema=True)
    for rel in out:
        rel.previous_table = call.table(0)
    return out


def _drop_v1(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    if _bool(call.f(3)):
        return []  # DROP VIEW
    return reader._dropped(call.table(0), if_exists=_bool(call.f(2)))


def _drop_v2(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    catalog, namespace, name = call.f(0), call.f(1), call.f(2)
    if not name:
        return []
    ref = TableRef(namespace, name, None if catalog == c._SESSION_CATALOG else catalog)
    return reader._dropped(ref, if_exists=_bool(call.f(3)))


def _v2_write(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    rels = reader._read_leaf(call.plan.table())
    for rel in rels:
        rel.schema_text = call.f(0) or rel.schema_text
        rel.lifecycle = "OVERWRITE" if call.cls != c.V2_WRITES[0] else None
    return [_with_written(rel) for rel in rels]


def _v2_create(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    return reader._v2_created(call.cls, call.f(0), call.f(1), call.f(2))


def _row_level(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    rels = reader._read_leaf(call.plan.originalTable())  # rows changed in place: no lifecycle, as the jar
    return [_with_written(replace(r, lifecycle=None)) for r in rels]


def _delta_row_level(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    rels = reader._inputs(call.plan.target(), None)  # rows changed in place: no lifecycle, as the jar
    return [replace(r, lifecycle=None) for r in rels]


def _delta_maintenance(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    return delta.maintained_table(call.plan, call.cls)


def _alter(reader: CommandOutputs, call: Call) -> list[RelationFacts]:
    return alter_outputs(reader, reader._t, call.plan)


def _with_written(rel: RelationFacts) -> RelationFacts:
    """An output whose table reports what its write added (an Iceberg snapshot): those counts are
    its statistics, as Spark has no write metrics for V2 writes; its version is the snapshot made,
    whose commit report it carries."""
    if rel.written is not None:
        rel.rows, rel.size, rel.files = rel.written
    if rel.written_version is not None:
        rel.version = rel.written_version
    rel.commit_report = rel.written_commit
    return rel


# -- the table -----------------------------------------------------------------------------------


def _ctas(cls: str, getter: str) -> Command:
    return Command(
        cls,
        "the created table (location, TABLE symlink), its query's schema; CREATE",
        _create,
        lambda r: [r.t.chain((cls, getter), r.ct), r.t.step(cls, "mode"), r.schema(cls)],
    )


def _schema_only(cls: str) -> Fields:
    return lambda r: [r.schema(cls)]


def _resolved_name(cls: str) -> Fields:
    return lambda r: r.resolved(cls, "name")


COMMANDS: tuple[Command, ...] = (
    Command(
        c.INSERT_HADOOP,
        "the written path, or the table over it; schema, format, write statistics; OVERWRITE on overwrite",
        _insert_files,
        lambda r: [
            r.t.chain((c.INSERT_HADOOP, "outputPath"), ("java.lang.Object", "toString")),
            r.t.step(c.INSERT_HADOOP, "mode"),
            r.t.option_map(r.t.step(c.INSERT_HADOOP, "catalogTable"), r.ct),
            r.schema(c.INSERT_HADOOP),
            r.file_format(c.INSERT_HADOOP),
        ],
    ),
    _ctas(c.CTAS_DS, "table"),
    Command(
        c.CREATE_DS,
        "the created table with its declared schema; CREATE",
        _create,
        lambda r: [r.t.chain((c.CREATE_DS, "table"), r.ct_full)],
    ),
    Command(
        c.CREATE_TABLE,
        "the created table with its declared schema; CREATE",
        _create,
        lambda r: [r.t.chain((c.CREATE_TABLE, "table"), r.ct_full)],
    ),
    Command(
        c.SAVE_INTO,
        "a JDBC table or a data source's path (Delta: provider delta); schema, write statistics; "
        "OVERWRITE / CREATE by save mode; Kafka: the `topic` option's topic as `kafka://<first bootstrap "
        "server>` + topic, no lifecycle (a topic is appended to)",
        _save_into,
        lambda r: [
            r.t.chain(
                (c.SAVE_INTO, "dataSource"), ("java.lang.Object", "getClass"), ("java.lang.Class", "getName")
            ),
            r.t.step(c.SAVE_INTO, "mode"),
            r.option(c.SAVE_INTO, "url"),
            r.option(c.SAVE_INTO, "dbtable"),
            r.option(c.SAVE_INTO, "query"),
            r.option(c.SAVE_INTO, "path"),
            r.schema(c.SAVE_INTO),
            r.t.chain((c.SAVE_INTO, "dataSource"), r.t.when(c.REGISTER, r.t.step(c.REGISTER, "shortName"))),
            r.option(c.SAVE_INTO, "kafka.bootstrap.servers"),
            r.option(c.SAVE_INTO, "topic"),
        ],
    ),
    Command(
        c.INSERT_DS,
        "the relation inserted into; OVERWRITE on overwrite",
        _insert_relation,
        lambda r: [r.t.step(c.INSERT_DS, "overwrite"), r.schema(c.INSERT_DS)],
        needs_plan=True,
    ),
    Command(
        c.INSERT_DS_DIR,
        "the directory written (INSERT OVERWRITE DIRECTORY ... USING); format; OVERWRITE",
        _insert_directory,
        lambda r: [
            r.location(c.INSERT_DS_DIR),
            r.t.step(c.INSERT_DS_DIR, "provider"),
            r.t.step(c.INSERT_DS_DIR, "overwrite"),
            r.schema(c.INSERT_DS_DIR),
        ],
    ),
    Command(
        c.STREAM_WRITE_V1,
        "a stream's micro-batch into a file sink (`writeStream...start(path)`, `toTable`): the path "
        "written, or the table over it; its query's schema; statistics from the batch's task metrics (the "
        "sink's write is not in the plan); `foreachBatch` and other sinks: nothing, their batch's own "
        "writes are reported",
        _stream_file_sink,
        lambda r: [
            r.t.chain(
                (c.STREAM_WRITE_V1, "sink"), ("java.lang.Object", "getClass"), ("java.lang.Class", "getName")
            ),
            r.option(c.STREAM_WRITE_V1, "path", getter="writeOptions"),
            r.t.chain((c.STREAM_WRITE_V1, "sink"), ("java.lang.Object", "toString")),
            r.t.option_map(r.t.step(c.STREAM_WRITE_V1, "catalogTable"), r.ct),
            r.schema(c.STREAM_WRITE_V1),
        ],
    ),
    Command(
        c.STREAM_WRITE_V2,
        "a stream's micro-batch into a V2 sink: Kafka's `topic` write option as `kafka://<first bootstrap "
        "server>` + topic, the query's schema (other V2 sinks: nothing)",
        _stream_v2_sink,
        lambda r: [
            # the sink's table (3.5), or the relation over it (4.3: ``table`` is a DataSourceV2Relation)
            r.t.chain(
                (c.STREAM_WRITE_V2, "table"),
                r.t.when(c.DSV2_REL, r.t.chain((c.DSV2_REL, "table"), r.class_name), r.class_name),
            ),
            r.option(c.STREAM_WRITE_V2, "kafka.bootstrap.servers", getter="writeOptions"),
            r.option(c.STREAM_WRITE_V2, "topic", getter="writeOptions"),
            r.schema(c.STREAM_WRITE_V2),
        ],
    ),
    Command(
        c.LOAD_DATA,
        "the table loaded (OVERWRITE on LOAD DATA ... OVERWRITE) and the loaded path as an input",
        _load_data,
        lambda r: [
            *r.table_id(c.LOAD_DATA, "table"),
            r.t.step(c.LOAD_DATA, "path"),
            r.t.step(c.LOAD_DATA, "isLocal"),
            r.t.step(c.LOAD_DATA, "isOverwrite"),
        ],
    ),
    Command(
        c.TRUNCATE, "the truncated table; TRUNCATE", _truncate, lambda r: r.table_id(c.TRUNCATE, "tableName")
    ),
    Command(
        c.CREATE_LIKE,
        "the new table as the catalog holds it; CREATE",
        _create_like,
        lambda r: r.table_id(c.CREATE_LIKE, "targetTable"),
    ),
    Command(
        c.RENAME,
        "the renamed table with its schema and previous identifier; RENAME (views: nothing)",
        _rename,
        lambda r: [
            *r.table_id(c.RENAME, "oldName"),
            *r.table_id(c.RENAME, "newName"),
            r.t.step(c.RENAME, "isView"),
        ],
    ),
    Command(
        c.DROP_V1,
        "the dropped table at its remembered or managed location; DROP (views: nothing)",
        _drop_v1,
        lambda r: [
            *r.table_id(c.DROP_V1, "tableName"),
            r.t.step(c.DROP_V1, "ifExists"),
            r.t.step(c.DROP_V1, "isView"),
        ],
    ),
    Command(
        c.DROP_V2,
        "the dropped table of a v2 catalog; DROP",
        _drop_v2,
        lambda r: [*r.resolved(c.DROP_V2, "child"), r.t.step(c.DROP_V2, "ifExists")],
    ),
    Command(
        c.INSERT_HIVE,
        "the Hive table written; schema, write statistics; OVERWRITE on overwrite",
        _insert_hive,
        lambda r: [
            r.t.chain((c.INSERT_HIVE, "table"), r.ct),
            r.t.step(c.INSERT_HIVE, "overwrite"),
            r.schema(c.INSERT_HIVE),
        ],
    ),
    _ctas(c.CTAS_HIVE, "tableDesc"),
    _ctas(c.CTAS_HIVE_OPT, "tableDesc"),
    Command(
        c.INSERT_HIVE_DIR,
        "the directory written (INSERT OVERWRITE DIRECTORY ... STORED AS); OVERWRITE",
        _insert_directory,
        lambda r: [
            r.location(c.INSERT_HIVE_DIR),
            r.t.step(c.INSERT_HIVE_DIR, "overwrite"),
            r.schema(c.INSERT_HIVE_DIR),
        ],
    ),
    *(
        Command(
            cls,
            "the v2 table written (Iceberg: snapshot as version, what it added as statistics)"
            + ("" if cls == c.V2_WRITES[0] else "; OVERWRITE"),
            _v2_write,
            _schema_only(cls),
            needs_plan=True,
        )
        for cls in c.V2_WRITES
    ),
    *(
        Command(
            cls,
            "the table of a v2 catalog, loaded from it; " + c._V2_CREATE_LIFECYCLE[cls],
            _v2_create,
            _resolved_name(cls),
        )
        for cls in c.V2_CREATES
    ),
    *(
        Command(
            cls,
            "the table of a row-level write (MERGE, UPDATE, DELETE); no lifecycle (rows changed in place)",
            _row_level,
            needs_plan=True,
        )
        for cls in ROW_LEVEL_WRITES
    ),
    *(
        Command(
            cls,
            "the Delta table the command rewrites (its target), with the version it made; no lifecycle",
            _delta_row_level,
            needs_plan=True,
        )
        for cls in delta.ROW_LEVEL_COMMANDS
    ),
    *(
        Command(
            cls,
            "the Delta table it rewrites, with the version it made"
            + ("; OVERWRITE" if lifecycle else " (no lifecycle: its rows stay the same)"),
            _delta_maintenance,
            needs_plan=True,
        )
        for cls, lifecycle in delta.MAINTENANCE_COMMANDS.items()
    ),
    *(
        Command(
            cls, "the altered table as its catalog holds it after the change; ALTER", _alter, needs_plan=True
        )
        for cls in (*V1_ALTERS, *sorted(V2_ALTERS))
    ),
)

#: Spark class name -> its entry.
BY_CLASS: dict[str, Command] = {command.cls: command for command in COMMANDS}

__all__ = ["BY_CLASS", "COMMANDS", "Call", "Command", "FieldReaders"]
