"""Attaching ``columnLineage`` facets to a task's resolved outputs (called from Spark's resolve step).

Plain Python over the capture's execution facts: each write execution carries the plan engine's
lineage and its input relations with their leaf ``exprId``s; relations are named with the very
function that names the event's inputs, so every ``inputFields`` entry points at a dataset of the
event (an input, or an output of an earlier execution of the same task).

One relation has no name of its own: Spark's row-level operation table (``RowLevelOperationTable``,
through which UPDATE, DELETE and MERGE on a V2 table such as Iceberg read the rows they rewrite)
has the target's catalog identity but no location. Its columns are the target's own columns, as
openlineage-spark names them (it names the relation by its catalog and identifier): such a read of
the table the same execution writes takes the written table's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.column_lineage.facet import column_lineage_facet
from lineage_operators.column_lineage.mapping import DatasetColumnLineage, to_datasets
from lineage_operators.column_lineage.merge import Write, merge_outputs, without_nested_writes
from lineage_operators.column_lineage.settings import ColumnLineageSettings
from lineage_operators.model import DatasetName, LineageDataset

log = get_logger(__name__)

NameRelation = Callable[[Any], Sequence[DatasetName]]

#: Metadata columns a row-level rewrite (UPDATE, DELETE, MERGE on Iceberg) writes along with the
#: table's rows: file and position of a rewritten row, its partition, the delta operation. They are
#: not columns of the table; openlineage-spark's facet has only the output schema's fields.
ROW_LEVEL_METADATA = frozenset(
    {"_file", "_pos", "_spec_id", "_partition", "_deleted", "_row_id", "__row_id", "__row_operation"}
)


def _schema_names(dataset: LineageDataset) -> set[str]:
    schema = dataset.facets.get("schema")
    return {f.name for f in getattr(schema, "fields", None) or ()}


def without_metadata_columns(lineage: DatasetColumnLineage, schema: set[str]) -> DatasetColumnLineage:
    """``lineage`` without the row-level metadata columns that are not in the output's schema."""
    dropped = {c for c in (*lineage.columns, *lineage.fields) if c in ROW_LEVEL_METADATA and c not in schema}
    if not dropped:
        return lineage
    return replace(
        lineage,
        fields={c: deps for c, deps in lineage.fields.items() if c not in dropped},
        columns=[c for c in lineage.columns if c not in dropped],
    )


def _safe_names(name_relation: NameRelation, relation: Any) -> Sequence[DatasetName]:
    try:
        return name_relation(relation)
    except ValueError:
        return ()  # unnamable: it is not in the inputs list either


def _table_of(relation: Any) -> Any:
    return getattr(relation, "table", None)


def _written_tables(outputs: Iterable[Any], name_relation: NameRelation) -> dict[Any, Sequence[DatasetName]]:
    """Catalog table -> its dataset names, for the tables an execution writes."""
    found: dict[Any, Sequence[DatasetName]] = {}
    for relation in outputs:
        table = _table_of(relation)
        if table is not None and table not in found:
            names = _safe_names(name_relation, relation)
            if names:
                found[table] = names
    return found


def lineage_by_output(
    executions: Iterable[Any], name_relation: NameRelation
) -> dict[DatasetName, DatasetColumnLineage]:
    """Output dataset -> its column lineage, merged over the executions that wrote it (merge.py)."""
    written: list[Write] = []
    for execution in executions:
        plan = getattr(execution, "column_lineage", None)
        if plan is None or not execution.outputs:
            continue
        names_of: dict[int, list[DatasetName]] = {}
        written_tables = _written_tables(execution.outputs, name_relation)
        for relation in execution.inputs:
            names = _safe_names(name_relation, relation) or written_tables.get(_table_of(relation), ())
            for expr_id in relation.expr_ids:
                known = names_of.setdefault(expr_id, [])
                known.extend(n for n in names if n not in known)
        lineage = to_datasets(plan, names_of)
        leaves = frozenset(names_of)
        supersedes = not getattr(plan, "optimized", True)
        for relation in execution.outputs:
            for name in _safe_names(name_relation, relation):
                written.append(Write(name, lineage, leaves, supersedes))
    return merge_outputs((write.name, write.lineage) for write in without_nested_writes(written))


def attach_column_lineage(
    outputs: Sequence[LineageDataset],
    executions: Iterable[Any],
    name_relation: NameRelation,
    settings: ColumnLineageSettings | None = None,
) -> None:
    """Set ``facets["columnLineage"]`` on the outputs that have column lineage. Never raises."""
    settings = settings or ColumnLineageSettings()
    if not settings.enabled or not outputs:
        return
    try:
        merged = lineage_by_output(executions, name_relation)
        for dataset in outputs:
            lineage = merged.get(dataset.key)
            if lineage is None:
                continue
            lineage = without_metadata_columns(lineage, _schema_names(dataset))
            if len(lineage.columns) > settings.max_columns:
                log.info(
                    "lineage capture: %s has %d columns, more than column_lineage_max_columns=%d: "
                    "no columnLineage facet",
                    dataset.uri,
                    len(lineage.columns),
                    settings.max_columns,
                )
                continue
            facet = column_lineage_facet(lineage, settings.dataset_dependencies)
            if facet is not None:
                dataset.facets["columnLineage"] = facet
    except Exception as exc:
        log.warning("lineage capture: column lineage facets failed: %s", describe(exc))


__all__ = ["ROW_LEVEL_METADATA", "attach_column_lineage", "lineage_by_output", "without_metadata_columns"]
