"""Column lineage of a DataFrame write over Spark Connect: the classic engine over the translated plan.

The written query's ``Relation`` is translated into analyzed-plan JSON
(:mod:`~lineage_operators.spark.connect.columns.plan_translate`) and
walked by the classic engine (:func:`lineage_operators.column_lineage.lineage_of_plan`), so the
facet has the same fields, types, subtypes, masking and dataset-wide dependencies as a classic
session's. The ids of each read leaf's columns are put on the input relations that read resolved
to (``RelationFacts.expr_ids``), exactly as the classic capture does for its plan's leaves; naming,
merging and the facet are then the classic ones. SQL text takes the same road
(:mod:`~lineage_operators.spark.connect.columns.sql_relation` parses it into a ``Relation``); its tables are
matched to what openlineage-sql parsed (:func:`rels_of_reads`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from lineage_operators._logging import get_logger, log_once
from lineage_operators.column_lineage import PlanColumnLineage, lineage_of_plan
from lineage_operators.spark.connect.columns.plan_exprs import Untranslatable
from lineage_operators.spark.connect.columns.plan_translate import LeafSchema, translate
from lineage_operators.spark.connect.plans import SourceRead, TableRead
from lineage_operators.spark.connect.sql import SqlTable
from lineage_operators.spark.facts import RelationFacts

log = get_logger(__name__)


def read_key(item: Any) -> Any:
    """The identity of a read leaf (a ``SourceRead``'s key, a ``TableRead``'s name)."""
    key = getattr(item, "key", None)
    return key if key is not None else ("table", getattr(item, "name", None))


def frame_column_lineage(  # noqa: PLR0917
    query: Any,
    leaf_schema: LeafSchema,
    views: Mapping[str, Any],
    inputs: Callable[[Any], Sequence[RelationFacts]],
    output_names: Sequence[str] | None,
    ids: Iterator[int],
    describe: bool = False,
    translator: Callable[..., Any] = translate,
    optimized: bool = True,
) -> PlanColumnLineage | None:
    """The lineage of the written ``query``, or None (logged once per reason) when not translatable.

    ``inputs``: a read leaf (``SourceRead`` / ``TableRead``) -> the input relations it resolved to;
    ``output_names``: the written columns (the server's schema of the write), positional;
    ``describe``: descriptions wanted (the translated plan carries expression texts);
    ``translator``: ``query`` -> its Translation (a MERGE's: :mod:`.sql_merge`);
    ``optimized``: False where the server runs a V1 CTAS: no filter of Spark's optimizer in the
    translation, none emulated by the engine (``lineage_of_plan``).
    """
    try:
        translation = translator(query, leaf_schema, views, ids, describe, optimized=optimized)
    except Untranslatable as exc:
        log_once(
            log,
            f"connect-columns:{str(exc)[:40]}",
            logging.INFO,
            "lineage capture: no column lineage for a DataFrame write over Spark Connect: %s",
            str(exc)[:200],
        )
        return None
    if output_names is not None and len(output_names) != len(translation.output):
        log_once(
            log,
            "connect-columns:width",
            logging.INFO,
            "lineage capture: no column lineage for a DataFrame write over Spark Connect: "
            "its translated plan has %d columns, the server's %d",
            len(translation.output),
            len(output_names),
        )
        return None
    lineage = lineage_of_plan(translation.plan, output_names, optimized)
    for item, idents in translation.leaves:
        for rel in inputs(item):
            rel.expr_ids = (*rel.expr_ids, *idents)
    return lineage


def rels_of_reads(
    by_read: dict[Any, list[RelationFacts]],
    sources: dict[SqlTable, list[RelationFacts]],
    inputs: Sequence[RelationFacts] = (),
) -> Any:
    """A translated plan's read leaf -> the input relations it resolved to: a DataFrame read by
    its key, a table or path named in SQL text by matching what openlineage-sql parsed, a table a
    persistent view reads by matching the catalog tables among ``inputs`` (the execution's)."""

    def rels_of(item: Any) -> Sequence[RelationFacts]:
        found = by_read.get(read_key(item))
        if found:
            return found
        for table, rels in sources.items():
            if isinstance(item, SourceRead) and table.path and item.paths == (table.path,):
                return rels
            if isinstance(item, TableRead) and not table.path and _same_table(item.name, table):
                return rels
        if not isinstance(item, TableRead):
            return []
        return [
            rel
            for rel in inputs
            if rel.table is not None
            and _same_table(item.name, SqlTable(rel.table.table, rel.table.database, rel.table.catalog))
        ]

    return rels_of


def _same_table(name: str, table: SqlTable) -> bool:
    """Does ``db.t`` (as a SELECT names it) name ``table`` (as openlineage-sql parsed it)?"""
    parts = [p.strip("`").lower() for p in name.split(".")]
    known = [p.strip("`").lower() for p in (table.catalog, table.database, table.name) if p]
    return len(parts) <= len(known) and known[-len(parts) :] == parts


__all__ = ["frame_column_lineage", "read_key", "rels_of_reads"]
