"""Column lineage across the executions of one task.

Each execution's lineage names its own direct inputs, so a task that writes an intermediate
dataset and reads it back in a later execution gives the final output lineage pointing at the
intermediate, and the intermediate its own lineage (both are outputs of the task): a backend can
walk the chain, as with openlineage-spark's one event per execution. Two executions writing the
same output (appends, a CTAS and the insert it runs nested) have their lineage united per column.
"""

from __future__ import annotations

from collections.abc import Iterable

from lineage_operators.column_lineage.mapping import DatasetColumnLineage, add_dependencies
from lineage_operators.model import DatasetName


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


__all__ = ["merge_into", "merge_outputs"]
