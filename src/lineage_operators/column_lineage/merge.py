"""Column lineage across the executions of one task.

Each execution's lineage names its own direct inputs, so a task that writes an intermediate
dataset and reads it back in a later execution gives the final output lineage pointing at the
intermediate, and the intermediate its own lineage (both are outputs of the task): a backend can
walk the chain, as with openlineage-spark's one event per execution. Two executions writing the
same output (two appends) have their lineage united per column.

One exception: a V1 CTAS (``CREATE TABLE ... AS SELECT``, ``saveAsTable``) is two executions, the
command and the insert it runs nested over the very same query. openlineage-spark reports the
command last, from its analyzed query (the lineage the engine gives with ``optimized=False``): the
command's lineage replaces its nested insert's (:func:`without_nested_writes`), so the table ends
with what the jar's last event for it says.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lineage_operators.column_lineage.mapping import DatasetColumnLineage, add_dependencies
from lineage_operators.model import DatasetName


@dataclass(frozen=True)
class Write:
    """One execution's write of one output, as the merge needs it."""

    name: DatasetName
    lineage: DatasetColumnLineage
    #: ``exprId``s of the leaf columns its query reads: the same query, the same ids
    leaves: frozenset[int] = frozenset()
    #: the command's own view of a write it ran nested (``PlanColumnLineage.optimized`` False)
    supersedes_nested: bool = False


def without_nested_writes(writes: Sequence[Write]) -> list[Write]:
    """``writes`` without those a later command ran nested: the previous write of the same output,
    over the same leaf columns, followed by a write that ``supersedes_nested``."""
    dropped: set[int] = set()
    last: dict[DatasetName, int] = {}
    for index, write in enumerate(writes):
        previous = last.get(write.name)
        if (
            write.supersedes_nested
            and previous is not None
            and not writes[previous].supersedes_nested
            and writes[previous].leaves == write.leaves
        ):
            dropped.add(previous)
        last[write.name] = index
    return [write for index, write in enumerate(writes) if index not in dropped]


def merge_into(target: DatasetColumnLineage, other: DatasetColumnLineage) -> None:
    """Unite ``other`` into ``target``; columns keep their first-seen order."""
    for column in other.columns:
        if column not in target.columns:
            target.columns.append(column)
    for column, deps in other.fields.items():
        add_dependencies(target.fields.setdefault(column, {}), deps)
    add_dependencies(target.dataset, other.dataset)
    target.partial = target.partial or other.partial


def merge_outputs(
    written: Iterable[tuple[DatasetName, DatasetColumnLineage]],
) -> dict[DatasetName, DatasetColumnLineage]:
    """Per output dataset, the union of the lineage of every execution that wrote it (in order)."""
    merged: dict[DatasetName, DatasetColumnLineage] = {}
    for name, lineage in written:
        target = merged.get(name)
        if target is None:
            target = merged[name] = DatasetColumnLineage()
        merge_into(target, lineage)
    return merged


__all__ = ["Write", "merge_into", "merge_outputs", "without_nested_writes"]
