"""Delta Lake tables: the table a Delta read or write touches, its version, and nothing of its log.

What Delta changes for plan reading (Delta 3.3, 4.0 and 4.1 on Spark 3.5, 4.0 and 4.1, read with the
real jars):

* a read is a ``LogicalRelation`` over a ``HadoopFsRelation`` subclass whose file index is a
  ``TahoeLogFileIndex``: the dataset is the table's root (its only root path) and the version is the
  snapshot the query was analyzed against (:func:`read_version_field`), as ``datasetVersion``;
* Delta reads its own transaction log with Spark (``_delta_log/*.json``, checkpoints: the
  executions computing a snapshot's state): those reads are Delta's bookkeeping, not the task's
  inputs (:func:`lineage_operators.spark.passes.drop_log_reads`, a pass over both captures' facts);
* a write lands in Delta's ``DeltaTableV2`` (catalog tables), ``WriteIntoDelta`` through
  ``SaveIntoDataSourceCommand`` (paths), or Delta's own ``MergeIntoCommand``, ``UpdateCommand`` and
  ``DeleteCommand`` (:data:`ROW_LEVEL_COMMANDS`, whose ``target`` is the table rewritten);
* the session catalog keeps no schema for a Delta table (the log does): a written table's schema and
  version are read from its ``DeltaLog`` after the command (:func:`complete_written`).

Without Delta on the classpath nothing here costs a JVM call: the field handles are constants and
:func:`complete_written` only acts on outputs whose provider is ``delta``.
"""

from __future__ import annotations

import json
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import DELTA_PROVIDER as PROVIDER
from lineage_operators.spark.facts import RelationFacts, TableRef
from lineage_operators.spark.jvm.spark_classes import DSV2_REL, HADOOP_PATH, HFR, LR, RESOLVED_TABLE
from lineage_operators.spark.jvm.text import NONE
from lineage_operators.spark.tables.delta_metrics import commit_info, commit_statistics

log = get_logger(__name__)

_DELTA = "org.apache.spark.sql.delta"
TAHOE_LOG_INDEX = f"{_DELTA}.files.TahoeLogFileIndex"
#: what ``TahoeLogFileIndex.snapshotAtAnalysis`` is (a shallow descriptor of the snapshot)
SNAPSHOT_DESCRIPTOR = f"{_DELTA}.SnapshotDescriptor"
DELTA_TABLE_V2 = f"{_DELTA}.catalog.DeltaTableV2"
DELTA_LOG = f"{_DELTA}.DeltaLog"
#: a Change Data Feed read (``readChangeFeed``): a ``BaseRelation`` over the table's changes
CDF_RELATION = f"{_DELTA}.commands.cdc.CDCReader$DeltaCDFRelation"
#: what ``DeltaCDFRelation.snapshotWithSchemaMode`` is: Delta 4.1 moved it out of ``CDCReader``
_SNAPSHOT_MODES = (
    f"{_DELTA}.commands.cdc.SnapshotWithSchemaMode",
    f"{_DELTA}.commands.cdc.CDCReader$SnapshotWithSchemaMode",
)
_SNAPSHOT = f"{_DELTA}.Snapshot"
#: Delta's row-level commands: each rewrites the files of its ``target`` table.
ROW_LEVEL_COMMANDS = (
    f"{_DELTA}.commands.MergeIntoCommand",
    f"{_DELTA}.commands.UpdateCommand",
    f"{_DELTA}.commands.DeleteCommand",
)
#: Delta's table maintenance commands: the table they rewrite (OPTIMIZE: no lifecycle, its rows stay
#: the same; RESTORE: OVERWRITE, its rows become an older version's). ``VACUUM`` (the ``DeltaTable``
#: API runs it without a plan, SQL as ``VacuumTableCommand``) only deletes unreferenced files: not a write.
MAINTENANCE_COMMANDS = {
    f"{_DELTA}.commands.OptimizeTableCommand": None,
    f"{_DELTA}.commands.RestoreTableCommand": "OVERWRITE",
}


def read_version_field(t: Any) -> Any:
    """A leaf-record field handle: the version of the Delta snapshot a ``LogicalRelation`` reads,
    ``TahoeLogFileIndex.snapshotAtAnalysis`` (the snapshot the query was analyzed against, not the
    newest one, which a self-insert has already moved on; no log listing on the reader thread);
    :data:`NONE` for other leaves or without Delta."""
    if not t.has_class(TAHOE_LOG_INDEX):
        return t.constant(NONE)
    version = t.chain((TAHOE_LOG_INDEX, "snapshotAtAnalysis"), (SNAPSHOT_DESCRIPTOR, "version"))
    index = t.chain((HFR, "location"), t.when(TAHOE_LOG_INDEX, version))
    change_feed = t.constant(NONE)
    if t.has_class(CDF_RELATION):  # a Change Data Feed read: the version it starts from
        try:
            change_feed = t.when(CDF_RELATION, t.opt(t.step(CDF_RELATION, "startingVersion")))
        except Exception as exc:  # a Delta build without the field: the leaf is read without it
            log.debug("lineage capture: no Change Data Feed version: %s", describe(exc))
    return t.when(LR, t.chain((LR, "relation"), t.when(HFR, index, change_feed)))


def cdf_location_field(t: Any, otherwise: Any) -> Any:
    """Over a ``LogicalRelation``'s relation: a Change Data Feed read's table root (its snapshot's
    ``DeltaLog.dataPath``), else ``otherwise``."""
    modes = [name for name in _SNAPSHOT_MODES if t.has_class(name)]
    if not t.has_class(CDF_RELATION) or not modes:
        return otherwise
    try:
        path = t.chain(
            (CDF_RELATION, "snapshotWithSchemaMode"),
            (modes[0], "snapshot"),
            (_SNAPSHOT, "deltaLog"),
            (DELTA_LOG, "dataPath"),
            ("java.lang.Object", "toString"),
        )
        return t.when(CDF_RELATION, path, otherwise)
    except Exception as exc:  # a Delta build whose classes differ: every other leaf is read as before
        log.debug("lineage capture: no Change Data Feed location: %s", describe(exc))
        return otherwise


def change_feed_read(location: str | None, schema: str | None) -> list[Any]:
    """The table a Change Data Feed read reads (its version: :func:`with_read_version`)."""
    if not location or location == NONE:
        return []
    return [RelationFacts(location=location, schema_text=schema, provider=PROVIDER)]


def v2_location_field(t: Any, otherwise: Any) -> Any:
    """Over a v2 ``Table``: a ``DeltaTableV2``'s root path (Delta puts no ``location`` among its
    properties), else ``otherwise``."""
    if not t.has_class(DELTA_TABLE_V2):
        return otherwise
    path = t.chain((DELTA_TABLE_V2, "path"), ("java.lang.Object", "toString"))
    return t.when(DELTA_TABLE_V2, path, otherwise)


def with_read_version(facts: list[Any], version: str | None) -> list[Any]:
    """The facts of a leaf that read a Delta snapshot: provider ``delta``, its version."""
    if version is None or version == NONE:
        return facts
    for rel in facts:
        rel.provider = rel.provider or PROVIDER
        rel.version = version
    return facts


def complete_written(
    t: Any, jss: Any, outputs: list[Any], counted: set[tuple[str, int]] | None = None
) -> list[Any]:
    """Delta outputs with the version the write made, what that commit added as statistics and, when
    the catalog had none, the table's schema: all read from the table's ``DeltaLog`` once the command
    ran (the snapshot Delta holds and its last commit's first line: a few py4j calls and one small
    file read per Delta output, never a Spark job; none for other outputs). ``counted``: the
    ``(location, version)`` commits whose statistics this capture already gave (a CTAS also runs as a
    nested execution: its commit is counted once)."""
    for rel in outputs:
        if rel.provider != PROVIDER or not rel.location or rel.lifecycle == "DROP":
            continue
        try:
            delta_log = t.java_class(DELTA_LOG).forTable(jss, rel.location)
            snapshot = delta_log.unsafeVolatileSnapshot()
            version, schema = int(snapshot.version()), str(snapshot.schema().json())
        except Exception as exc:
            log.debug("lineage capture: no Delta state for %s: %s", rel.location, describe(exc))
            continue
        if version >= 0:  # -1: no table there (yet)
            rel.version = str(version)
            if _empty_schema(rel.schema_text):
                rel.schema_text = schema
            key = (rel.location, version)
            if counted is None or key not in counted:
                stats = commit_statistics(commit_info(_commit_head(t, delta_log, version)))
                if stats is not None:
                    rel.rows, rel.size, rel.files = stats
                    if counted is not None:
                        counted.add(key)
    return outputs


def _commit_head(t: Any, delta_log: Any, version: int) -> str | None:
    """The first line of the commit file of ``version`` (its ``commitInfo``), read through the
    table's own log store (any file system Delta reads); None when it cannot be read."""
    try:
        path = t.java_class(HADOOP_PATH)(delta_log.logPath(), f"{version:020d}.json")
        lines = delta_log.store().read(path, delta_log.newDeltaHadoopConf())
        return None if lines.isEmpty() else str(lines.head())
    except Exception as exc:
        log.debug("lineage capture: no Delta commit info for version %d: %s", version, describe(exc))
        return None


def maintained_table(command: Any, cls: str) -> list[Any]:
    """The table an ``OPTIMIZE`` / ``RESTORE`` (the analyzed command object) rewrites, as an output
    (its version, statistics and schema come from :func:`complete_written`); [] when it cannot be
    found. A few py4j calls on the command object, no Spark job."""
    try:
        node = command.sourceTable() if cls.endswith("RestoreTableCommand") else command.child()
        name = str(node.getClass().getName())
        if name in (RESOLVED_TABLE, DSV2_REL):
            node, name = node.table(), str(node.table().getClass().getName())
        if not name.startswith(DELTA_TABLE_V2):
            return []
        location = str(node.path().toString())
        catalog_table = node.catalogTable()
        table = None
        if catalog_table.isDefined():
            identifier = catalog_table.get().identifier()
            database = identifier.database()
            table = TableRef(str(database.get()) if database.isDefined() else None, str(identifier.table()))
    except Exception as exc:
        log.debug("lineage capture: no Delta table for %s: %s", cls.rsplit(".", 1)[-1], describe(exc))
        return []
    return [
        RelationFacts(location=location, table=table, provider=PROVIDER, lifecycle=MAINTENANCE_COMMANDS[cls])
    ]


def _empty_schema(schema_text: str | None) -> bool:
    if not schema_text:
        return True
    try:
        return not json.loads(schema_text).get("fields")
    except ValueError:
        return False


__all__ = [
    "CDF_RELATION",
    "DELTA_TABLE_V2",
    "MAINTENANCE_COMMANDS",
    "PROVIDER",
    "ROW_LEVEL_COMMANDS",
    "cdf_location_field",
    "change_feed_read",
    "complete_written",
    "maintained_table",
    "read_version_field",
    "v2_location_field",
    "with_read_version",
]
