"""Inputs: the relation leaves of a plan, read by JVM-side functions in a constant number of
py4j calls, and parsed into :class:`~lineage_operators.spark.facts.RelationFacts`.

Leaves: ``LogicalRelation`` over ``HadoopFsRelation`` / ``JDBCRelation`` / ``KafkaRelation`` / with a
``catalogTable``, ``HiveTableRelation``, ``DataSourceV2Relation``
(:mod:`~lineage_operators.spark.plan.v2_tables`), a Kafka stream's ``StreamingDataSourceV2Relation``
(:mod:`~lineage_operators.spark.plan.kafka`).

Size: the JVM-side record of a leaf (its field order) and the parsing of each leaf kind (files,
catalog tables, V2 tables, JDBC, Delta change feeds) sit side by side: both halves share that order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import RelationFacts
from lineage_operators.spark.jvm.spark_classes import (
    CATALOG_PLUGIN,
    CATALOG_TABLE,
    CI_MAP,
    DSV2_REL,
    FILE_INDEX,
    FILE_TABLE,
    HFR,
    HIVE_REL,
    IDENTIFIER,
    INNER_QUERY,
    JDBC_OPTS,
    JDBC_REL,
    LR,
    PAFI,
    QUERY_PLAN,
    STORAGE,
    STRUCT,
    TABLE,
    TABLE_ID,
    TREE_NODE,
    V1_TABLE,
)
from lineage_operators.spark.jvm.text import CTSEP, RSEP, SEP3, split_list, split_records
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.plan import kafka
from lineage_operators.spark.plan.columns.compact import expr_ids_field, parse_expr_ids
from lineage_operators.spark.plan.records import directories, field_at, parse_catalog_table, sub_fields
from lineage_operators.spark.plan.v2_tables import v2_relation_facts
from lineage_operators.spark.tables import delta, iceberg

log = get_logger(__name__)


def catalog_table_record(t: JvmTools, with_schema: bool = False) -> Any:
    """CatalogTable -> db, table, location, provider[, schema] joined with CTSEP."""
    fields = [
        t.opt(t.chain((CATALOG_TABLE, "identifier"), (TABLE_ID, "database"))),
        t.chain((CATALOG_TABLE, "identifier"), (TABLE_ID, "table")),
        t.opt(t.chain((CATALOG_TABLE, "storage"), (STORAGE, "locationUri"))),
        t.opt(t.step(CATALOG_TABLE, "provider")),
    ]
    if with_schema:
        fields.append(t.chain((CATALOG_TABLE, "schema"), (STRUCT, "json")))
    return t.record(fields, CTSEP)


def plan_schema(t: JvmTools, query_of: str | None = None) -> Any:
    """Schema JSON of the argument plan, or of its ``query`` when ``query_of`` is given.

    JSON (not DDL) because its atomic type names are exactly ``DataType.typeName``, what
    openlineage-spark reports; ~2.5 ms JVM-side for 300 columns.
    """
    steps: list[Any] = [(query_of, "query")] if query_of else []
    return t.chain(*steps, (QUERY_PLAN, "schema"), (STRUCT, "json"))


def _relation_schema(t: JvmTools, then: Any) -> Any:
    """``then`` applied to the schema of a relation leaf (LogicalRelation, Hive, DSv2)."""
    schema = t.chain((QUERY_PLAN, "schema"), then)
    streams = None
    for cls in kafka.STREAM_RELATIONS:  # a micro-batch's stream relation: its columns
        streams = t.when(cls, schema, streams) if t.has_class(cls) else streams
    return t.when(LR, schema, t.when(HIVE_REL, schema, t.when(DSV2_REL, schema, streams)))


def _leaf_fields(t: JvmTools, schema_json: bool = False) -> list[Any]:
    """Field handles of a leaf record: see :meth:`PlanReader._parse_leaf` for their order.

    Field 5 is the schema's JSON when ``schema_json``, else its hash code: a plan reading many
    sources with one schema (a 50-way union) then serializes that schema once, not 50 times
    (:func:`_build_schemas_fn`).
    """
    relation = (LR, "relation")
    key_set = (t.line.collection_class("map"), "keySet")
    hfr_paths = t.when(HFR, t.mk_string(t.chain((HFR, "location"), (FILE_INDEX, "rootPaths"))))
    hfr_dirs = t.when(
        HFR,
        t.chain(
            (HFR, "location"),
            t.when(PAFI, t.mk_string(t.chain((PAFI, "leafDirToChildrenFiles"), key_set))),
        ),
    )
    v2_table = (DSV2_REL, "table")
    ft_paths = t.when(FILE_TABLE, t.mk_string(t.chain((FILE_TABLE, "fileIndex"), (FILE_INDEX, "rootPaths"))))
    ft_dirs = t.when(
        FILE_TABLE,
        t.chain(
            (FILE_TABLE, "fileIndex"),
            t.when(PAFI, t.mk_string(t.chain((PAFI, "leafDirToChildrenFiles"), key_set))),
        ),
    )
    ct = catalog_table_record(t)
    ct_of_leaf = t.when(
        LR,
        t.option_map(t.step(LR, "catalogTable"), ct),
        t.when(
            HIVE_REL,
            t.chain((HIVE_REL, "tableMeta"), ct),
            t.when(DSV2_REL, t.chain(v2_table, t.when(V1_TABLE, t.chain((V1_TABLE, "v1Table"), ct)))),
        ),
    )
    jdbc_options = (JDBC_REL, "jdbcOptions")
    jdbc = t.record(
        [
            t.chain(jdbc_options, (JDBC_OPTS, "url")),
            t.opt(
                t.chain(
                    jdbc_options, (JDBC_OPTS, "parameters"), (CI_MAP, "get", ("java.lang.String", "dbtable"))
                )
            ),
            t.opt(
                t.chain(
                    jdbc_options, (JDBC_OPTS, "parameters"), (CI_MAP, "get", ("java.lang.String", "query"))
                )
            ),
        ],
        SEP3,
    )
    prop = ("java.util.Map", "get")
    v2 = t.record(
        [
            t.chain(v2_table, (TABLE, "name")),
            t.chain(
                v2_table,
                delta.v2_location_field(
                    t, t.chain((TABLE, "properties"), (*prop, ("java.lang.Object", "location")))
                ),
            ),
            t.chain(v2_table, (TABLE, "properties"), (*prop, ("java.lang.Object", "provider"))),
            t.chain(v2_table, (TABLE, "properties"), (*prop, ("java.lang.Object", "format"))),
            t.option_map(t.step(DSV2_REL, "catalog"), t.step(CATALOG_PLUGIN, "name")),
            t.option_map(
                t.step(DSV2_REL, "identifier"), t.chain((IDENTIFIER, "namespace"), t.array_join("."))
            ),
            t.option_map(t.step(DSV2_REL, "identifier"), t.step(IDENTIFIER, "name")),
            iceberg.snapshot_field(t),  # snapshot ids of an Iceberg table
        ],
        SEP3,
    )
    fields = [
        t.chain(("java.lang.Object", "getClass"), ("java.lang.Class", "getName")),
        # a HadoopFsRelation subclass (Delta's) reads as one: its class is what the leaf table knows
        t.when(
            LR,
            t.chain(
                relation,
                t.when(
                    HFR,
                    t.constant(HFR),
                    t.chain(("java.lang.Object", "getClass"), ("java.lang.Class", "getName")),
                ),
            ),
        ),
        t.when(LR, t.chain(relation, ("java.lang.Object", "toString"))),
        t.when(
            LR,
            t.chain(relation, delta.cdf_location_field(t, hfr_paths)),
            t.when(DSV2_REL, t.chain(v2_table, ft_paths)),
        ),
        t.when(LR, t.chain(relation, hfr_dirs), t.when(DSV2_REL, t.chain(v2_table, ft_dirs))),
        _relation_schema(t, t.step(STRUCT, "json" if schema_json else "hashCode")),
        ct_of_leaf,
        t.when(LR, t.chain(relation, t.when(JDBC_REL, jdbc))),
        t.when(DSV2_REL, v2),
        t.when(LR, t.chain(relation, _identity_hash(t))),
        expr_ids_field(t),
        delta.read_version_field(t),
        kafka.leaf_field(t),  # 12: a Kafka read's servers and topics
    ]
    return fields


def _identity_hash(t: JvmTools) -> Any:
    """``System.identityHashCode``: the physical scan of a relation holds the very same object."""
    return t.static("java.lang.System", "identityHashCode", ["java.lang.Object"])


def build_leaf_fn(t: JvmTools) -> Any:
    """The function reading one leaf node into a :data:`SEP`-joined record (see _parse_leaf)."""
    return t.function(t.record(_leaf_fields(t)))


def build_leaf_builder_fn(t: JvmTools) -> Any:
    """As :func:`build_leaf_fn` with the schema JSON inline, for one node read on its own."""
    return t.function(t.builder(t.record(_leaf_fields(t, schema_json=True))))


def build_leaf_schema_fn(t: JvmTools) -> Any:
    """Leaf -> its relation's StructType, or NONE (a String: no schema, or it cannot be read);
    ``distinct()`` then drops equal schemas."""
    return t.function(t.safe(_relation_schema(t, t.identity())))


def build_schema_record_fn(t: JvmTools) -> Any:
    """StructType -> hash code and JSON."""
    return t.function(t.when(STRUCT, t.record([t.step(STRUCT, "hashCode"), t.step(STRUCT, "json")])))


def build_collect_leaves_fn(t: JvmTools) -> Any:
    return t.function(t.step(TREE_NODE, "collectLeaves"))


class InputReading:
    """The input half of :class:`~lineage_operators.spark.plan.reader.PlanReader`."""

    _t: JvmTools
    _jss: Any
    _redact_url: Any
    _leaf_fn: Any
    _leaves_fn: Any
    _leaf_builder_fn: Any

    # -- inputs --------------------------------------------------------------------------------

    def _plan_leaves(self, plan: Any, cls: str | None) -> Any:
        """The leaves of the plan, of its subqueries and of a command's inner query (JVM Seq)."""
        coll = self._t.coll
        plans = coll.prepended(plan, plan.subqueriesAll())
        if cls in INNER_QUERY:
            plans = coll.appended_all(plans, plan.innerChildren())
        return coll.flat_map(plans, self._leaves_fn)

    def plan_inputs(self, plan: Any, cls: str | None = None) -> list[RelationFacts]:
        """Every leaf of ``plan``, of its subqueries and (for ``cls``) of a command's inner query."""
        records, schema_text = self._leaf_texts(self._plan_leaves(plan, cls))
        return self._inputs_of(records, schema_text) if records else []

    def _leaf_texts(self, leaves: Any) -> tuple[list[list[str | None]], str | None]:
        """The distinct leaf records of ``leaves`` (a JVM Seq) and, when one has a schema, the
        distinct schema records (two calls, or one)."""
        t = self._t
        records = split_records(t.read(t.joined(t.coll.map(leaves, self._leaf_fn).distinct(), RSEP)))
        if not any(field_at(r, 5) for r in records):
            return records, None
        distinct = t.coll.map(leaves, t.cached("plan.leaf_schema", build_leaf_schema_fn)).distinct()
        schemas = t.coll.map(distinct, t.cached("plan.schema_record", build_schema_record_fn))
        return records, t.read(t.joined(schemas, RSEP))

    def _inputs_of(self, records: list[list[str | None]], schema_text: str | None) -> list[RelationFacts]:
        """Input facts of the plan's leaf records and its schema records (hash code, JSON)."""
        schemas: dict[str, str | None] = {}
        for key, value in (r[:2] for r in split_records(schema_text) if len(r) >= 2):
            if key is not None:  # two different schemas with one hash code: keep neither
                schemas[key] = None if key in schemas else value
        result: list[RelationFacts] = []
        for record in records:
            key = field_at(record, 5)
            result.extend(self._parse_leaf([*record[:5], schemas.get(key) if key else None, *record[6:]]))
        return result

    def read_leaf(self, node: Any) -> list[RelationFacts]:
        """One relation node read on its own (the target of an insert into a relation)."""
        records = split_records(self._t.read(self._leaf_builder_fn.apply(node)))
        return self._parse_leaf(records[0]) if records else []

    def _parse_leaf(self, record: list[str | None]) -> list[RelationFacts]:
        """A leaf record (fields of :func:`_leaf_fields`) -> the datasets it stands for."""
        facts = self._parse_leaf_datasets(record)
        for rel in facts:
            rel.expr_ids = parse_expr_ids(field_at(record, 10))
        return facts

    def _parse_leaf_datasets(self, record: list[str | None]) -> list[RelationFacts]:
        leaf = LEAVES.get(field_at(record, 0) or "")
        return leaf.parse(self, record) if leaf is not None else []

    def _parse_relation(self, record: list[str | None]) -> list[RelationFacts]:
        """A LogicalRelation or HiveTableRelation leaf: its catalog table, else its relation."""
        rel_cls, rel_text, schema = field_at(record, 1) or "", field_at(record, 2), field_at(record, 5)
        table, location, provider, _ = parse_catalog_table(field_at(record, 6))
        if table is not None:
            fmt = rel_text if rel_cls == HFR else provider
            return [
                RelationFacts(
                    location=location, table=table, schema_text=schema, provider=provider, file_format=fmt
                )
            ]
        relation = RELATIONS.get(rel_cls)
        if relation is not None:
            return relation.parse(self, record)
        if rel_cls:
            log.debug("lineage capture: relation %s is not a known dataset", rel_cls.rsplit(".", 1)[-1])
        return []

    def jdbc(
        self, url: str | None, dbtable: str | None, query: str | None, schema: str | None
    ) -> RelationFacts:
        table_read = bool(dbtable) and not (dbtable or "").lstrip().startswith("(")
        return RelationFacts(
            jdbc_url=self._safe_url(url),
            jdbc_table=dbtable,
            jdbc_query=query,
            schema_text=schema if table_read else None,  # a query's columns are not a table's
            provider="jdbc",
        )

    def _safe_url(self, url: str | None) -> str | None:
        if not url:
            return None
        try:
            return str(self._redact_url(url))
        except Exception:
            return None  # never keep a URL we could not redact


# -- the leaves plan reading knows: class -> what a read of it reports, and its parser ------------


@dataclass(frozen=True)
class Leaf:
    """A plan leaf (or the relation inside a ``LogicalRelation``) read as an input: what it reports
    (a line of ``docs/supported-commands.md``) and the parser of its record (:func:`_leaf_fields`)."""

    cls: str
    reports: str
    parse: Callable[[InputReading, list[str | None]], list[RelationFacts]]


def _relation_leaf(reading: InputReading, record: list[str | None]) -> list[RelationFacts]:
    facts = reading._parse_relation(record)
    for rel in facts[:1]:  # scan statistics go to the relation's first directory
        rel.relation_id = field_at(record, 9)
    return delta.with_read_version(facts, field_at(record, 11))


def _v2_leaf(reading: InputReading, record: list[str | None]) -> list[RelationFacts]:
    table, location, provider, _ = parse_catalog_table(field_at(record, 6))
    schema = field_at(record, 5)
    if table is not None:
        return [RelationFacts(location=location, table=table, schema_text=schema, provider=provider)]
    v2 = sub_fields(field_at(record, 8), SEP3)
    facts = v2_relation_facts(
        v2, split_list(field_at(record, 3)), set(split_list(field_at(record, 4))), schema
    )
    ref = (field_at(v2, 4), field_at(v2, 5), field_at(v2, 6))  # catalog, namespace, name
    extras = iceberg.relation_extras(reading._jss, field_at(v2, 2), field_at(v2, 7), ref)
    version = extras.get("version")
    written = iceberg.written_counts(field_at(v2, 7)) if version else None
    current = iceberg.current_snapshot(field_at(v2, 7)) if version else None
    commit = iceberg.written_commit(field_at(v2, 7)) if version else None
    for rel in facts:
        rel.version, rel.symlink, rel.written = version, extras.get("symlink"), written
        rel.written_version, rel.written_commit = current, commit
        rel.catalog_facts = extras.get("catalog_facts")
    return facts


def _files(reading: InputReading, record: list[str | None]) -> list[RelationFacts]:
    dirs = directories(split_list(field_at(record, 3)), set(split_list(field_at(record, 4))))
    return [
        RelationFacts(location=d, schema_text=field_at(record, 5), file_format=field_at(record, 2))
        for d in dirs
    ]


def _change_feed(reading: InputReading, record: list[str | None]) -> list[RelationFacts]:
    return delta.change_feed_read(field_at(record, 3), field_at(record, 5))


def _kafka(reading: InputReading, record: list[str | None]) -> list[RelationFacts]:
    return kafka.relation_facts(field_at(record, 12), field_at(record, 5))


def _jdbc_relation(reading: InputReading, record: list[str | None]) -> list[RelationFacts]:
    jdbc = sub_fields(field_at(record, 7), SEP3)
    return [reading.jdbc(field_at(jdbc, 0), field_at(jdbc, 1), field_at(jdbc, 2), field_at(record, 5))]


_TABLE_FIRST = "; a catalog table behind it is reported as the table (location, TABLE symlink)"

#: Plan leaves read as inputs.
LEAVES: dict[str, Leaf] = {
    leaf.cls: leaf
    for leaf in (
        Leaf(
            LR,
            "the relation it wraps (below)" + _TABLE_FIRST + "; scan statistics; Delta: the table's root, "
            "the snapshot read as version",
            _relation_leaf,
        ),
        Leaf(HIVE_REL, "the Hive table read" + _TABLE_FIRST, _relation_leaf),
        Leaf(
            DSV2_REL,
            "a v2 table: file tables by their paths, catalog tables by location with a TABLE symlink; "
            "Iceberg: snapshot as version, catalog facet",
            _v2_leaf,
        ),
        *(
            Leaf(
                cls,
                "a stream's micro-batch read: Kafka topics (those its start offset holds, a pattern's "
                "matches too) as `kafka://<first bootstrap server>` + topic; other streaming sources: "
                "nothing",
                _kafka,
            )
            for cls in kafka.STREAM_RELATIONS
        ),
    )
}
#: Relations inside a ``LogicalRelation`` that is no catalog table.
RELATIONS: dict[str, Leaf] = {
    leaf.cls: leaf
    for leaf in (
        Leaf(HFR, "the files' directories (a single file as itself), schema, format", _files),
        Leaf(
            JDBC_REL,
            "the JDBC table or query, URL without credentials; schema of a table read",
            _jdbc_relation,
        ),
        Leaf(
            delta.CDF_RELATION,
            "a Delta Change Data Feed read: the table's root, the version it starts from as version",
            _change_feed,
        ),
        Leaf(
            kafka.KAFKA_RELATION,
            "a Kafka batch read: the topics of `subscribe` / `topic` / `assign` as `kafka://<first bootstrap "
            "server>` + topic (`subscribePattern`: nothing)",
            _kafka,
        ),
    )
}
