"""Outputs: the root command of a plan (write commands, DDL, V1 and V2), read by one JVM-side
function (:func:`_build_root_fn`) and turned into output
:class:`~lineage_operators.spark.plan_facts.RelationFacts` (:meth:`CommandOutputs._outputs`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark import iceberg
from lineage_operators.spark.alter import alter_outputs, is_alter
from lineage_operators.spark.jvm import CTSEP, NONE, SEP3, JvmTools
from lineage_operators.spark.plan_catalog import CatalogOutputs
from lineage_operators.spark.plan_classes import (
    _SESSION_CATALOG,
    CATALOG_PLUGIN,
    CREATE_DS,
    CREATE_LIKE,
    CREATE_TABLE,
    CTAS_DS,
    CTAS_HIVE,
    CTAS_HIVE_OPT,
    DROP_V1,
    DROP_V2,
    IDENTIFIER,
    INSERT_DS,
    INSERT_DS_DIR,
    INSERT_HADOOP,
    INSERT_HIVE,
    INSERT_HIVE_DIR,
    LOAD_DATA,
    ORIGIN,
    QUERY_PLAN,
    REGISTER,
    RENAME,
    RESOLVED_ID,
    SAVE_INTO,
    STORAGE,
    TABLE_ID,
    TREE_NODE,
    TRUNCATE,
    V2_CREATES,
    V2_WRITES,
)
from lineage_operators.spark.plan_facts import (
    RelationFacts,
    TableRef,
    _at,
    _bool,
    _parse_ct,
    parse_metrics,
    uri_to_path,
)
from lineage_operators.spark.plan_leaves import InputReading, _ct_record, _schema
from lineage_operators.spark.statistics import write_metrics_text

log = get_logger(__name__)


def _cmd_fields(t: JvmTools) -> list[tuple[str, Callable[[], list[Any]]]]:
    """(command class, builder of its field handles) for every write command read at the root.

    Builders are lazy: a command class missing from this Spark build (e.g. no Hive module) is
    skipped before any of its methods is looked up.
    """
    ct = _ct_record(t)
    ct_full = _ct_record(t, with_schema=True)

    def tid(getter: tuple[str, str]) -> list[Any]:
        return [t.chain(getter, t.opt(t.step(TABLE_ID, "database"))), t.chain(getter, (TABLE_ID, "table"))]

    def fmt(cls: str) -> Any:
        return t.chain(
            (cls, "fileFormat"),
            t.when(REGISTER, t.step(REGISTER, "shortName"), t.step("java.lang.Object", "toString")),
        )

    def option(cls: str, key: str) -> Any:
        get = (t.line.collection_class("map"), "get", ("java.lang.Object", key))
        return t.opt(t.chain((cls, "options"), get))

    def resolved(getter: tuple[str, str]) -> list[Any]:
        handles = [
            t.chain((RESOLVED_ID, "catalog"), (CATALOG_PLUGIN, "name")),
            t.chain((RESOLVED_ID, "identifier"), (IDENTIFIER, "namespace"), t.array_join(".")),
            t.chain((RESOLVED_ID, "identifier"), (IDENTIFIER, "name")),
        ]
        return [t.chain(getter, t.when(RESOLVED_ID, h)) for h in handles]

    def ctas(cls: str, getter: str) -> tuple[str, Callable[[], list[Any]]]:
        return cls, lambda: [t.chain((cls, getter), ct), t.step(cls, "mode"), _schema(t, cls)]

    table: list[tuple[str, Callable[[], list[Any]]]] = [
        (
            INSERT_HADOOP,
            lambda: [
                t.chain((INSERT_HADOOP, "outputPath"), ("java.lang.Object", "toString")),
                t.step(INSERT_HADOOP, "mode"),
                t.option_map(t.step(INSERT_HADOOP, "catalogTable"), ct),
                _schema(t, INSERT_HADOOP),
                fmt(INSERT_HADOOP),
            ],
        ),
        ctas(CTAS_DS, "table"),
        (CREATE_DS, lambda: [t.chain((CREATE_DS, "table"), ct_full)]),
        (CREATE_TABLE, lambda: [t.chain((CREATE_TABLE, "table"), ct_full)]),
        (
            SAVE_INTO,
            lambda: [
                t.chain(
                    (SAVE_INTO, "dataSource"),
                    ("java.lang.Object", "getClass"),
                    ("java.lang.Class", "getName"),
                ),
                t.step(SAVE_INTO, "mode"),
                option(SAVE_INTO, "url"),
                option(SAVE_INTO, "dbtable"),
                option(SAVE_INTO, "query"),
                option(SAVE_INTO, "path"),
                _schema(t, SAVE_INTO),
                t.chain((SAVE_INTO, "dataSource"), t.when(REGISTER, t.step(REGISTER, "shortName"))),
            ],
        ),
        (INSERT_DS, lambda: [t.step(INSERT_DS, "overwrite"), _schema(t, INSERT_DS)]),
        (
            INSERT_DS_DIR,
            lambda: [
                t.opt(t.chain((INSERT_DS_DIR, "storage"), (STORAGE, "locationUri"))),
                t.step(INSERT_DS_DIR, "provider"),
                t.step(INSERT_DS_DIR, "overwrite"),
                _schema(t, INSERT_DS_DIR),
            ],
        ),
        (
            LOAD_DATA,
            lambda: [
                *tid((LOAD_DATA, "table")),
                t.step(LOAD_DATA, "path"),
                t.step(LOAD_DATA, "isLocal"),
                t.step(LOAD_DATA, "isOverwrite"),
            ],
        ),
        (TRUNCATE, lambda: tid((TRUNCATE, "tableName"))),
        (CREATE_LIKE, lambda: tid((CREATE_LIKE, "targetTable"))),
        (RENAME, lambda: [*tid((RENAME, "oldName")), *tid((RENAME, "newName")), t.step(RENAME, "isView")]),
        (
            DROP_V1,
            lambda: [*tid((DROP_V1, "tableName")), t.step(DROP_V1, "ifExists"), t.step(DROP_V1, "isView")],
        ),
        (DROP_V2, lambda: [*resolved((DROP_V2, "child")), t.step(DROP_V2, "ifExists")]),
        (
            INSERT_HIVE,
            lambda: [
                t.chain((INSERT_HIVE, "table"), ct),
                t.step(INSERT_HIVE, "overwrite"),
                _schema(t, INSERT_HIVE),
            ],
        ),
        ctas(CTAS_HIVE, "tableDesc"),
        ctas(CTAS_HIVE_OPT, "tableDesc"),
        (
            INSERT_HIVE_DIR,
            lambda: [
                t.opt(t.chain((INSERT_HIVE_DIR, "storage"), (STORAGE, "locationUri"))),
                t.step(INSERT_HIVE_DIR, "overwrite"),
                _schema(t, INSERT_HIVE_DIR),
            ],
        ),
    ]
    for cls in V2_WRITES:
        table.append((cls, lambda cls=cls: [_schema(t, cls)]))  # type: ignore[misc]
    for cls in V2_CREATES:
        table.append((cls, lambda cls=cls: resolved((cls, "name"))))  # type: ignore[misc]
    return table


#: ``CommandOutputs._prefetched_metrics`` when the metrics were not read ahead.
_NOT_FETCHED = object()


def _build_root_fn(t: JvmTools) -> Any:
    """Root plan -> class name, the command's fields (SEP3-joined) and SQL text candidates."""
    dispatch = t.constant(NONE)
    for cls, fields in reversed(_cmd_fields(t)):
        if not t.has_class(cls):
            continue
        try:
            dispatch = t.when(cls, t.record(fields(), SEP3), dispatch)
        except Exception as exc:  # a Spark version without one of the methods: skip that command
            log.debug("lineage capture: cannot read %s on this Spark version: %s", cls, describe(exc))
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
    """The output half of :class:`~lineage_operators.spark.plan.PlanReader` (inputs and catalog
    lookups are its bases: an insert reads its target as a leaf, DDL looks tables up)."""

    _t: JvmTools

    # -- outputs -------------------------------------------------------------------------------

    #: the write metrics text when the execution's one-call read fetched it (:mod:`.plan_batch`)
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
        """Datasets written by the root command ``cls`` (fields ``cmd`` from :func:`_cmd_fields`).

        Lifecycle as openlineage-spark: SaveMode.Overwrite / INSERT OVERWRITE -> OVERWRITE, CTAS and
        CREATE TABLE -> CREATE, Append -> none; DROP/TRUNCATE/RENAME from their commands. One
        difference: a ``SaveIntoDataSourceCommand`` (JDBC...) in Append mode gets no lifecycle
        facet, where openlineage-spark reports OVERWRITE for every such write.
        """
        f = lambda i: _at(cmd, i)  # noqa: E731
        if cls == INSERT_HADOOP:
            table, location, provider, _ = _parse_ct(f(2))
            rel = RelationFacts(
                location=f(0) or location,
                table=table,
                schema_text=f(3),
                file_format=f(4),
                provider=provider,
                lifecycle="OVERWRITE" if f(1) == "Overwrite" else None,
            )
            return [self._with_stats(rel, qe, succeeded)]
        if cls in (CTAS_DS, CTAS_HIVE, CTAS_HIVE_OPT, CREATE_DS, CREATE_TABLE):
            table, location, provider, schema = _parse_ct(f(0))
            if table is None:
                return []
            return [
                RelationFacts(
                    location=location or self._default_location(table),
                    table=table,
                    # a CTAS reads its table without the schema: the schema is its query's
                    schema_text=schema if cls in (CREATE_DS, CREATE_TABLE) else f(2),
                    provider=provider,
                    lifecycle="CREATE",
                )
            ]
        if cls == SAVE_INTO:
            return self._save_into(cmd, qe, succeeded)
        if cls == INSERT_DS:
            rels = self._read_leaf(plan.logicalRelation())
            for rel in rels:
                rel.schema_text = f(1) or rel.schema_text
                rel.lifecycle = "OVERWRITE" if _bool(f(0)) else None
            return rels
        if cls in (INSERT_DS_DIR, INSERT_HIVE_DIR):
            if not f(0):
                return []
            overwrite, schema = (f(2), f(3)) if cls == INSERT_DS_DIR else (f(1), f(2))
            return [
                RelationFacts(
                    location=uri_to_path(f(0)),
                    schema_text=schema,
                    lifecycle="OVERWRITE" if _bool(overwrite) else None,
                    file_format=f(1) if cls == INSERT_DS_DIR else None,
                )
            ]
        if cls == INSERT_HIVE:
            table, location, provider, _ = _parse_ct(f(0))
            if table is None:
                return []
            rel = RelationFacts(
                location=location or self._default_location(table),
                table=table,
                schema_text=f(2),
                provider=provider,
                lifecycle="OVERWRITE" if _bool(f(1)) else None,
            )
            return [self._with_stats(rel, qe, succeeded)]
        if cls == LOAD_DATA:
            source = f(2)
            if source:
                path = source if (":" in source.split("/", 1)[0] or not _bool(f(3))) else f"file:{source}"
                inputs.append(RelationFacts(location=path))
            return self._catalog_output(TableRef(f(0), f(1) or ""), "OVERWRITE" if _bool(f(4)) else None)
        if cls == TRUNCATE:
            return self._catalog_output(TableRef(f(0), f(1) or ""), "TRUNCATE", with_schema=False)
        if cls == CREATE_LIKE:  # the new table, as the catalog holds it once the command ran
            return self._catalog_output(TableRef(f(0), f(1) or ""), "CREATE")
        if cls == RENAME:
            if _bool(f(4)):
                return []  # a view
            old = TableRef(f(0), f(1) or "")
            out = self._catalog_output(TableRef(f(2) or f(0), f(3) or ""), "RENAME", with_schema=True)
            for rel in out:
                rel.previous_table = old
            return out
        if cls == DROP_V1:
            if _bool(f(3)):
                return []  # DROP VIEW
            return self._dropped(TableRef(f(0), f(1) or ""), if_exists=_bool(f(2)))
        if cls == DROP_V2:
            catalog, namespace, name = f(0), f(1), f(2)
            if not name:
                return []
            ref = TableRef(namespace, name, None if catalog == _SESSION_CATALOG else catalog)
            return self._dropped(ref, if_exists=_bool(f(3)))
        if cls in V2_WRITES:
            rels = self._read_leaf(plan.table())
            for rel in rels:
                rel.schema_text = f(0) or rel.schema_text
                rel.lifecycle = "OVERWRITE" if cls != V2_WRITES[0] else None
            return [_with_written(rel) for rel in rels]
        if cls in V2_CREATES:
            return self._v2_created(cls, f(0), f(1), f(2))
        if cls in iceberg.ROW_LEVEL_WRITES:  # MERGE/UPDATE/DELETE write their originalTable
            rels = self._read_leaf(plan.originalTable())
            return [_with_written(replace(r, lifecycle="OVERWRITE")) for r in rels]
        if is_alter(cls):
            return alter_outputs(self, self._t, plan)
        return []

    def _save_into(self, cmd: list[str | None], qe: Any, succeeded: bool) -> list[RelationFacts]:
        source_cls, mode, url, dbtable, query, path, schema, short = (_at(cmd, i) for i in range(8))
        lifecycle = {"Overwrite": "OVERWRITE", "Append": None}.get(mode or "", "CREATE")
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


def _with_written(rel: RelationFacts) -> RelationFacts:
    """An output whose table reports what its write added (an Iceberg snapshot): those counts are
    its statistics, as Spark has no write metrics for V2 writes; its version is the snapshot made."""
    if rel.written is not None:
        rel.rows, rel.size, rel.files = rel.written
    if rel.written_version is not None:
        rel.version = rel.written_version
    return rel
