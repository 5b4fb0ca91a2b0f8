"""Input statistics that describe the dataset read, as openlineage-spark reports them.

``inputStatistics`` is what a dataset *is* when the task read it, not the sum of the scans that
read it (a 5-row file scanned three times is still 5 rows, 1 file). openlineage-spark's
``LogicalRelationDatasetBuilder`` reports, per relation: for files (``HadoopFsRelation``) the
relation's ``sizeInBytes`` and the number of its ``inputFiles``; for a catalog table its
``CatalogStatistics`` (size, and the row count when the table was analyzed), else the relation's
size when Spark knows it. These are facts of the analyzed plan (the file index is already listed),
so one JVM-side ``map`` over the plan's leaves reads them all: no file-system call, one round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.jvm.spark_classes import (
    CATALOG_TABLE,
    FILE_INDEX,
    HFR,
    HIVE_REL,
    LR,
    TABLE_ID,
    TREE_NODE,
)
from lineage_operators.spark.jvm.text import NONE, RSEP, split_records
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.tables import delta

log = get_logger(__name__)

_BASE_REL = "org.apache.spark.sql.sources.BaseRelation"
_CATALOG_STATS = "org.apache.spark.sql.catalyst.catalog.CatalogStatistics"
_LONG_MAX = 2**63 - 1


def _file_index_figures(t: JvmTools) -> tuple[Any, Any]:
    """(size, file count) of a ``HadoopFsRelation``, from its file index; none for Delta's
    (``TahoeLogFileIndex``), whose files and size are its snapshot's state: reading them can start a
    Spark job (openlineage-spark's issue 4976: on the listener thread, events dropped under load)."""
    size = t.step(FILE_INDEX, "sizeInBytes")
    count = t.chain(
        (FILE_INDEX, "inputFiles"), t.static("java.lang.reflect.Array", "getLength", ["java.lang.Object"])
    )
    if t.has_class(delta.TAHOE_LOG_INDEX):
        size = t.when(delta.TAHOE_LOG_INDEX, t.constant(NONE), size)
        count = t.when(delta.TAHOE_LOG_INDEX, t.constant(NONE), count)
    location = (HFR, "location")
    return t.chain(location, size), t.chain(location, count)


def build_stats_fn(t: JvmTools) -> Any:
    """Leaf -> relation identity, db, table, relation size, input file count, catalog size, rows."""
    relation = (LR, "relation")
    identity = t.static("java.lang.System", "identityHashCode", ["java.lang.Object"])
    files_size, file_count = _file_index_figures(t)
    table = t.when(
        LR,
        t.chain((LR, "catalogTable"), ("scala.Option", "get")),
        t.when(HIVE_REL, t.step(HIVE_REL, "tableMeta")),
    )
    stats = t.chain(table, (CATALOG_TABLE, "stats"), ("scala.Option", "get"))
    fields = [
        t.when(LR, t.chain(relation, identity)),
        t.opt(t.chain(table, (CATALOG_TABLE, "identifier"), (TABLE_ID, "database"))),
        t.chain(table, (CATALOG_TABLE, "identifier"), (TABLE_ID, "table")),
        t.when(LR, t.chain(relation, t.when(HFR, files_size, t.step(_BASE_REL, "sizeInBytes")))),
        t.when(LR, t.chain(relation, t.when(HFR, file_count))),
        t.chain(stats, (_CATALOG_STATS, "sizeInBytes")),
        t.opt(t.chain(stats, (_CATALOG_STATS, "rowCount"))),
    ]
    return t.function(t.record(fields))


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None


def relation_stats_text(t: JvmTools, leaves: Any) -> str | None:
    """The distinct statistics records of the plan ``leaves`` (one call; None when unreadable)."""
    try:
        stats_of = t.cached("statistics.relation", build_stats_fn)
        return t.read(t.joined(t.coll.map(leaves, stats_of).distinct(), RSEP))
    except Exception as exc:
        log.debug("lineage capture: no relation statistics: %s", describe(exc))
        return None


def apply_relation_stats(text: str | None, inputs: Sequence[Any]) -> None:
    """Set rows/size/files of ``inputs`` (RelationFacts) from the statistics records of
    :func:`build_stats_fn`: a relation is matched by the identity of its JVM object, a table by its
    identifier."""
    for record in split_records(text):
        if len(record) < 7:
            continue
        relation_id, database, table = record[0], record[1], record[2]
        target = next((r for r in inputs if relation_id and r.relation_id == relation_id), None)
        if target is None and table:
            target = next(
                (
                    r
                    for r in inputs
                    if r.table is not None and (r.table.database, r.table.table) == (database, table)
                ),
                None,
            )
        if target is None:
            continue
        relation_size, files, catalog_size, rows = (_int(v) for v in record[3:7])
        size = catalog_size if catalog_size is not None else relation_size
        target.size = size if size is not None and size < _LONG_MAX else None
        target.files = files
        target.rows = rows


_DWC_EXEC = "org.apache.spark.sql.execution.command.DataWritingCommandExec"
_AQE_EXEC = "org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec"
_STAGE_EXEC = "org.apache.spark.sql.execution.adaptive.QueryStageExec"
#: AQE plans nest (a write's query stages hold their own plans): levels opened at most (here and,
#: given at configure time, in ``ExecutionReader.java``).
MAX_WRAPPERS = 6


def build_find_fn(t: JvmTools) -> Any:
    """Physical plan -> Option of its first node that is the write or a wrapper to open."""
    yes, no = t.constant(True), t.constant(False)
    wanted = t.function(t.when(_DWC_EXEC, yes, t.when(_AQE_EXEC, yes, t.when(_STAGE_EXEC, yes, no))))
    return t.function(t.step(TREE_NODE, "find", ("scala.Function1", wanted)))


def build_open_fn(t: JvmTools) -> Any:
    """Node found -> "w" + the write's metrics map text, or the plan inside an AQE plan/stage."""
    metrics = t.text(t.chain((_DWC_EXEC, "metrics"), ("java.lang.Object", "toString")))
    return t.function(
        t.when(
            _AQE_EXEC,
            t.step(_AQE_EXEC, "executedPlan"),
            t.when(_STAGE_EXEC, t.step(_STAGE_EXEC, "plan"), t.when(_DWC_EXEC, metrics)),
        )
    )


def write_metrics_text(t: JvmTools, executed_plan: Any) -> str | None:
    """The metrics map text of the ``DataWritingCommandExec`` of an executed plan, wherever it sits.

    With adaptive execution the write is not the root: it sits in the final plan of an
    ``AdaptiveSparkPlanExec``, inside a result query stage. A few py4j calls per wrapper opened.
    """
    find, open_node = (
        t.cached("statistics.find_write", build_find_fn),
        t.cached("statistics.open", build_open_fn),
    )
    node = executed_plan
    for _ in range(MAX_WRAPPERS):
        found = find.apply(node)
        if found.isEmpty():
            return None
        opened = open_node.apply(found.get())
        if isinstance(opened, str):
            return None if opened == NONE else opened
        node = opened
    return None


__all__ = [
    "MAX_WRAPPERS",
    "apply_relation_stats",
    "build_find_fn",
    "build_open_fn",
    "build_stats_fn",
    "relation_stats_text",
    "write_metrics_text",
]
