"""The root commands plan reading knows, as one table: Spark class -> the fields the JVM reads of it (by
name), the handler that turns them into outputs (:mod:`~lineage_operators.spark.plan.commands`), and what it
reports.

Why a table: each supported command is one entry, so adding a command (or reading what is
supported) means reading one row, not a chain of ``if cls == ...``. The JVM-side reader of the root
(:func:`~lineage_operators.spark.plan.outputs.build_root_reader`) is built from the ``fields`` of the entries,
:meth:`~lineage_operators.spark.plan.outputs.CommandOutputs.outputs` dispatches to the ``handle`` of the
root's class, and ``docs/supported-commands.md`` is generated from ``reports``
(``scripts/supported_commands.py``; a unit test fails when the page is stale).

Lifecycle as openlineage-spark: SaveMode.Overwrite / INSERT OVERWRITE -> OVERWRITE, CTAS and
CREATE TABLE -> CREATE, Append -> none; DROP/TRUNCATE/RENAME from their commands. One difference: a
``SaveIntoDataSourceCommand`` (JDBC...) in Append mode gets no lifecycle facet, where
openlineage-spark reports OVERWRITE for every such write.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lineage_operators.spark.jvm import spark_classes as c
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.plan import commands as h
from lineage_operators.spark.plan.alter import V1_ALTERS, V2_ALTERS
from lineage_operators.spark.plan.leaves import catalog_table_record, plan_schema
from lineage_operators.spark.tables import delta
from lineage_operators.spark.tables.iceberg import ROW_LEVEL_WRITES


class FieldReaders:
    """The JVM-side field readers the entries combine (built on first use, per Spark session)."""

    def __init__(self, t: JvmTools) -> None:
        self.t = t
        self.ct = catalog_table_record(t)
        self.ct_full = catalog_table_record(t, with_schema=True)

    def schema(self, cls: str) -> Any:
        return plan_schema(self.t, cls)

    def table_id(self, cls: str, getter: str, name: str = "table") -> dict[str, Any]:
        """A ``TableIdentifier`` field: its database (optional) and table, as ``name.database`` and
        ``name.table`` (:meth:`~lineage_operators.spark.plan.commands.Call.table`)."""
        t, field = self.t, (cls, getter)
        return {
            f"{name}.database": t.chain(field, t.opt(t.step(c.TABLE_ID, "database"))),
            f"{name}.table": t.chain(field, (c.TABLE_ID, "table")),
        }

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

    def resolved(self, cls: str, getter: str, name: str = "table") -> dict[str, Any]:
        """A ``ResolvedIdentifier`` field: ``name.catalog``, ``name.namespace`` and ``name.name``."""
        t = self.t
        handles = {
            "catalog": t.chain((c.RESOLVED_ID, "catalog"), (c.CATALOG_PLUGIN, "name")),
            "namespace": t.chain(
                (c.RESOLVED_ID, "identifier"), (c.IDENTIFIER, "namespace"), t.array_join(".")
            ),
            "name": t.chain((c.RESOLVED_ID, "identifier"), (c.IDENTIFIER, "name")),
        }
        return {
            f"{name}.{part}": t.chain((cls, getter), t.when(c.RESOLVED_ID, h)) for part, h in handles.items()
        }

    def location(self, cls: str) -> Any:
        return self.t.opt(self.t.chain((cls, "storage"), (c.STORAGE, "locationUri")))


#: A command's fields: name -> the JVM handle reading it (the record keeps their order).
Fields = Callable[[FieldReaders], dict[str, Any]]


@dataclass(frozen=True)
class Command:
    """A root command class: what the JVM reads of it (None: nothing at the root), its handler, and
    what it reports (a line of the supported-commands page)."""

    cls: str
    reports: str
    handle: h.Handler
    fields: Fields | None = None
    #: the handler reads the analyzed plan object (a relation node of it), fetched only then
    needs_plan: bool = False


# -- the table -----------------------------------------------------------------------------------


def _ctas(cls: str, getter: str) -> Command:
    return Command(
        cls,
        "the created table (location, TABLE symlink), its query's schema; CREATE",
        h.create,
        lambda r: {
            "table": r.t.chain((cls, getter), r.ct),
            "mode": r.t.step(cls, "mode"),
            "schema": r.schema(cls),
        },
    )


def _schema_only(cls: str) -> Fields:
    return lambda r: {"schema": r.schema(cls)}


def _resolved_name(cls: str) -> Fields:
    return lambda r: r.resolved(cls, "name")


COMMANDS: tuple[Command, ...] = (
    Command(
        c.INSERT_HADOOP,
        "the written path, or the table over it; schema, format, write statistics; OVERWRITE on overwrite",
        h.insert_files,
        lambda r: {
            "path": r.t.chain((c.INSERT_HADOOP, "outputPath"), ("java.lang.Object", "toString")),
            "mode": r.t.step(c.INSERT_HADOOP, "mode"),
            "table": r.t.option_map(r.t.step(c.INSERT_HADOOP, "catalogTable"), r.ct),
            "schema": r.schema(c.INSERT_HADOOP),
            "format": r.file_format(c.INSERT_HADOOP),
        },
    ),
    _ctas(c.CTAS_DS, "table"),
    Command(
        c.CREATE_DS,
        "the created table with its declared schema; CREATE",
        h.create,
        lambda r: {"table": r.t.chain((c.CREATE_DS, "table"), r.ct_full)},
    ),
    Command(
        c.CREATE_TABLE,
        "the created table with its declared schema; CREATE",
        h.create,
        lambda r: {"table": r.t.chain((c.CREATE_TABLE, "table"), r.ct_full)},
    ),
    Command(
        c.SAVE_INTO,
        "a JDBC table or a data source's path (Delta: provider delta); schema, write statistics; "
        "OVERWRITE / CREATE by save mode; Kafka: the `topic` option's topic as `kafka://<first bootstrap "
        "server>` + topic, no lifecycle (a topic is appended to)",
        h.save_into,
        lambda r: {
            "source": r.t.chain((c.SAVE_INTO, "dataSource"), r.class_name),
            "mode": r.t.step(c.SAVE_INTO, "mode"),
            "url": r.option(c.SAVE_INTO, "url"),
            "dbtable": r.option(c.SAVE_INTO, "dbtable"),
            "query": r.option(c.SAVE_INTO, "query"),
            "path": r.option(c.SAVE_INTO, "path"),
            "schema": r.schema(c.SAVE_INTO),
            "format": r.t.chain(
                (c.SAVE_INTO, "dataSource"), r.t.when(c.REGISTER, r.t.step(c.REGISTER, "shortName"))
            ),
            "servers": r.option(c.SAVE_INTO, "kafka.bootstrap.servers"),
            "topic": r.option(c.SAVE_INTO, "topic"),
        },
    ),
    Command(
        c.INSERT_DS,
        "the relation inserted into; OVERWRITE on overwrite",
        h.insert_relation,
        lambda r: {"overwrite": r.t.step(c.INSERT_DS, "overwrite"), "schema": r.schema(c.INSERT_DS)},
        needs_plan=True,
    ),
    Command(
        c.INSERT_DS_DIR,
        "the directory written (INSERT OVERWRITE DIRECTORY ... USING); format; OVERWRITE",
        h.insert_directory,
        lambda r: {
            "location": r.location(c.INSERT_DS_DIR),
            "format": r.t.step(c.INSERT_DS_DIR, "provider"),
            "overwrite": r.t.step(c.INSERT_DS_DIR, "overwrite"),
            "schema": r.schema(c.INSERT_DS_DIR),
        },
    ),
    Command(
        c.STREAM_WRITE_V1,
        "a stream's micro-batch into a file sink (`writeStream...start(path)`, `toTable`): the path "
        "written, or the table over it; its query's schema; statistics from the batch's task metrics (the "
        "sink's write is not in the plan); `foreachBatch` and other sinks: nothing, their batch's own "
        "writes are reported",
        h.stream_file_sink,
        lambda r: {
            "sink": r.t.chain((c.STREAM_WRITE_V1, "sink"), r.class_name),
            "path": r.option(c.STREAM_WRITE_V1, "path", getter="writeOptions"),
            "sink_text": r.t.chain((c.STREAM_WRITE_V1, "sink"), ("java.lang.Object", "toString")),
            "table": r.t.option_map(r.t.step(c.STREAM_WRITE_V1, "catalogTable"), r.ct),
            "schema": r.schema(c.STREAM_WRITE_V1),
        },
    ),
    Command(
        c.STREAM_WRITE_V2,
        "a stream's micro-batch into a V2 sink: Kafka's `topic` write option as `kafka://<first bootstrap "
        "server>` + topic, the query's schema (other V2 sinks: nothing)",
        h.stream_v2_sink,
        lambda r: {
            # the sink's table (3.5), or the relation over it (4.3: ``table`` is a DataSourceV2Relation)
            "table_class": r.t.chain(
                (c.STREAM_WRITE_V2, "table"),
                r.t.when(c.DSV2_REL, r.t.chain((c.DSV2_REL, "table"), r.class_name), r.class_name),
            ),
            "servers": r.option(c.STREAM_WRITE_V2, "kafka.bootstrap.servers", getter="writeOptions"),
            "topic": r.option(c.STREAM_WRITE_V2, "topic", getter="writeOptions"),
            "schema": r.schema(c.STREAM_WRITE_V2),
        },
    ),
    Command(
        c.LOAD_DATA,
        "the table loaded (OVERWRITE on LOAD DATA ... OVERWRITE) and the loaded path as an input",
        h.load_data,
        lambda r: {
            **r.table_id(c.LOAD_DATA, "table"),
            "path": r.t.step(c.LOAD_DATA, "path"),
            "local": r.t.step(c.LOAD_DATA, "isLocal"),
            "overwrite": r.t.step(c.LOAD_DATA, "isOverwrite"),
        },
    ),
    Command(
        c.TRUNCATE, "the truncated table; TRUNCATE", h.truncate, lambda r: r.table_id(c.TRUNCATE, "tableName")
    ),
    Command(
        c.CREATE_LIKE,
        "the new table as the catalog holds it; CREATE",
        h.create_like,
        lambda r: r.table_id(c.CREATE_LIKE, "targetTable"),
    ),
    Command(
        c.RENAME,
        "the renamed table with its schema and previous identifier; RENAME (views: nothing)",
        h.rename,
        lambda r: {
            **r.table_id(c.RENAME, "oldName", "old"),
            **r.table_id(c.RENAME, "newName", "new"),
            "view": r.t.step(c.RENAME, "isView"),
        },
    ),
    Command(
        c.DROP_V1,
        "the dropped table at its remembered or managed location; DROP (views: nothing)",
        h.drop_v1,
        lambda r: {
            **r.table_id(c.DROP_V1, "tableName"),
            "if_exists": r.t.step(c.DROP_V1, "ifExists"),
            "view": r.t.step(c.DROP_V1, "isView"),
        },
    ),
    Command(
        c.DROP_V2,
        "the dropped table of a v2 catalog; DROP",
        h.drop_v2,
        lambda r: {**r.resolved(c.DROP_V2, "child"), "if_exists": r.t.step(c.DROP_V2, "ifExists")},
    ),
    Command(
        c.INSERT_HIVE,
        "the Hive table written; schema, write statistics; OVERWRITE on overwrite",
        h.insert_hive,
        lambda r: {
            "table": r.t.chain((c.INSERT_HIVE, "table"), r.ct),
            "overwrite": r.t.step(c.INSERT_HIVE, "overwrite"),
            "schema": r.schema(c.INSERT_HIVE),
        },
    ),
    _ctas(c.CTAS_HIVE, "tableDesc"),
    _ctas(c.CTAS_HIVE_OPT, "tableDesc"),
    Command(
        c.INSERT_HIVE_DIR,
        "the directory written (INSERT OVERWRITE DIRECTORY ... STORED AS); OVERWRITE",
        h.insert_directory,
        lambda r: {
            "location": r.location(c.INSERT_HIVE_DIR),
            "overwrite": r.t.step(c.INSERT_HIVE_DIR, "overwrite"),
            "schema": r.schema(c.INSERT_HIVE_DIR),
        },
    ),
    *(
        Command(
            cls,
            "the v2 table written (Iceberg: snapshot as version, what it added as statistics)"
            + ("" if cls == c.V2_WRITES[0] else "; OVERWRITE"),
            h.v2_write,
            _schema_only(cls),
            needs_plan=True,
        )
        for cls in c.V2_WRITES
    ),
    *(
        Command(
            cls,
            "the table of a v2 catalog, loaded from it; " + c.V2_CREATE_LIFECYCLE[cls],
            h.v2_create,
            _resolved_name(cls),
        )
        for cls in c.V2_CREATES
    ),
    *(
        Command(
            cls,
            "the table of a row-level write (MERGE, UPDATE, DELETE); no lifecycle (rows changed in place)",
            h.row_level,
            needs_plan=True,
        )
        for cls in ROW_LEVEL_WRITES
    ),
    *(
        Command(
            cls,
            "the Delta table the command rewrites (its target), with the version it made; no lifecycle",
            h.delta_row_level,
            needs_plan=True,
        )
        for cls in delta.ROW_LEVEL_COMMANDS
    ),
    *(
        Command(
            cls,
            "the Delta table it rewrites, with the version it made"
            + ("; OVERWRITE" if lifecycle else " (no lifecycle: its rows stay the same)"),
            h.delta_maintenance,
            needs_plan=True,
        )
        for cls, lifecycle in delta.MAINTENANCE_COMMANDS.items()
    ),
    *(
        Command(
            cls, "the altered table as its catalog holds it after the change; ALTER", h.alter, needs_plan=True
        )
        for cls in (*V1_ALTERS, *sorted(V2_ALTERS))
    ),
)

#: Spark class name -> its entry.
BY_CLASS: dict[str, Command] = {command.cls: command for command in COMMANDS}


__all__ = ["BY_CLASS", "COMMANDS", "Command", "FieldReaders"]
