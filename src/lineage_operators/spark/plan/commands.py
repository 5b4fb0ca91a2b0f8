"""The handlers of the root commands plan reading knows: each turns what the JVM read of one command (its
fields, by name) into the execution's output :class:`~lineage_operators.spark.facts.RelationFacts`.

Why a context protocol: a handler touches the reader only through :class:`CommandContext`, the few
lookups a command's outputs need (the write's statistics, a leaf read on its own, the catalog's table,
the remembered location of a dropped one); the table of commands
(:mod:`~lineage_operators.spark.plan.command_table`) pairs each Spark class with its handler and its
fields, and the reader (:class:`~lineage_operators.spark.plan.outputs.CommandOutputs`) implements the
context. Neither module imports the reader, and the handlers are tested with a context of a few lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import DELTA_PROVIDER, SESSION_CATALOG, RelationFacts, TableRef
from lineage_operators.spark.jvm import spark_classes as c
from lineage_operators.spark.plan import kafka
from lineage_operators.spark.plan.records import is_true, parse_catalog_table, uri_to_path
from lineage_operators.spark.tables import delta

log = get_logger(__name__)


@dataclass
class Call:
    """One execution's root command, as its handler gets it: its fields by name (None when absent)."""

    cls: str
    values: Mapping[str, str | None]
    plan: Any = None  # the analyzed plan object, for the commands that need it (``Command.needs_plan``)
    succeeded: bool = True
    inputs: list[RelationFacts] = field(default_factory=list)
    #: the write metrics text read with the execution
    #: (:attr:`~lineage_operators.spark.plan.execution.ExecutionRead.metrics_text`)
    metrics_text: str | None = None

    def __getitem__(self, name: str) -> str | None:
        return self.values.get(name)

    def flag(self, name: str) -> bool:
        return is_true(self.values.get(name))

    def table(self, name: str) -> TableRef:
        """The ``TableIdentifier`` field ``name`` (its ``name.database`` and ``name.table``)."""
        return TableRef(self[f"{name}.database"], self[f"{name}.table"] or "")


class CommandContext(Protocol):
    """What a command handler may touch of the execution's reader."""

    def with_stats(self, rel: RelationFacts, call: Call) -> RelationFacts:
        """``rel`` with the statistics of the write (rows, bytes, files), when it succeeded."""

    def jdbc(
        self, url: str | None, dbtable: str | None, query: str | None, schema: str | None
    ) -> RelationFacts:
        """A JDBC table or query, its URL without credentials."""

    def default_location(self, table: TableRef) -> str | None:
        """Where the session catalog puts ``table`` when it manages it."""

    def read_leaf(self, node: Any) -> list[RelationFacts]:
        """One relation node of the plan read as a leaf."""

    def plan_inputs(self, plan: Any) -> list[RelationFacts]:
        """Every leaf of a plan (a command's field that is a plan, not a child)."""

    def catalog_output(
        self, table: TableRef, lifecycle: str | None, with_schema: bool = True
    ) -> list[RelationFacts]:
        """A session-catalog table as an output, as the catalog holds it now."""

    def dropped(self, table: TableRef, if_exists: bool) -> list[RelationFacts]:
        """A dropped table, at its remembered or managed location."""

    def v2_table_output(
        self, catalog: str | None, namespace: str | None, name: str, lifecycle: str | None
    ) -> list[RelationFacts]:
        """A table of a v2 catalog as an output, loaded from its catalog."""

    def altered(self, plan: Any) -> list[RelationFacts]:
        """The table an ALTER TABLE changed, as its catalog holds it now."""


Handler = Callable[[CommandContext, Call], list[RelationFacts]]


def _overwrite(flag: bool) -> str | None:
    return "OVERWRITE" if flag else None


def insert_files(context: CommandContext, call: Call) -> list[RelationFacts]:
    table, location, provider, _ = parse_catalog_table(call["table"])
    rel = RelationFacts(
        location=call["path"] or location,
        table=table,
        schema_text=call["schema"],
        file_format=call["format"],
        provider=provider,
        lifecycle=_overwrite(call["mode"] == "Overwrite"),
    )
    return [context.with_stats(rel, call)]


def create(context: CommandContext, call: Call) -> list[RelationFacts]:
    table, location, provider, schema = parse_catalog_table(call["table"])
    if table is None:
        return []
    as_select = call.cls not in (c.CREATE_DS, c.CREATE_TABLE)
    return [
        RelationFacts(
            location=location or context.default_location(table),
            table=table,
            # a CTAS reads its table without the schema: the schema is its query's
            schema_text=call["schema"] if as_select else schema,
            provider=provider,
            lifecycle="CREATE",
        )
    ]


def save_into(context: CommandContext, call: Call) -> list[RelationFacts]:
    """A data source's write: a JDBC table, a path (Delta's too), a Kafka topic."""
    url, schema, short = call["url"], call["schema"], call["format"]
    if call["source"] == kafka.KAFKA_PROVIDER:  # whatever the save mode, a topic is appended to
        return [
            context.with_stats(r, call) for r in kafka.write_facts(call["servers"], call["topic"], schema)
        ]
    if url and url.lower().startswith("jdbc:"):
        rel = context.jdbc(url, call["dbtable"], call["query"], schema)
    elif call["path"]:
        rel = RelationFacts(location=call["path"], schema_text=schema, file_format=short)
        if short == DELTA_PROVIDER:
            rel.provider = DELTA_PROVIDER
    else:
        name = (call["source"] or "?").rsplit(".", 1)[-1]
        if short != "noop":
            log.info("lineage capture: write to data source %s has no dataset identity", short or name)
        return []
    rel.lifecycle = {"Overwrite": "OVERWRITE", "Append": None}.get(call["mode"] or "", "CREATE")
    return [context.with_stats(rel, call)]


def insert_relation(context: CommandContext, call: Call) -> list[RelationFacts]:
    rels = context.read_leaf(call.plan.logicalRelation())
    for rel in rels:
        rel.schema_text = call["schema"] or rel.schema_text
        rel.lifecycle = _overwrite(call.flag("overwrite"))
    return rels


def insert_directory(context: CommandContext, call: Call) -> list[RelationFacts]:
    if not call["location"]:
        return []
    return [
        RelationFacts(
            location=uri_to_path(call["location"]),
            schema_text=call["schema"],
            lifecycle=_overwrite(call.flag("overwrite")),
            file_format=call["format"] if call.cls == c.INSERT_DS_DIR else None,  # ``USING``'s; Hive's: none
        )
    ]


def stream_file_sink(context: CommandContext, call: Call) -> list[RelationFacts]:
    """A micro-batch of a stream writing files: the sink's path, or the table over it (``toTable``;
    the catalog's location, as openlineage-spark's ``WriteToMicroBatchDataSourceV1DatasetBuilder``).
    Other V1 sinks write nothing of their own (``foreachBatch``: its batch's writes are executions)."""
    if (call["sink"] or "").rsplit(".", 1)[-1] != c.FILE_STREAM_SINK:
        return []
    table, location, provider, _ = parse_catalog_table(call["table"])
    location = location or call["path"] or file_sink_path(call["sink_text"])
    if not location:
        return []
    # a table's provider is its file format (the sink's own format is private to it)
    return [
        RelationFacts(
            location=location,
            table=table,
            schema_text=call["schema"],
            provider=provider,
            file_format=provider,
        )
    ]


def stream_v2_sink(context: CommandContext, call: Call) -> list[RelationFacts]:
    """A micro-batch of a stream writing to a V2 sink: Kafka's topic (its ``topic`` write option; rows
    naming their own topic name none); other V2 sinks (console, memory...) write no dataset."""
    if not (call["table_class"] or "").startswith(kafka.KAFKA_PROVIDER):
        return []
    return kafka.write_facts(call["servers"], call["topic"], call["schema"])


def file_sink_path(text: str | None) -> str | None:
    """The path in a file sink's ``toString`` (``FileSink[/data/out]`` on every line), for an option
    spelled other than ``path``."""
    if text and text.startswith("FileSink[") and text.endswith("]"):
        return text[len("FileSink[") : -1] or None
    return None


def insert_hive(context: CommandContext, call: Call) -> list[RelationFacts]:
    table, location, provider, _ = parse_catalog_table(call["table"])
    if table is None:
        return []
    rel = RelationFacts(
        location=location or context.default_location(table),
        table=table,
        schema_text=call["schema"],
        provider=provider,
        lifecycle=_overwrite(call.flag("overwrite")),
    )
    return [context.with_stats(rel, call)]


def load_data(context: CommandContext, call: Call) -> list[RelationFacts]:
    source = call["path"]
    if source:
        remote = ":" in source.split("/", 1)[0] or not call.flag("local")
        call.inputs.append(RelationFacts(location=source if remote else f"file:{source}"))
    return context.catalog_output(call.table("table"), _overwrite(call.flag("overwrite")))


def truncate(context: CommandContext, call: Call) -> list[RelationFacts]:
    return context.catalog_output(call.table("table"), "TRUNCATE", with_schema=False)


def create_like(context: CommandContext, call: Call) -> list[RelationFacts]:
    return context.catalog_output(call.table("table"), "CREATE")  # as the catalog holds it once created


def rename(context: CommandContext, call: Call) -> list[RelationFacts]:
    if call.flag("view"):
        return []
    old, new = call.table("old"), call.table("new")
    out = context.catalog_output(
        TableRef(new.database or old.database, new.table), "RENAME", with_schema=True
    )
    for rel in out:
        rel.previous_table = old
    return out


def drop_v1(context: CommandContext, call: Call) -> list[RelationFacts]:
    if call.flag("view"):
        return []  # DROP VIEW
    return context.dropped(call.table("table"), if_exists=call.flag("if_exists"))


def drop_v2(context: CommandContext, call: Call) -> list[RelationFacts]:
    catalog, name = call["table.catalog"], call["table.name"]
    if not name:
        return []
    ref = TableRef(call["table.namespace"], name, None if catalog == SESSION_CATALOG else catalog)
    return context.dropped(ref, if_exists=call.flag("if_exists"))


def v2_write(context: CommandContext, call: Call) -> list[RelationFacts]:
    rels = context.read_leaf(call.plan.table())
    for rel in rels:
        rel.schema_text = call["schema"] or rel.schema_text
        rel.lifecycle = _overwrite(call.cls != c.V2_WRITES[0])
    return [with_written(rel) for rel in rels]


def v2_create(context: CommandContext, call: Call) -> list[RelationFacts]:
    """The table of a V2 ``CreateTable(AsSelect)``/``ReplaceTable(AsSelect)`` command."""
    name = call["table.name"]
    if not name:
        return []
    lifecycle = c.V2_CREATE_LIFECYCLE.get(call.cls)
    return context.v2_table_output(call["table.catalog"], call["table.namespace"], name, lifecycle)


def row_level(context: CommandContext, call: Call) -> list[RelationFacts]:
    rels = context.read_leaf(call.plan.originalTable())  # rows changed in place: no lifecycle, as the jar
    return [with_written(replace(r, lifecycle=None)) for r in rels]


def delta_row_level(context: CommandContext, call: Call) -> list[RelationFacts]:
    rels = context.plan_inputs(call.plan.target())  # rows changed in place: no lifecycle, as the jar
    return [replace(r, lifecycle=None) for r in rels]


def delta_maintenance(context: CommandContext, call: Call) -> list[RelationFacts]:
    return delta.maintained_table(call.plan, call.cls)


def alter(context: CommandContext, call: Call) -> list[RelationFacts]:
    return context.altered(call.plan)


def with_written(rel: RelationFacts) -> RelationFacts:
    """An output whose table reports what its write added (an Iceberg snapshot): those counts are
    its statistics, as Spark has no write metrics for V2 writes; its version is the snapshot made,
    whose commit report it carries."""
    if rel.written is not None:
        rel.rows, rel.size, rel.files = rel.written
    if rel.written_version is not None:
        rel.version = rel.written_version
    rel.commit_report = rel.written_commit
    return rel


__all__ = [
    "Call",
    "CommandContext",
    "Handler",
    "alter",
    "create",
    "create_like",
    "delta_maintenance",
    "delta_row_level",
    "drop_v1",
    "drop_v2",
    "file_sink_path",
    "insert_directory",
    "insert_files",
    "insert_hive",
    "insert_relation",
    "load_data",
    "rename",
    "row_level",
    "save_into",
    "stream_file_sink",
    "stream_v2_sink",
    "truncate",
    "v2_create",
    "v2_write",
    "with_written",
]
