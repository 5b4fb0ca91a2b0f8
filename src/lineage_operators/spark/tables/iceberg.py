"""Apache Iceberg tables in Spark plans: snapshot ids (``datasetVersion``), catalog symlinks and facet.

What openlineage-spark's ``IcebergHandler`` reports for a table of an Iceberg catalog
(``SparkCatalog``, or ``SparkSessionCatalog`` as ``spark_catalog``): the dataset named from the
table's location, a ``TABLE`` symlink and a ``catalog`` facet chosen by the catalog's settings
(the rules, per catalog type, are in :mod:`~lineage_operators.spark.tables.iceberg_catalogs`), ``storage``
``iceberg`` with the file format of ``format`` (``iceberg/parquet``), and the snapshot id as
``datasetVersion``: for a write the snapshot it produced, for a read the snapshot read (the time-travel
snapshot of ``VERSION AS OF``, else the table's current one). Row-level commands (MERGE, UPDATE, DELETE plan
as ``ReplaceData`` / ``WriteDelta``) write their ``originalTable`` with lifecycle ``OVERWRITE``. A write's
``outputStatistics`` are what its snapshot's summary says it added (records, bytes, data files): Iceberg's V2
writes report no Spark write metrics. CTAS/RTAS carry none themselves: Spark runs their write as a nested
``AppendData`` execution, which carries them.

Iceberg's classes are optional on the classpath: nothing here resolves one unless it is loadable,
and every JVM read is guarded (a failure loses the extra facts, never the dataset). Pure parsing is
separate from the JVM reading so it is table-tested without Spark.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, replace
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import CommitReport
from lineage_operators.spark.jvm.spark_classes import DSV2_REL, IDENTIFIER, LOGICAL, STRUCT, TABLE
from lineage_operators.spark.jvm.text import CTSEP, NONE, SEP, SEP2, split_records
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.session_facts import METASTORE_URIS_CONFS
from lineage_operators.spark.tables import iceberg_catalogs as catalogs
from lineage_operators.spark.tables import iceberg_reports as reports
from lineage_operators.spark.tables.iceberg_catalogs import IcebergCatalog

log = get_logger(__name__)

SPARK_TABLE = "org.apache.iceberg.spark.source.SparkTable"
ICEBERG_TABLE = "org.apache.iceberg.Table"
SNAPSHOT = "org.apache.iceberg.Snapshot"
ICEBERG_CATALOGS = ("org.apache.iceberg.spark.SparkCatalog", "org.apache.iceberg.spark.SparkSessionCatalog")
#: Row-level commands (MERGE INTO, UPDATE, DELETE rewriting files): the target is ``originalTable``.
ROW_LEVEL_WRITES = (f"{LOGICAL}.ReplaceData", f"{LOGICAL}.WriteDelta")
#: Table properties Iceberg's ``SparkTable`` reports.
_CURRENT_SNAPSHOT = "current-snapshot-id"
#: The snapshot summary's counts of what the snapshot's commit added (rows, bytes, files).
_ADDED = ("added-records", "added-files-size", "added-data-files")
Counts = tuple[int | None, int | None, int | None]

# --------------------------------------------------------------------------------------------
# pure parts
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableFacts:
    """What a loaded Iceberg table adds to a dataset."""

    location: str | None = None
    file_format: str | None = None
    schema_text: str | None = None
    version: str | None = None


def parse_snapshot(field: str | None) -> str | None:
    """``"<time-travel snapshot id>CTSEP<current snapshot id>"`` -> the snapshot read or written."""
    if not field:
        return None
    for part in field.split(CTSEP):
        if part and part != NONE and part.lstrip("-").isdigit():
            return part
    return None


def parse_added(text: str | None) -> Counts | None:
    """``"records,bytes,files"`` of a snapshot summary (:data:`_ADDED`) -> counts; None without any."""
    if not text or text == NONE:
        return None
    values = [int(v) if v.lstrip("-").isdigit() else None for v in text.split(",")] + [None] * 3
    counts: Counts = (values[0], values[1], values[2])
    return counts if any(v is not None for v in counts) else None


def current_snapshot(field: str | None) -> str | None:
    """The second part of :func:`snapshot_field`: the table's current snapshot, the one a write made
    (Iceberg for Spark 4.1 pins the snapshot the write's relation was loaded at as its time travel)."""
    parts = field.split(CTSEP) if field else []
    return parts[1] if len(parts) > 1 and parts[1].lstrip("-").isdigit() else None


def written_counts(field: str | None) -> Counts | None:
    """The third part of :func:`snapshot_field` (the current snapshot's added counts)."""
    parts = field.split(CTSEP) if field else []
    return parse_added(parts[2]) if len(parts) > 2 else None


def written_commit(field: str | None) -> CommitReport | None:
    """The commit report of the current snapshot (the second and fourth parts of :func:`snapshot_field`)."""
    parts = field.split(CTSEP) if field else []
    return reports.parse_commit(parts[1], parts[3]) if len(parts) > 3 else None


def snapshot_property(value: str | None) -> str | None:
    """``current-snapshot-id`` of ``SparkTable.properties()``: ``none`` for a table without data."""
    return value if value and value.lstrip("-").isdigit() else None


def file_format(fmt: str | None) -> str | None:
    """``iceberg/parquet`` -> ``parquet`` (the ``format`` property of an Iceberg table)."""
    return fmt.split("/")[-1].lower() or None if fmt else None


def parse_table_record(text: str | None) -> TableFacts | None:
    """The record of :func:`_table_fields` (location, provider, format, snapshot, schema) -> facts;
    None when the table is not an Iceberg table."""
    records = split_records(text)
    if not records:
        return None
    record = records[0] + [None] * 5
    location, provider, fmt, snapshot, schema = record[:5]
    if (provider or "").lower() != "iceberg":
        return None
    return TableFacts(
        location=location,
        file_format=file_format(fmt),
        schema_text=schema,
        version=snapshot_property(snapshot),
    )


# --------------------------------------------------------------------------------------------
# JVM reading
# --------------------------------------------------------------------------------------------


def snapshot_field(t: JvmTools) -> Any:
    """A field handle over a ``DataSourceV2Relation``: its Iceberg table's time-travel and current
    snapshot ids (:func:`parse_snapshot`), the current snapshot's added counts
    (:func:`written_counts`) and its commit report's values (:func:`written_commit`); :data:`NONE`
    when Iceberg is not on the classpath."""
    if not t.has_class(SPARK_TABLE):
        return t.constant(NONE)
    table = (DSV2_REL, "table")
    travel = t.chain(table, t.when(SPARK_TABLE, t.step(SPARK_TABLE, "snapshotId")))
    current = t.chain(
        table,
        t.when(
            SPARK_TABLE,
            t.chain((SPARK_TABLE, "table"), (ICEBERG_TABLE, "currentSnapshot"), (SNAPSHOT, "snapshotId")),
        ),
    )
    added = t.chain(table, t.when(SPARK_TABLE, _added_counts(t)))
    commit = t.chain(table, t.when(SPARK_TABLE, _commit_values(t)))
    return t.when(DSV2_REL, t.record([travel, current, added, commit], CTSEP))


def _added_counts(t: JvmTools) -> Any:
    """``SparkTable`` -> ``"records,bytes,files"`` its current snapshot's summary says were added."""
    snapshot = ((SPARK_TABLE, "table"), (ICEBERG_TABLE, "currentSnapshot"), (SNAPSHOT, "summary"))
    counts = [t.chain(*snapshot, ("java.util.Map", "get", ("java.lang.Object", key))) for key in _ADDED]
    return t.record(counts, ",")


def _commit_values(t: JvmTools) -> Any:
    """``SparkTable`` -> its current snapshot's sequence number, operation and summary values
    (:data:`.iceberg_reports.SUMMARY_KEYS`), :data:`SEP2`-joined (:func:`.iceberg_reports.parse_commit`)."""
    snapshot = ((SPARK_TABLE, "table"), (ICEBERG_TABLE, "currentSnapshot"))
    summary = (*snapshot, (SNAPSHOT, "summary"))
    values = [
        t.chain(*snapshot, (SNAPSHOT, "sequenceNumber")),
        t.chain(*snapshot, (SNAPSHOT, "operation")),
        *(t.chain(*summary, ("java.util.Map", "get", ("java.lang.Object", k))) for k in reports.SUMMARY_KEYS),
    ]
    return t.record(values, SEP2)


def _table_fields(t: JvmTools) -> Any:
    prop = ("java.util.Map", "get")
    props = [
        t.chain((TABLE, "properties"), (*prop, ("java.lang.Object", key)))
        for key in ("location", "provider", "format", _CURRENT_SNAPSHOT)
    ]
    return t.function(t.builder(t.record([*props, t.chain((TABLE, "schema"), (STRUCT, "json"))], SEP)))


_CONF: dict[tuple[Any, str], IcebergCatalog] = {}
_CONF_LOCK = threading.Lock()
#: Where openlineage-spark looks for the Glue catalog id (Spark setting, then Hadoop's; Glue jobs').
_GLUE_CATALOG_ID = "hive.metastore.glue.catalogid"
_GLUE_ACCOUNT = "spark.glue.accountId"


def _glue_arn(jss: Any) -> str | None:
    """``arn:aws:glue:<region>:<catalog id>`` from the environment and Spark's settings."""
    region = os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION")
    if not region:
        return None
    sc = jss.sparkContext()
    conf = sc.getConf()
    catalog_id = (
        conf.get(_GLUE_CATALOG_ID, None)
        or sc.hadoopConfiguration().get(_GLUE_CATALOG_ID)
        or conf.get(_GLUE_ACCOUNT, None)
    )
    return catalogs.glue_arn(region, str(catalog_id) if catalog_id else None)


def catalog_conf(jss: Any, catalog: str) -> IcebergCatalog:
    """The catalog's settings (only the keys naming needs), read once per session and catalog
    (Spark caches catalogs too)."""
    key = (getattr(jss, "_target_id", id(jss)), catalog)
    with _CONF_LOCK:
        found = _CONF.get(key)
    if found is None:
        conf = jss.sessionState().conf()
        prefix = f"spark.sql.catalog.{catalog}."
        values = {k: conf.getConfString(prefix + k, None) for k in catalogs.KEYS}
        settings = {k: str(v) for k, v in values.items() if v is not None}
        metastore = next((m for m in (conf.getConfString(k, None) for k in METASTORE_URIS_CONFS) if m), None)
        found = IcebergCatalog(catalog, settings, metastore)
        if catalogs.handler(found) == "glue":
            found = replace(found, glue_arn=_glue_arn(jss))
        with _CONF_LOCK:
            _CONF[key] = found
    return found


def catalog_extras(jss: Any, catalog: str, namespace: str | None, name: str) -> dict[str, Any]:
    """The ``symlink`` and ``catalog`` fields of a table of Iceberg catalog ``catalog``."""
    conf = catalog_conf(jss, catalog)
    return {"symlink": catalogs.symlink(conf, namespace, name), "catalog_facts": catalogs.catalog_facts(conf)}


def relation_extras(
    jss: Any, provider: str | None, snapshot: str | None, table: tuple[str | None, str | None, str | None]
) -> dict[str, Any]:
    """``version``, ``symlink`` and ``catalog_facts`` of a V2 relation read from a plan (empty
    unless Iceberg); a failure to read the catalog's settings loses the last two only."""
    if (provider or "").lower() != "iceberg":
        return {}
    found: dict[str, Any] = {"version": parse_snapshot(snapshot)}
    catalog, namespace, name = table
    if not catalog or not name:
        return found
    try:
        return {**found, **catalog_extras(jss, catalog, namespace, name)}
    except Exception as exc:
        log.debug("lineage capture: no catalog facts for Iceberg table %s: %s", name, describe(exc))
        return found


def load_table(
    jss: Any, t: JvmTools, catalog: str | None, namespace: str | None, name: str
) -> dict[str, Any] | None:
    """An Iceberg table of catalog ``catalog`` loaded now (after a CREATE/CTAS/RTAS committed), as
    ``RelationFacts`` fields; None when the catalog or the table is not Iceberg's, or on any error."""
    if not catalog or not t.has_class(SPARK_TABLE):
        return None
    try:
        plugin = jss.sessionState().catalogManager().catalog(catalog)
        if str(plugin.getClass().getName()) not in ICEBERG_CATALOGS:
            return None
        ns = t.array("java.lang.String", namespace.split(".") if namespace else [])
        ident = t.java_class(IDENTIFIER).of(ns, name)
        loaded = plugin.loadTable(ident)
        facts = parse_table_record(t.read(t.cached("iceberg.table", _table_fields).apply(loaded)))
        if facts is None:
            return None
        return {**vars(facts), "provider": "iceberg", **catalog_extras(jss, catalog, namespace, name)}
    except Exception as exc:
        log.debug("lineage capture: cannot load %s.%s as an Iceberg table: %s", catalog, name, describe(exc))
        return None


__all__ = [
    "ROW_LEVEL_WRITES",
    "TableFacts",
    "catalog_conf",
    "catalog_extras",
    "current_snapshot",
    "load_table",
    "parse_added",
    "parse_snapshot",
    "parse_table_record",
    "relation_extras",
    "snapshot_field",
    "written_commit",
    "written_counts",
]
