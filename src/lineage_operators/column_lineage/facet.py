"""The ``columnLineage`` dataset facet, built with openlineage-python's own classes.

As openlineage-spark emits it: every transformation carries a ``description`` ("" unless
descriptions are on: the engine then fills it, see :mod:`.descriptions`) and an explicit
``masking`` flag; input
fields are sorted, and fields follow the output's column order. Dependency mode
:data:`~lineage_operators.column_lineage.settings.DATASET` puts dataset-wide dependencies in the
facet's ``dataset`` list; :data:`~lineage_operators.column_lineage.settings.FIELDS` copies them
into every field instead (merged with the field's own entry for the same input column) and
leaves ``dataset`` out.

Imports openlineage-python at module level: import only from run-time code paths.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openlineage.client.facet_v2 import column_lineage_dataset as cl

from lineage_operators.column_lineage.lineage import Transformation
from lineage_operators.column_lineage.mapping import DatasetColumnLineage, Dependencies, add_dependencies
from lineage_operators.column_lineage.settings import FIELDS


def _transformation(t: Transformation) -> cl.Transformation:
    return cl.Transformation(
        type=t.type, subtype=t.subtype or None, description=t.description, masking=t.masking
    )


def _input_fields(deps: Mapping[Any, frozenset[Transformation]]) -> list[cl.InputField]:
    return [
        cl.InputField(
            namespace=column.namespace,
            name=column.name,
            field=column.field,
            transformations=[_transformation(t) for t in sorted(deps[column])],
        )
        for column in sorted(deps)
    ]


def column_lineage_facet(
    lineage: DatasetColumnLineage, dataset_dependencies: str
) -> cl.ColumnLineageDatasetFacet | None:
    """The facet, or None when no output column depends on any input dataset."""
    in_fields = dataset_dependencies == FIELDS
    fields: dict[str, cl.Fields] = {}
    for column in [*lineage.columns, *(c for c in lineage.fields if c not in lineage.columns)]:
        deps: Dependencies = dict(lineage.fields.get(column, {}))
        if in_fields:
            add_dependencies(deps, lineage.dataset)
        if deps:
            fields[column] = cl.Fields(inputFields=_input_fields(deps))
    if not fields and not lineage.dataset:
        return None
    return cl.ColumnLineageDatasetFacet(
        fields=fields, dataset=None if in_fields else _input_fields(lineage.dataset)
    )


__all__ = ["column_lineage_facet"]
