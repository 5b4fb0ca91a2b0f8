"""Observed metric names -> the fields of OpenLineage's ``dataQualityMetrics`` facet.

The naming convention (the names users give the aggregates of ``df.observe(...)``, and the names
:mod:`.checks` gives its own):

========================================  ===========================================
metric name                               facet field
========================================  ===========================================
``rowCount``, ``bytes``, ``fileCount``    the dataset's ``rowCount``, ``bytes``, ``fileCount``
``<column>.nullCount``                    ``columnMetrics[<column>].nullCount``
``<column>.distinctCount``                ``columnMetrics[<column>].distinctCount``
``<column>.count`` / ``.sum``             ``columnMetrics[<column>].count`` / ``.sum``
``<column>.min`` / ``.max``               ``columnMetrics[<column>].min`` / ``.max`` (numbers only)
``<column>.quantiles.<q>``                ``columnMetrics[<column>].quantiles["<q>"]``
========================================  ===========================================

A quantile's name carries it after ``quantiles.``: ``amount.quantiles.0.5`` is the median of
``amount``. The column is everything before the last suffix, so ``customer.address.nullCount`` is about the
column (or struct field) ``customer.address``. A column observed with ``rowCount`` and
``<column>.count`` but no ``nullCount`` gets ``nullCount = rowCount - count`` (how the checks count
NULLs). The facet has no place for other metrics: they are
dropped, and :func:`dataset_metrics` returns their names for one debug line. Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

#: The name of the observations the declared checks add (:mod:`.observe`): their metrics are reported
#: with the checks, not again as the task's own observations.
CHECKS_OBSERVATION_PREFIX = "lineage_quality_"
DATASET_FIELDS = ("rowCount", "bytes", "fileCount")
COUNT_FIELDS = ("nullCount", "distinctCount")
NUMBER_FIELDS = ("count", "sum", "min", "max")
QUANTILES = ".quantiles."


@dataclass
class DatasetMetrics:
    """What one dataset's observed metrics say, in the facet's terms."""

    dataset: dict[str, int] = field(default_factory=dict)
    #: column -> {"nullCount": 3, "min": 1.0, "quantiles": {"0.5": 2.0}}
    columns: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.dataset or self.columns)


def observed_metrics(observations: Mapping[str, Mapping[str, Any]]) -> tuple[DatasetMetrics, list[str]]:
    """:func:`dataset_metrics` of the task's own observations of one write (values by observation
    name; the checks' own left out), merged: a metric observed twice keeps the last value."""
    merged: dict[str, Any] = {}
    for name, values in observations.items():
        if not name.startswith(CHECKS_OBSERVATION_PREFIX):
            merged.update(values)
    return dataset_metrics(merged)


def dataset_metrics(observed: Mapping[str, Any]) -> tuple[DatasetMetrics, list[str]]:
    """(the metrics the convention maps, the names it does not map or whose value is no number)."""
    metrics = DatasetMetrics()
    dropped: list[str] = []
    for name, value in observed.items():
        if not _place(metrics, name, value):
            dropped.append(name)
    rows = metrics.dataset.get("rowCount")
    for stats in metrics.columns.values():
        count = stats.get("count")
        if rows is not None and isinstance(count, int) and "nullCount" not in stats:
            stats["nullCount"] = rows - count
    return metrics, dropped


def _place(metrics: DatasetMetrics, name: str, value: Any) -> bool:
    if name in DATASET_FIELDS:
        count = _count(value)
        if count is None:
            return False
        metrics.dataset[name] = count
        return True
    if QUANTILES in name:
        column, _, quantile = name.rpartition(QUANTILES)
        number = _number(value)
        if not column or not _is_quantile(quantile) or number is None:
            return False
        metrics.columns.setdefault(column, {}).setdefault("quantiles", {})[quantile] = number
        return True
    column, _, stat = name.rpartition(".")
    if not column or stat not in (*COUNT_FIELDS, *NUMBER_FIELDS):
        return False
    converted = _count(value) if stat in COUNT_FIELDS else _number(value)
    if converted is None:
        return False
    metrics.columns.setdefault(column, {})[stat] = converted
    return True


def _count(value: Any) -> int | None:
    if value is None:  # a sum over no row
        return 0
    number = _number(value)
    return int(number) if number is not None and float(number).is_integer() else None


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


def _is_quantile(text: str) -> bool:
    try:
        return 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


__all__ = ["DATASET_FIELDS", "DatasetMetrics", "dataset_metrics"]
