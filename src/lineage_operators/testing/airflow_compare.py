"""Comparing actual events with Airflow's expected-event files, reporting every difference.

Pass/fail follows the provider's system-test semantics (see :mod:`.airflow_format`); where the
provider stops at the first failure and logs it, this lists each one as a :class:`Mismatch`, so a
failure reads like the harness's other comparisons (:func:`.compare.format_mismatches`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lineage_operators.testing.airflow_format import (
    OPTIONAL_KEY,
    VALUE_KEY,
    Absent,
    AirflowExpectation,
    jinja_environment,
)
from lineage_operators.testing.compare import (
    _UNSET,
    Mismatch,
    _join,
    _key_segment,
    _type_name,
    missing_event,
)

__all__ = ["compare_airflow_events", "match_value"]


def _is_optional(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get(OPTIONAL_KEY), str)


def _unwrap_optional(value: Mapping[str, Any]) -> Any:
    if VALUE_KEY in value:
        return value[VALUE_KEY]
    return {k: v for k, v in value.items() if k != OPTIONAL_KEY}


def _render(template: str, actual: Any, env: Any) -> tuple[str | None, str | None]:
    """(rendered text, None) or (None, why rendering failed): any error of the template is a mismatch."""
    try:
        return str(env.from_string(template).render(result=actual)), None
    except Exception as exc:  # a broken check is a failed check, whatever it raised
        return None, f"template could not be rendered: {type(exc).__name__}: {exc}"


def match_value(expected: Any, actual: Any, env: Any, key: str = "", path: str = "") -> list[Mismatch]:
    """Every difference between ``actual`` and one expected value of an Airflow file (none: it matches)."""
    return _Check(env, key).run(expected, actual, path)


class _Check:
    """One event's comparison: the Jinja environment, the event key and the differences found."""

    def __init__(self, env: Any, key: str, out: list[Mismatch] | None = None) -> None:
        self.env = env
        self.key = key
        self.out: list[Mismatch] = [] if out is None else out

    def run(self, expected: Any, actual: Any, path: str = "") -> list[Mismatch]:
        self._match(expected, actual, path)
        return self.out

    def fail(self, path: str, message: str, expected: Any = _UNSET, actual: Any = _UNSET) -> None:
        self.out.append(Mismatch(self.key, path, message, expected, actual))

    def _match(self, expected: Any, actual: Any, path: str) -> None:
        if isinstance(expected, Mapping):
            self._match_dict(expected, actual, path)
        elif isinstance(expected, list):
            if not isinstance(actual, list):
                self.fail(path, f"expected an array, got {_type_name(actual)}", expected, actual)
            elif len(expected) != len(actual):
                message = f"array length differs: expected {len(expected)}, got {len(actual)}"
                self.fail(path, message, expected, actual)
            else:
                for index, (exp, act) in enumerate(zip(expected, actual, strict=True)):
                    self._match(exp, act, f"{path}[{index}]")
        elif isinstance(expected, str) and "{{" in expected:
            rendered, error = _render(expected, actual, self.env)
            if error is not None:
                self.fail(path, error, expected, actual)
            elif rendered is not None and rendered.lower() != "true" and rendered != actual:
                message = f"template rendered {rendered!r}, neither 'true' nor the actual value"
                self.fail(path, message, expected, actual)
        elif expected != actual:
            self.fail(path, "value differs", expected, actual)

    def _match_dict(self, expected: Mapping[str, Any], actual: Any, path: str) -> None:
        if not isinstance(actual, Mapping):
            self.fail(path, f"expected an object, got {_type_name(actual)}", expected, actual)
            return
        for name, value in expected.items():
            sub = _join(path, _key_segment(str(name)))
            if value is None:
                if name in actual:
                    self.fail(sub, "key should be absent (null in the file)", actual=actual[name])
                continue
            wanted = value
            if _is_optional(value):
                if name not in actual or actual[name] == []:
                    continue
                wanted = _unwrap_optional(value)
            if name not in actual:
                self.fail(sub, "missing key", expected=wanted)
            else:
                self._match(wanted, actual[name], sub)


def compare_airflow_events(
    events: Mapping[str, Sequence[Mapping[str, Any]]],
    expected: Mapping[str, AirflowExpectation],
    *,
    env: Any = None,
) -> list[Mismatch]:
    """Every mismatch between keyed ``events`` and an Airflow file's expectations (keys not listed
    in the file are not checked, as in Airflow's system tests)."""
    env = env if env is not None else jinja_environment()
    out: list[Mismatch] = []
    for key, expectation in expected.items():
        got = list(events.get(key) or [])
        if isinstance(expectation, Absent):
            if got:
                message = f"unexpected event ({len(got)} emitted, expected none: {expectation.reason})"
                out.append(Mismatch(key, "", message))
            continue
        if not got:
            out.append(missing_event(key, events))
            continue
        if isinstance(expectation, list):
            if len(expectation) != len(got):
                count = f"expected {len(expectation)} events under this key, got {len(got)}"
                out.append(Mismatch(key, "", count))
            for index, (exp, act) in enumerate(zip(expectation, got, strict=False)):
                _Check(env, f"{key}[{index}]", out).run(exp, act)
        else:
            if len(got) != 1:
                count = f"expected exactly one event under this key, got {len(got)} (compared with the last)"
                out.append(Mismatch(key, "", count))
            _Check(env, key, out).run(expectation, got[-1])
    return out
