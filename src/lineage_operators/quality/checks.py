"""Declared data-quality checks: what a DAG author writes, the aggregates that evaluate it, its verdict.

A check is evaluated by aggregates computed while the data is written (one Spark observation per
dataset: ``Dataset.observe``), never by reading the data again. Spark refuses distinct aggregates in
an observation (they would need a shuffle), so :func:`unique` compares an approximate distinct count
(HyperLogLog++, :data:`UNIQUE_RSD`) with the exact count of values: it flags duplicates once they are
more than :data:`UNIQUE_TOLERANCE` of the values, not a single duplicate row.

Each aggregate is named by the metric naming convention of :mod:`.metrics` where one fits
(``rowCount``, ``amount.nullCount``, ``amount.min``...), so the values a check needs also become the
dataset's ``dataQualityMetrics``; a count of failing rows that is no standard metric is named
``<check name>.failures`` (kept out of the facet). Aggregates are chosen for their cost per row, as
they run on every row written: ``count``/``count_if`` counters rather than sums of ``CASE``
expressions (a column's NULLs are its rows minus its values). Pure: SQL texts and plain values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: ``approx_count_distinct``'s relative standard deviation for :func:`unique`.
UNIQUE_RSD = 0.01
#: :func:`unique` fails when the approximate distinct count is below this share of the values missing.
UNIQUE_TOLERANCE = 3 * UNIQUE_RSD
ROW_COUNT = "rowCount"
KINDS = ("not_null", "unique", "between", "in_set", "row_count", "expression")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]*$")
Literal = str | int | float | bool


@dataclass(frozen=True)
class Check:
    """One declared check. Build it with :func:`not_null`, :func:`unique`, :func:`between`,
    :func:`in_set`, :func:`row_count` or :func:`expression`."""

    kind: str
    name: str
    column: str | None = None
    low: float | None = None
    high: float | None = None
    values: tuple[Literal, ...] = ()
    predicate: str | None = None

    def aggregates(self) -> dict[str, str]:
        """Metric name -> Spark SQL aggregate the check needs."""
        col = quote_column(self.column) if self.column else ""
        if self.kind == "not_null":  # NULLs: rows minus values (two counters, cheaper than a CASE sum)
            return {ROW_COUNT: "count(1)", f"{self.column}.count": f"count({col})"}
        if self.kind == "unique":
            return {
                f"{self.column}.count": f"count({col})",
                f"{self.column}.distinctCount": f"approx_count_distinct({col}, {UNIQUE_RSD})",
            }
        if self.kind == "between":
            return {f"{self.column}.min": f"min({col})", f"{self.column}.max": f"max({col})"}
        if self.kind == "in_set":
            listed = ", ".join(sql_literal(v) for v in self.values)
            failing = f"{col} IS NOT NULL AND {col} NOT IN ({listed})"
            return {self.failures: f"count_if({failing})"}
        if self.kind == "row_count":
            return {ROW_COUNT: "count(1)"}
        # expression: a row fails when the predicate is false (NULL passes, as in a CHECK constraint)
        return {self.failures: f"count_if(NOT ({self.predicate}))"}

    @property
    def failures(self) -> str:
        return f"{self.name}.failures"

    @property
    def content(self) -> str:
        """What the check computes, as Spark SQL (the ``content`` of its test and assertion)."""
        return "; ".join(f"{sql} AS `{name}`" for name, sql in self.aggregates().items())

    @property
    def expected(self) -> str:
        if self.kind in ("not_null", "in_set", "expression"):
            return "0"
        if self.kind == "unique":
            return "distinct count = count"
        return _range_text(self.low, self.high)

    def evaluate(self, observed: Mapping[str, Any]) -> Verdict:
        """The verdict from the observation's values; ``skip`` when one it needs was not observed
        (the write failed before its end). A sum over no row is NULL: no failing row."""
        if any(name not in observed for name in self.aggregates()):
            return Verdict(self, "skip", None)
        if self.kind == "not_null":
            return _count_verdict(
                self, int(observed[ROW_COUNT] or 0) - int(observed[f"{self.column}.count"] or 0)
            )
        if self.kind in ("in_set", "expression"):
            return _count_verdict(self, observed[self.failures])
        if self.kind == "unique":
            count = int(observed[f"{self.column}.count"] or 0)
            distinct = int(observed[f"{self.column}.distinctCount"] or 0)
            passed = distinct >= math.floor(count * (1 - UNIQUE_TOLERANCE))
            return Verdict(self, "pass" if passed else "fail", f"{distinct} distinct of {count}")
        if self.kind == "row_count":
            rows = int(observed[ROW_COUNT] or 0)
            return Verdict(self, "pass" if _within(rows, self.low, self.high) else "fail", str(rows))
        low, high = observed[f"{self.column}.min"], observed[f"{self.column}.max"]
        if low is None or high is None:  # no non-NULL value: nothing out of range
            return Verdict(self, "pass", "no values")
        passed = _within(low, self.low, self.high) and _within(high, self.low, self.high)
        return Verdict(self, "pass" if passed else "fail", f"min {low}, max {high}")


@dataclass(frozen=True)
class Verdict:
    """A check's outcome: ``status`` is ``pass``, ``fail`` or ``skip`` (the values were not observed)."""

    check: Check
    status: str
    actual: str | None

    @property
    def passed(self) -> bool:
        return self.status == "pass"


def _count_verdict(check: Check, failing: Any) -> Verdict:
    count = int(failing or 0)
    return Verdict(check, "pass" if count == 0 else "fail", str(count))


def _within(value: Any, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _range_text(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"between {_number(low)} and {_number(high)}"
    return f">= {_number(low)}" if low is not None else f"<= {_number(high)}"


def _number(value: float | None) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


# -- constructors (the DAG author's vocabulary); each raises a clear error on a bad argument --------


def not_null(column: str, *, name: str | None = None) -> Check:
    """No row has a NULL ``column``."""
    return Check("not_null", _name(name, "not_null", column), column=_column(column))


def unique(column: str, *, name: str | None = None) -> Check:
    """No two rows share a value of ``column`` (approximate: see the module's docstring)."""
    return Check("unique", _name(name, "unique", column), column=_column(column))


def between(
    column: str, low: float | None = None, high: float | None = None, *, name: str | None = None
) -> Check:
    """Every non-NULL ``column`` value lies in ``[low, high]`` (either bound may be left out)."""
    lo, hi = _bound("low", low), _bound("high", high)
    if lo is None and hi is None:
        raise ValueError(f"between({column!r}): give low, high or both")
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"between({column!r}): low {lo} is above high {hi}")
    return Check("between", _name(name, "between", column), column=_column(column), low=lo, high=hi)


def in_set(column: str, values: Iterable[Literal], *, name: str | None = None) -> Check:
    """Every non-NULL ``column`` value is one of ``values``."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise TypeError(f"in_set({column!r}): values must be a list of literals, got {values!r}")
    listed = tuple(values)
    if not listed:
        raise ValueError(f"in_set({column!r}): values is empty")
    for value in listed:
        sql_literal(value)  # raises on a value SQL cannot hold
    return Check("in_set", _name(name, "in_set", column), column=_column(column), values=listed)


def row_count(min: int | None = None, max: int | None = None, *, name: str | None = None) -> Check:
    """The dataset written has between ``min`` and ``max`` rows."""
    low, high = _bound("min", min), _bound("max", max)
    if low is None and high is None:
        raise ValueError("row_count(): give min, max or both")
    if low is not None and high is not None and low > high:
        raise ValueError(f"row_count(): min {min} is above max {max}")
    return Check("row_count", _name(name, "row_count", None), low=low, high=high)


def expression(predicate: str, *, name: str | None = None) -> Check:
    """Every row satisfies the Spark SQL ``predicate`` (a row where it is NULL passes)."""
    if not isinstance(predicate, str) or not predicate.strip():
        raise ValueError(f"expression(): the predicate must be a non-empty SQL string, got {predicate!r}")
    if ";" in predicate:
        raise ValueError(f"expression({predicate!r}): one predicate, without ';'")
    label = name or "expression_" + re.sub(r"[^A-Za-z0-9]+", "_", predicate).strip("_")[:40]
    return Check("expression", _name(label, "expression", None), predicate=predicate.strip())


def _column(column: Any) -> str:
    if not isinstance(column, str) or not column.strip():
        raise ValueError(f"a check's column must be a non-empty string, got {column!r}")
    return column.strip()


def _bound(label: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"{label} must be a finite number, got {value!r}")
    return float(value)


def _name(given: str | None, kind: str, column: str | None) -> str:
    name = given if given is not None else f"{kind}_{column}" if column else kind
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"a check's name must be letters, digits, '_', '.', ':' or '-', got {name!r}")
    return name


# -- SQL text ------------------------------------------------------------------------------------


def quote_column(column: str) -> str:
    """```a`.`b``` for ``a.b`` (a struct field; each part quoted, backticks doubled)."""
    return ".".join("`" + part.replace("`", "``") + "`" for part in column.split("."))


def sql_literal(value: Any) -> str:
    """A Spark SQL literal for a string, integer, float or boolean."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    raise TypeError(f"a check value must be a string, integer, finite float or boolean, got {value!r}")


def observation_aggregates(checks: Sequence[Check]) -> dict[str, str]:
    """Every aggregate the checks of one dataset need, each once (checks share ``rowCount``...)."""
    merged: dict[str, str] = {}
    for check in checks:
        merged.update(check.aggregates())
    return merged


__all__ = [
    "KINDS",
    "ROW_COUNT",
    "UNIQUE_RSD",
    "UNIQUE_TOLERANCE",
    "Check",
    "Verdict",
    "between",
    "expression",
    "in_set",
    "not_null",
    "observation_aggregates",
    "quote_column",
    "row_count",
    "sql_literal",
    "unique",
]
