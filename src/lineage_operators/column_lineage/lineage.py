"""The contract types of column lineage: a plan's lineage, its source columns, transformations.

Their own module so that the engine and the dataset layer import them without importing the
package face (which lazily imports the engine): no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DIRECT = "DIRECT"
INDIRECT = "INDIRECT"


@dataclass(frozen=True, order=True)
class SourceColumn:
    """A column of a leaf relation of the plan (LogicalRelation, HiveTableRelation, DSv2...)."""

    expr_id: int
    name: str


@dataclass(frozen=True, order=True)
class Transformation:
    """An OpenLineage transformation: ``type`` DIRECT/INDIRECT, ``subtype`` as openlineage-spark.

    ``description``: the expression's text when descriptions are on (see :mod:`.descriptions`),
    else "". Two entries differing only by it are two transformations (two filters on a column).
    """

    type: str
    subtype: str
    masking: bool = False
    description: str = ""


@dataclass
class PlanColumnLineage:
    fields: dict[str, dict[SourceColumn, frozenset[Transformation]]] = field(default_factory=dict)
    dataset: dict[SourceColumn, frozenset[Transformation]] = field(default_factory=dict)
    unknown_nodes: tuple[str, ...] = ()
    #: False: read from the analyzed plan as it is (``lineage_of_plan(..., optimized=False)``): a
    #: V1 CTAS command's own view, which supersedes the nested write it runs (merge.py).
    optimized: bool = True


__all__ = ["DIRECT", "INDIRECT", "PlanColumnLineage", "SourceColumn", "Transformation"]
