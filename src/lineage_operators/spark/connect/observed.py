"""The values of a Spark Connect action's observations (``Dataset.observe``), from its responses.

A Connect server sends what an action's observations collected in the ``observed_metrics`` of an
``ExecutePlanResponse`` (the client's ``Observation`` reads the same): a name, the metric names
(``keys``) and their values as literals. Pure over the protobuf: no server call, nothing imported.
Values of a type a metric cannot hold as a number or text (arrays, maps, structs, intervals) are
left out: the ``dataQualityMetrics`` facet has no place for them.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

_NUMBERS = ("byte", "short", "integer", "long", "float", "double")


def observed_values(response: Any) -> dict[str, dict[str, Any]]:
    """{observation name: {metric name: value}} of one response; {} without observations."""
    observed: dict[str, dict[str, Any]] = {}
    for metric in response.observed_metrics:
        keys = list(metric.keys)
        values = {
            key: value
            for key, literal in zip(keys, metric.values, strict=False)
            if (value := literal_value(literal)) is not None
        }
        if values:
            observed[metric.name] = values
    return observed


def literal_value(literal: Any) -> Any:
    """A Connect literal as a Python number, bool or text; None for NULL and other types."""
    kind = literal.WhichOneof("literal_type")
    if kind in _NUMBERS or kind in ("boolean", "string"):
        return getattr(literal, kind)
    if kind == "decimal":
        try:
            return Decimal(literal.decimal.value)
        except InvalidOperation:
            return None
    return None


__all__ = ["literal_value", "observed_values"]
