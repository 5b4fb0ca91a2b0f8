"""Comparing actual OpenLineage events with partial expectations, reporting every difference.

Rules (documented in the package docstring too):

- dicts match partially: keys missing on the expected side are not checked
  (``matchers.ABSENT`` asserts a key is missing);
- lists of datasets (items with ``namespace`` and ``name``: ``inputs``, ``outputs``,
  symlink identifiers, column-lineage input fields...) match as sets by
  (namespace, name): a missing or an extra dataset fails, unless wrapped in
  ``matchers.subset`` (extras allowed);
- other lists match in order and length (``subset`` / ``unordered`` relax that);
- under one event key, an expected dict means exactly one event; a list of dicts means
  exactly that many events, matched in emission order; ``matchers.ABSENT`` means none.

Size: one comparison rule per JSON shape (mappings, lists, matchers, facets) with the
difference report each gives; a user reads them as one rule set.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lineage_operators.testing import matchers as m
from lineage_operators.testing.backend import MarquezRun
from lineage_operators.testing.events import Events, load_events

__all__ = ["Mismatch", "assert_events_match", "compare_events", "format_mismatches", "matches"]

_UNSET: Any = object()
_MAX_RENDER = 300
_DIFF_FROM = 160
_MAX_DIFF_LINES = 40
_DIFF_COMMAND = "`lineage-operators diff EXPECTED ACTUAL`"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Mismatch:
    """One difference: which event key, where in the event, what was expected and found."""

    key: str
    path: str
    message: str
    expected: Any = field(default=_UNSET)
    actual: Any = field(default=_UNSET)

    def format(self) -> str:
        where = f"{self.key}: {self.path}" if self.path else self.key
        lines = [f"{where}: {self.message}"]
        diff = _short_diff(self.expected, self.actual)
        if diff:
            lines.extend("    " + line for line in diff)
            return "\n".join(lines)
        if self.expected is not _UNSET:
            lines.append(f"    expected: {_render(self.expected)}")
        if self.actual is not _UNSET:
            lines.append(f"    actual:   {_render(self.actual)}")
        return "\n".join(lines)


def _render(value: Any) -> str:
    if isinstance(value, m.Matcher) and not isinstance(value, m.ListMatcher):
        return repr(value)
    try:
        text = json.dumps(m.encode(value), sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _MAX_RENDER else text[: _MAX_RENDER - 1] + "…"


def _pretty(value: Any) -> list[str] | None:
    try:
        return json.dumps(
            m.encode(value), indent=2, sort_keys=True, ensure_ascii=False, default=str
        ).splitlines()
    except (TypeError, ValueError):
        return None


def _short_diff(expected: Any, actual: Any) -> list[str]:
    """A unified diff (expected -> actual) when both sides are long structures, else nothing.

    One-line dumps of whole facets are unreadable; the diff shows only the lines that differ.
    """
    if expected is _UNSET or actual is _UNSET:
        return []
    if not isinstance(expected, (Mapping, list)) or not isinstance(actual, (Mapping, list)):
        return []
    if len(_render(expected)) + len(_render(actual)) < _DIFF_FROM:
        return []
    before, after = _pretty(expected), _pretty(actual)
    if before is None or after is None:
        return []
    diff = list(difflib.unified_diff(before, after, "expected", "actual", n=1, lineterm=""))
    return diff if len(diff) <= _MAX_DIFF_LINES else [*diff[:_MAX_DIFF_LINES], "..."]


def current_namespace() -> str:
    """The job namespace the provider uses in this environment (its default is ``default``)."""
    return os.environ.get("AIRFLOW__OPENLINEAGE__NAMESPACE") or "default"


def with_environment(placeholders: m.Placeholders | None, namespace: str | None = None) -> dict[str, Any]:
    """The caller's placeholders plus ``${namespace}``, the job namespace of this environment."""
    return {"namespace": namespace or current_namespace(), **(placeholders or {})}


def _key_segment(key: str) -> str:
    return f".{key}" if _IDENTIFIER.fullmatch(key) else f"[{json.dumps(key)}]"


def _join(path: str, segment: str) -> str:
    if segment.startswith("."):
        return segment[1:] if not path else path + segment
    return path + segment


class _Ctx:
    """Carries the placeholders and the output list through the recursion."""

    def __init__(
        self,
        key: str,
        placeholders: m.Placeholders | None,
        bindings: dict[str, tuple[Any, str]] | None = None,
    ) -> None:
        self.key = key
        self.placeholders = placeholders
        self.out: list[Mismatch] = []
        # capture name -> (value, where it was first seen); shared by all events of one comparison
        self.bindings: dict[str, tuple[Any, str]] = {} if bindings is None else bindings

    def fail(self, path: str, message: str, expected: Any = _UNSET, actual: Any = _UNSET) -> None:
        self.out.append(Mismatch(self.key, path, message, expected, actual))

    def child(self) -> _Ctx:
        """A probe: sees the bindings so far but does not add to them."""
        return _Ctx(self.key, self.placeholders, dict(self.bindings))

    def bind(self, name: str, value: Any, path: str) -> str | None:
        where = f"{self.key}: {path}" if path else self.key
        if name not in self.bindings:
            self.bindings[name] = (value, where)
            return None
        bound, first = self.bindings[name]
        if bound != value:
            return f"differs from the value captured as {name!r} at {first}: {_render(bound)}"
        return None


def _type_name(value: Any) -> str:
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else type(value).__name__


def _scalar_equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    return type(expected) is type(actual) and bool(expected == actual)


def is_dataset(item: Any) -> bool:
    return isinstance(item, Mapping) and "namespace" in item and "name" in item


def _is_dataset_list(expected: Sequence[Any], actual: Any) -> bool:
    """Set semantics apply when the expected items are datasets (or, if none, the actual ones)."""
    if expected:
        return all(is_dataset(i) for i in expected)
    return isinstance(actual, list) and bool(actual) and all(is_dataset(i) for i in actual)


def _scalar_matches(expected: Any, actual: Any, ctx: _Ctx) -> bool:
    if isinstance(expected, m.Matcher):
        return expected.check(actual, ctx.placeholders) is None
    return _scalar_equal(expected, actual)


def _display(value: Any, ctx: _Ctx) -> str:
    if isinstance(value, m.Template):
        try:
            return value.render(ctx.placeholders)
        except m.UnknownPlaceholderError:
            return value.template
    if isinstance(value, m.Matcher):
        return repr(value)
    return str(value)


def _dataset_label(item: Mapping[str, Any], ctx: _Ctx) -> str:
    parts = [f"namespace={_display(item.get('namespace'), ctx)}", f"name={_display(item.get('name'), ctx)}"]
    if "field" in item:  # column-lineage input fields repeat (namespace, name)
        parts.append(f"field={_display(item.get('field'), ctx)}")
    return "[" + ",".join(parts) + "]"


def _compare(expected: Any, actual: Any, path: str, ctx: _Ctx) -> None:
    if isinstance(expected, m.ListMatcher):
        if not isinstance(actual, list):
            ctx.fail(path, f"expected an array, got {_type_name(actual)}", expected, actual)
            return
        _compare_list(expected.items, actual, path, ctx, expected.mode)
    elif isinstance(expected, m.Matcher):
        reason = expected.check(actual, ctx.placeholders)
        if reason is None and expected.capture is not None:
            reason = ctx.bind(expected.capture, actual, path)
        if reason is not None:
            ctx.fail(path, reason, expected, actual)
    elif isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            ctx.fail(path, f"expected an object, got {_type_name(actual)}", expected, actual)
            return
        for key, value in expected.items():
            sub = _join(path, _key_segment(str(key)))
            if value is m.ABSENT:
                if key in actual:
                    ctx.fail(sub, "key should be absent", actual=actual[key])
            elif key not in actual:
                ctx.fail(sub, "missing key", expected=value)
            else:
                _compare(value, actual[key], sub, ctx)
    elif isinstance(expected, (list, tuple)):
        if not isinstance(actual, list):
            ctx.fail(path, f"expected an array, got {_type_name(actual)}", expected, actual)
            return
        _compare_list(list(expected), actual, path, ctx, "exact")
    elif not _scalar_equal(expected, actual):
        ctx.fail(path, "value differs", expected, actual)


def _fully_matches(expected: Any, actual: Any, ctx: _Ctx) -> bool:
    probe = ctx.child()
    _compare(expected, actual, "", probe)
    return not probe.out


def _compare_list(expected: list[Any], actual: list[Any], path: str, ctx: _Ctx, mode: str) -> None:
    if _is_dataset_list(expected, actual):
        _compare_datasets(expected, actual, path, ctx, allow_extra=mode == "subset")
    elif mode == "exact":
        if len(expected) != len(actual):
            ctx.fail(
                path, f"array length differs: expected {len(expected)}, got {len(actual)}", expected, actual
            )
            return
        for index, (exp, act) in enumerate(zip(expected, actual, strict=True)):
            _compare(exp, act, f"{path}[{index}]", ctx)
    else:
        used: set[int] = set()
        for index, exp in enumerate(expected):
            found = next(
                (i for i, act in enumerate(actual) if i not in used and _fully_matches(exp, act, ctx)), None
            )
            if found is None:
                ctx.fail(f"{path}[{index}]", f"no matching item in the array ({mode})", exp, actual)
            else:
                used.add(found)
        if mode == "unordered":
            for i, act in enumerate(actual):
                if i not in used:
                    ctx.fail(f"{path}[{i}]", "unexpected item", actual=act)


def _compare_datasets(
    expected: list[Any], actual: list[Any], path: str, ctx: _Ctx, *, allow_extra: bool
) -> None:
    """Pair datasets by (namespace, name), preferring a fully matching candidate for duplicates."""
    used: set[int] = set()
    for exp in expected:
        candidates = [
            i
            for i, act in enumerate(actual)
            if i not in used
            and is_dataset(act)
            and _scalar_matches(exp["namespace"], act["namespace"], ctx)
            and _scalar_matches(exp["name"], act["name"], ctx)
        ]
        if not candidates:
            present = [f"{a.get('namespace')}:{a.get('name')}" for a in actual if isinstance(a, Mapping)]
            ctx.fail(
                path + _dataset_label(exp, ctx),
                f"missing dataset; present: {', '.join(present) or 'none'}",
                expected=exp,
            )
            continue
        chosen = next((i for i in candidates if _fully_matches(exp, actual[i], ctx)), candidates[0])
        used.add(chosen)
        _compare(exp, actual[chosen], path + _dataset_label(actual[chosen], ctx), ctx)
    if not allow_extra:
        for i, act in enumerate(actual):
            if i not in used:
                label = _dataset_label(act, ctx) if is_dataset(act) else f"[{i}]"
                ctx.fail(path + label, "unexpected dataset (use matchers.subset to allow extras)", actual=act)


def missing_event(key: str, events: Mapping[str, Any]) -> Mismatch:
    """No event under ``key``: the mismatch names the closest keys and every key there is."""
    close = difflib.get_close_matches(key, list(events), n=3, cutoff=0.6)
    hint = f"; did you mean: {', '.join(close)}" if close else ""
    available = ", ".join(sorted(events)) or "none"
    return Mismatch(key, "", f"missing event{hint}; available keys: {available}")


def coerce_events(actual: Any) -> Events:
    """Keyed events from keyed events, a FileTransport path, an iterable of event dicts, or a
    backend's DAG run (:class:`~lineage_operators.testing.backend.MarquezRun`, read once here)."""
    if isinstance(actual, MarquezRun):
        return actual.events()
    if isinstance(actual, Mapping):
        return {str(k): list(v) for k, v in actual.items()}
    if isinstance(actual, (str, os.PathLike, Iterable)):
        return load_events(actual)
    raise TypeError(f"cannot read events from {type(actual).__name__}")


def compare_events(
    actual: Mapping[str, Sequence[Mapping[str, Any]]] | str | os.PathLike[str] | Iterable[Mapping[str, Any]],
    expected: Mapping[str, Any],
    *,
    placeholders: m.Placeholders | None = None,
    allow_extra_keys: bool = True,
) -> list[Mismatch]:
    """Every mismatch between ``actual`` (keyed events, a path, or event dicts) and ``expected``."""
    events = coerce_events(actual)
    out: list[Mismatch] = []
    bindings: dict[str, tuple[Any, str]] = {}
    for key, raw in expected.items():
        ctx = _Ctx(key, with_environment(placeholders), bindings)
        exp = m.decode(raw)
        got = events.get(key) or []
        if exp is m.ABSENT:
            if got:
                out.append(Mismatch(key, "", f"unexpected event ({len(got)} emitted, expected none)"))
            continue
        if not got:
            out.append(missing_event(key, events))
            continue
        if isinstance(exp, list):
            if len(exp) != len(got):
                ctx.fail("", f"expected {len(exp)} events under this key, got {len(got)}")
            for index, (e, a) in enumerate(zip(exp, got, strict=False)):
                _compare(e, a, "", _Indexed(ctx, index))
        elif isinstance(exp, (Mapping, m.Matcher)) and not isinstance(exp, m.ListMatcher):
            if len(got) != 1:
                ctx.fail(
                    "",
                    f"expected exactly one event under this key, got {len(got)} (compared with the last; "
                    "give a list of expectations to match several)",
                )
            _compare(exp, got[-1], "", ctx)
        else:
            raise TypeError(f"expectation for {key!r} must be an event dict or a list of them")
        out.extend(ctx.out)
    if not allow_extra_keys:
        for key in sorted(set(events) - set(expected)):
            out.append(Mismatch(key, "", f"unexpected event ({len(events[key])} emitted, none expected)"))
    return out


class _Indexed(_Ctx):
    """Context for the i-th of several events under one key: prefixes the key with ``[i]``."""

    def __init__(self, parent: _Ctx, index: int) -> None:
        super().__init__(f"{parent.key}[{index}]", parent.placeholders, parent.bindings)
        self.out = parent.out


def matches(expected: Any, actual: Any, *, placeholders: m.Placeholders | None = None) -> bool:
    """Whether one value matches one expectation (same rules as the event comparison)."""
    return _fully_matches(m.decode(expected), actual, _Ctx("", placeholders))


def format_mismatches(
    mismatches: Sequence[Mismatch], *, header: str = "", actual_empty: bool = False, diff_hint: bool = True
) -> str:
    """The report of every mismatch; ``diff_hint`` points at the CLI's per-job diff (which reads golden
    files and events, not Airflow's Jinja files)."""
    keys = {mm.key.split("[", 1)[0] for mm in mismatches}
    title = header or "OpenLineage events do not match the expectation"
    lines = [f"{title}: {len(mismatches)} mismatch(es) in {len(keys)} event key(s)"]
    if actual_empty:
        lines.append(
            "  no OpenLineage event was captured at all: is the provider enabled and the transport set?"
        )
    lines.extend("  " + mm.format().replace("\n", "\n  ") for mm in mismatches)
    if diff_hint:
        lines.append(f"  lineage change per job: {_DIFF_COMMAND} (golden file or events)")
    return "\n".join(lines)


def assert_events_match(
    actual: Mapping[str, Sequence[Mapping[str, Any]]] | str | os.PathLike[str] | Iterable[Mapping[str, Any]],
    expected: Mapping[str, Any],
    *,
    placeholders: m.Placeholders | None = None,
    allow_extra_keys: bool = True,
) -> None:
    """Raise one ``AssertionError`` listing every mismatch, so a failing run shows the whole diff.

    ``expected`` maps event keys to a partial event (exactly one event expected) or a list of
    partial events (that many, in order); values may use matchers in Python or JSON form.
    Keys not in ``expected`` are ignored unless ``allow_extra_keys`` is false.
    """
    events = coerce_events(actual)
    mismatches = compare_events(
        events, expected, placeholders=placeholders, allow_extra_keys=allow_extra_keys
    )
    if mismatches:
        raise AssertionError(format_mismatches(mismatches, actual_empty=not events))
