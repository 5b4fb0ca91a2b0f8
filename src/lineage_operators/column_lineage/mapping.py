"""From a plan's source columns (leaf ``exprId``s) to the task's datasets.

Pure: the Spark capture gives, per execution, which dataset names each leaf attribute belongs to
(``exprId`` -> names, named exactly as the event's inputs list), and the plan engine's lineage is
rewritten over them. A leaf that is not a dataset (``LocalRelation``, ``Range``, a DataFrame built
from Python rows) has no names and its columns are dropped: they came from nowhere a backend
could draw. One leaf may stand for several datasets (a file relation over several directories):
each gets the column.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lineage_operators.column_lineage.lineage import PlanColumnLineage, SourceColumn, Transformation
from lineage_operators.model import DatasetName


@dataclass(frozen=True, order=True)
class InputColumn:
    """A column of a named dataset: what a ``columnLineage`` ``InputField`` points at."""

    namespace: str
    name: str
    field: str


Dependencies = dict[InputColumn, frozenset[Transformation]]


@dataclass
class DatasetColumnLineage:
    """Column lineage of one output dataset, over named input datasets.

    ``columns`` keeps the output's column order (the plan's output order), ``fields`` only the
    columns with at least one dependency. ``partial``: some plan node was not understood.
    """

    fields: dict[str, Dependencies] = field(default_factory=dict)
    dataset: Dependencies = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)
    partial: bool = False


def add_dependencies(target: Dependencies, more: Mapping[InputColumn, Iterable[Transformation]]) -> None:
    """Union ``more`` into ``target``: one entry per input column, all its distinct transformations."""
    for column, transformations in more.items():
        known = target.get(column)
        target[column] = frozenset(transformations) if known is None else known | frozenset(transformations)


def _named(
    deps: Mapping[SourceColumn, frozenset[Transformation]], names_of: Mapping[int, Sequence[DatasetName]]
) -> Dependencies:
    result: Dependencies = {}
    for source, transformations in deps.items():
        for name in names_of.get(source.expr_id, ()):
            add_dependencies(result, {InputColumn(name.namespace, name.name, source.name): transformations})
    return result


def to_datasets(
    plan: PlanColumnLineage, names_of: Mapping[int, Sequence[DatasetName]]
) -> DatasetColumnLineage:
    """``plan``'s lineage with each source column replaced by the dataset columns it stands for."""
    lineage = DatasetColumnLineage(
        columns=list(plan.fields), dataset=_named(plan.dataset, names_of), partial=bool(plan.unknown_nodes)
    )
    for column, deps in plan.fields.items():
        named = _named(deps, names_of)
        if named:
            lineage.fields[column] = named
    return lineage


__all__ = ["DatasetColumnLineage", "Dependencies", "InputColumn", "add_dependencies", "to_datasets"]
