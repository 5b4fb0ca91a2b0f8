"""An expected-events file of either format, told apart by its content, compared the same way.

- this library's golden files (:mod:`.golden`): a mapping ``event key -> partial event(s)``
  with ``$match`` matchers and ``${name}`` placeholders, JSON or YAML;
- Airflow's expected-event files (:mod:`.airflow_format`): a JSON array of partial events with
  Jinja checks, read unchanged.

The pytest harness (``assert_events_match_file``) and the assertion operator both go through
:func:`read_expected_file`, so one file gives the same verdict and the same differences in both.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lineage_operators.testing import matchers as m
from lineage_operators.testing.airflow_compare import compare_airflow_events
from lineage_operators.testing.airflow_format import (
    Absent,
    group_expected,
    is_airflow_format,
    read_expected_document,
)
from lineage_operators.testing.compare import Mismatch, compare_events, format_mismatches, with_environment
from lineage_operators.testing.golden_file import load_expected

__all__ = ["ExpectedFile", "read_airflow_file", "read_expected_file"]


@dataclass(frozen=True)
class ExpectedFile:
    """The expectations of one file: ``airflow`` tells which format (and so which rules) they follow."""

    path: Path
    airflow: bool
    expectations: Mapping[str, Any]

    @property
    def header(self) -> str:
        kind = "Airflow expected-events file" if self.airflow else "golden file"
        return f"OpenLineage events do not match {kind} {self.path}"

    def report(self, mismatches: Sequence[Mismatch], *, actual_empty: bool = False) -> str:
        """The readable report of ``mismatches`` against this file."""
        return format_mismatches(
            mismatches, header=self.header, actual_empty=actual_empty, diff_hint=not self.airflow
        )

    def only(self, keys: Collection[str]) -> ExpectedFile:
        """The same file restricted to ``keys``."""
        return ExpectedFile(
            self.path, self.airflow, {k: v for k, v in self.expectations.items() if k in keys}
        )

    def without(self, keys: Collection[str]) -> ExpectedFile:
        return ExpectedFile(
            self.path, self.airflow, {k: v for k, v in self.expectations.items() if k not in keys}
        )

    def required_counts(self) -> dict[str, int]:
        """How many events each key needs before comparing makes sense (absent keys need none)."""
        counts: dict[str, int] = {}
        for key, expected in self.expectations.items():
            if isinstance(expected, Absent) or expected is m.ABSENT:
                continue
            counts[key] = len(expected) if isinstance(expected, list) else 1
        return counts

    def mismatches(
        self,
        events: Mapping[str, Sequence[Mapping[str, Any]]],
        *,
        placeholders: m.Placeholders | None = None,
        namespace: str | None = None,
        allow_extra_keys: bool = False,
    ) -> list[Mismatch]:
        """Every difference. Airflow's files check only the keys they list (``allow_extra_keys`` and
        ``placeholders`` apply to golden files)."""
        if self.airflow:
            return compare_airflow_events(events, self.expectations)
        return compare_events(
            events,
            self.expectations,
            placeholders=with_environment(placeholders, namespace),
            allow_extra_keys=allow_extra_keys,
        )


def read_airflow_file(path: str | os.PathLike[str]) -> ExpectedFile | None:
    """``path`` read as one of Airflow's expected-event files, or None when it holds another format."""
    file = Path(path)
    document = read_expected_document(file)
    return ExpectedFile(file, True, group_expected(document)) if is_airflow_format(document) else None


def read_expected_file(path: str | os.PathLike[str]) -> ExpectedFile:
    """Read a golden file or one of Airflow's expected-event files, whichever ``path`` holds."""
    return read_airflow_file(path) or ExpectedFile(Path(path), False, load_expected(path))
