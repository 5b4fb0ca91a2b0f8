"""Column-level lineage: which input columns each output column comes from, and how.

Pure Python over plain data, no Spark: the Spark capture hands over the analyzed plan of a write
(Spark's own ``TreeNode.toJSON()``), and this package walks it. Split in two layers:

* the plan engine (:func:`lineage_of_plan`): one plan -> output column -> source columns of the
  plan's leaves (identified by attribute ``exprId``) with OpenLineage transformation types;
* the dataset layer (naming the sources, merging executions, building the ``columnLineage``
  facet): maps source ``exprId``s to the task's datasets.

CONTRACT between the two layers (keep it stable; both sides are table-tested):

    lineage = lineage_of_plan(plan_json, output_names=None, optimized=True)
    lineage.fields   # {output column name: {SourceColumn: frozenset[Transformation]}}
    lineage.dataset  # {SourceColumn: frozenset[Transformation]}: indirect deps affecting every row
    lineage.unknown_nodes  # plan node classes that were not understood (lineage partial through them)

``plan_json`` is the text (or the already-parsed list) of ``LogicalPlan.toJSON()`` of the *query*
whose rows are written (for a write command, its query child / inner query; a whole write command
is unwrapped too), and ``output_names`` the written column names, positional over the query's
output (None: the query's own output names). ``optimized``: emulate what Spark's optimizer changes,
as openlineage-spark sees most writes (False: the analyzed plan as it is, its view of a V1 CTAS;
the result says which, ``lineage.optimized``).

* ``fields`` has one entry per output column, in output order; a column computed from no source
  (a literal, ``count(*)``) maps to ``{}``. A name given twice gets the union of both columns.
* ``SourceColumn`` is an output attribute of a leaf (LogicalRelation, HiveTableRelation,
  DataSourceV2Relation, LogicalRDD, LocalRelation, Range...): top-level columns only, a nested
  struct field is reported on its top-level column.
* ``unknown_nodes`` lists short class names (``MapInPandas``) in the order met, each once;
  ``engine.INVALID_PLAN`` alone (and nothing else computed) when the input is not a plan at all.

Semantics are openlineage-spark's (which walks the optimized plan; :mod:`.engine` emulates what its
optimizer changes, e.g. the ``IS NOT NULL`` filters inferred on join keys); see engine.py and
expressions.py for the rules and where they deliberately differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lineage_operators._lazy import lazy_exports

# The plan engine (the walker and the expression rules, most of this package) loads with the first
# plan read, not with the settings a DAG file imports through the operator (the parse benchmark).
if TYPE_CHECKING:
    from lineage_operators.column_lineage.lineage import (
        DIRECT,
        INDIRECT,
        PlanColumnLineage,
        SourceColumn,
        Transformation,
    )

_EXPORTS = {
    name: "lineage_operators.column_lineage.lineage"
    for name in ("DIRECT", "INDIRECT", "PlanColumnLineage", "SourceColumn", "Transformation")
}


def lineage_of_plan(
    plan_json: str | list[Any], output_names: Sequence[str] | None = None, optimized: bool = True
) -> PlanColumnLineage:
    """See the module docstring. Never raises on odd plans: unknown nodes are listed instead."""
    from lineage_operators.column_lineage.engine import lineage_of_plan as _impl

    return _impl(plan_json, output_names, optimized)


__all__ = [
    "DIRECT",
    "INDIRECT",
    "PlanColumnLineage",
    "SourceColumn",
    "Transformation",
    "lineage_of_plan",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
