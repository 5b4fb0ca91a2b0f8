"""The ``data_quality=`` argument: which datasets are checked, how, and what a failed check does.

Checked at DAG definition (:func:`data_quality_spec`: a clear ``TypeError``/``ValueError`` naming
the task), so a typo fails the DAG file's import, not a run. A dataset is named as the task writes
it: a path (``/data/orders``, ``s3://bucket/orders``) or a table (``db.orders``); its checks are
evaluated while that dataset is written.

    data_quality={"/data/orders": [not_null("id"), unique("id"), between("amount", 0, 10_000)]}
    data_quality=DataQuality({"db.orders": [row_count(min=1)]}, on_failure="fail")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from lineage_operators.quality.checks import Check

REPORT = "report"
FAIL = "fail"
ON_FAILURE = (REPORT, FAIL)


@dataclass(frozen=True)
class DataQuality:
    """Checks per dataset, and ``on_failure``: ``"report"`` (the default: failed checks are reported,
    the task goes on) or ``"fail"`` (the task fails after its write, naming the failed checks)."""

    checks: Mapping[str, tuple[Check, ...]] = field(default_factory=dict)
    on_failure: str = REPORT

    def __post_init__(self) -> None:
        normalized = _checks_by_dataset(self.checks)
        object.__setattr__(self, "checks", normalized)
        if self.on_failure not in ON_FAILURE:
            raise ValueError(f"on_failure must be one of {ON_FAILURE}, got {self.on_failure!r}")

    @property
    def severity(self) -> str:
        """The severity of every check: ``error`` when a failure fails the task, else ``warn``."""
        return "error" if self.on_failure == FAIL else "warn"


def data_quality_spec(value: Any, *, owner: str = "") -> DataQuality | None:
    """``data_quality=`` as given (None, a mapping or a :class:`DataQuality`) -> a DataQuality."""
    if value is None:
        return None
    prefix = f"{owner}: " if owner else ""
    try:
        if isinstance(value, DataQuality):
            return value
        if isinstance(value, Mapping):
            return DataQuality(value)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{prefix}data_quality: {error}") from None
    raise TypeError(
        f"{prefix}data_quality must be a mapping of dataset -> checks or a DataQuality, "
        f"got {type(value).__name__}"
    )


def rendered(spec: DataQuality, render: Callable[[str], Any]) -> DataQuality:
    """The spec with its Jinja templates rendered (at run time, like the operator's other templated
    arguments): each dataset name, and each check's column and SQL predicate."""

    def text(value: str | None) -> str | None:
        return None if value is None else str(render(value))

    checks = {
        str(text(dataset)): tuple(
            replace(c, column=text(c.column), predicate=text(c.predicate)) for c in listed
        )
        for dataset, listed in spec.checks.items()
    }
    return DataQuality(checks, spec.on_failure)


def _checks_by_dataset(checks: Any) -> dict[str, tuple[Check, ...]]:
    if not isinstance(checks, Mapping):
        raise TypeError(f"checks must be a mapping of dataset -> checks, got {type(checks).__name__}")
    normalized: dict[str, tuple[Check, ...]] = {}
    for dataset, given in checks.items():
        if not isinstance(dataset, str) or not dataset.strip():
            raise ValueError(f"a dataset must be a non-empty path or table name, got {dataset!r}")
        listed = (given,) if isinstance(given, Check) else given
        if not isinstance(listed, list | tuple) or not listed:
            raise TypeError(f"{dataset}: give a check or a non-empty list of checks, got {given!r}")
        for check in listed:
            if not isinstance(check, Check):
                raise TypeError(
                    f"{dataset}: {check!r} is not a check (use not_null, unique, between, in_set, "
                    "row_count or expression from lineage_operators.quality)"
                )
        names = [c.name for c in listed]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"{dataset}: check names must be unique, repeated: {', '.join(repeated)}")
        normalized[dataset.strip()] = tuple(listed)
    return normalized


__all__ = ["FAIL", "ON_FAILURE", "REPORT", "DataQuality", "data_quality_spec", "rendered"]
