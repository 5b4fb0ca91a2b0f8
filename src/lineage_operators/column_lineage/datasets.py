"""Attaching ``columnLineage`` facets to a task's resolved outputs (called from Spark's resolve step).

Plain Python over the capture's execution facts: each write execution carries the plan engine's
lineage and its input relations with their leaf ``exprId``s; relations are named with the very
function that names the event's inputs, so every ``inputFields`` entry points at a dataset of the
event (an input, or an output of an earlier execution of the same task).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.column_lineage.mapping import DatasetColumnLineage, to_datasets
from lineage_operators.column_lineage.merge import merge_outputs
from lineage_operators.column_lineage.settings import ColumnLineageSettings
from lineage_operators.model import DatasetName, LineageDataset

log = get_logger(__name__)

NameRelation = Callable[[Any], Sequence[DatasetName]]


def _safe_names(name_relation: NameRelation, relation: Any) -> Sequence[DatasetName]:
    try:
        return name_relation(relation)
    except ValueError:
        return ()  # unnamable: it is not in the inputs list either


def lineage_by_output(
    executions: Iterable[Any], name_relation: NameRelation
) -> dict[DatasetName, DatasetColumnLineage]:
    """Output dataset -> its column lineage, merged over the executions that wrote it."""
    written: list[tuple[DatasetName, DatasetColumnLineage]] = []
    for execution in executions:
        plan = getattr(execution, "column_lineage", None)
        if plan is None or not execution.outputs:
            continue
        names_of: dict[int, list[DatasetName]] = {}
        for relation in execution.inputs:
            names = _safe_names(name_relation, relation)
            for expr_id in relation.expr_ids:
                known = names_of.setdefault(expr_id, [])
                known.extend(n for n in names if n not in known)
        lineage = to_datasets(plan, names_of)
        for relation in execution.outputs:
            for name in _safe_names(name_relation, relation):
                written.append((name, lineage))
    return merge_outputs(written)


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
        from lineage_operators.column_lineage.facet import column_lineage_facet

        merged = lineage_by_output(executions, name_relation)
        for dataset in outputs:
            lineage = merged.get(dataset.key)
            if lineage is None:
                continue
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
        from lineage_operators.spark._errors import describe

        log.warning("lineage capture: column lineage facets failed: %s", describe(exc))


__all__ = ["attach_column_lineage", "lineage_by_output"]
