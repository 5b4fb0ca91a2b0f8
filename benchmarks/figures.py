"""A figure is one number a benchmark reports, with the target it is judged against.

Benchmarks return figures; the runner prints one line per figure and records them in
RESULTS.md. Figures without a target are context for reading the others (``info``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
    ">": operator.gt,
}


@dataclass(frozen=True)
class Target:
    """``value <comparison> limit``, e.g. ``Target("<=", 1.02)``."""

    comparison: str
    limit: float

    def __post_init__(self) -> None:
        if self.comparison not in _COMPARISONS:
            raise ValueError(f"unknown comparison {self.comparison!r}")

    def met_by(self, value: float) -> bool:
        return math.isfinite(value) and _COMPARISONS[self.comparison](value, self.limit)

    def __str__(self) -> str:
        return f"{self.comparison} {format_number(self.limit)}"


@dataclass
class Figure:
    """One reported number. ``details`` carries what explains it (medians, counts) for the JSON output."""

    name: str
    value: float
    target: Target | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def met(self) -> bool | None:
        return None if self.target is None else self.target.met_by(self.value)

    def line(self) -> str:
        """The one line ``make bench`` prints, e.g. ``task_overhead_ratio 1.013 (target <= 1.02) OK``."""
        if self.target is None:
            return f"{self.name} {format_number(self.value)} (info)"
        verdict = "OK" if self.met else "MISSED"
        return f"{self.name} {format_number(self.value)} (target {self.target}) {verdict}"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "target": str(self.target) if self.target else None,
            "met": self.met,
            "details": self.details,
        }


def format_number(value: float) -> str:
    """Ratios and fractions with 3-4 significant digits; counts and byte sizes as integers."""
    if not math.isfinite(value):
        return str(value)
    if float(value).is_integer() and abs(value) >= 1:
        return str(int(value))
    if value == 0:
        return "0"
    if abs(value) < 0.1:
        return f"{value:.4f}"
    return f"{value:.3f}"
