"""Data quality from Spark itself: declared checks and observed metrics as OpenLineage facets.

The checks (:func:`not_null`, :func:`unique`, :func:`between`, :func:`in_set`, :func:`row_count`,
:func:`expression`) are plain data: importing this package imports neither Spark nor openlineage.
"""

from __future__ import annotations

from lineage_operators.quality.checks import (
    Check,
    Verdict,
    between,
    expression,
    in_set,
    not_null,
    observation_aggregates,
    row_count,
    unique,
)
from lineage_operators.quality.metrics import DatasetMetrics, dataset_metrics
from lineage_operators.quality.spec import DataQuality, data_quality_spec

__all__ = [
    "Check",
    "DataQuality",
    "DatasetMetrics",
    "Verdict",
    "between",
    "data_quality_spec",
    "dataset_metrics",
    "expression",
    "in_set",
    "not_null",
    "observation_aggregates",
    "row_count",
    "unique",
]
