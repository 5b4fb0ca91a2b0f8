"""Golden files: expected events stored as JSON or YAML, written from a real run.

A golden file is a mapping ``event key -> partial event`` (or a list of them when a key
has several events), with volatile values replaced by matchers so it stays valid from
run to run: UUIDs become ``{"$match": "uuid"}`` (a run id with ``"as": "<job name>"``, so
the file also asserts that START and COMPLETE share a run id and that parent facets
point at the DAG's run), date-times
``{"$match": "datetime"}``, producer/schema URLs and versions a regex with the version
generalised, and placeholder values (the test's base dir...) ``${name}``.  Keys are
sorted and datasets ordered by (namespace, name) so diffs stay small.

Rewriting keeps every part of the old file that still matches (hand-written matchers,
trimmed facets) and regenerates only what changed.

Size: reading, writing and updating golden files (JSON and YAML) with their volatile values
replaced by matchers; the three share the file format.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lineage_operators.testing import matchers as m
from lineage_operators.testing.compare import (
    coerce_events,
    compare_events,
    current_namespace,
    format_mismatches,
    is_dataset,
    matches,
    with_environment,
)
from lineage_operators.testing.expected_file import read_airflow_file
from lineage_operators.testing.golden_file import dump_expected, is_yaml, load_expected

__all__ = [
    "DEFAULT_EXCLUDE",
    "FULL_ENV_VAR",
    "LINEAGE_FACETS",
    "UPDATE_ENV_VAR",
    "assert_events_match_file",
    "lineage_view",
    "load_expected",
    "set_update_mode",
    "to_expected",
    "update_requested",
    "write_expected",
]

UPDATE_ENV_VAR = "LINEAGE_UPDATE_GOLDEN"
FULL_ENV_VAR = "LINEAGE_GOLDEN_FULL"
NAMESPACE_PLACEHOLDER = "namespace"

LINEAGE_FACETS: tuple[str, ...] = ("schema", "columnLineage", "lifecycleStateChange", "symlinks")
"""Dataset facets a lineage-only golden file keeps: what a dataset is and how it was derived or changed.
Everything else (statistics, storage, data source, run and job facets) needs ``--lineage-golden-full``."""

DEFAULT_EXCLUDE: tuple[str, ...] = (
    "**._producer",
    "**._schemaURL",
    "run.facets.airflow",
    "run.facets.airflowDagRun",
    "run.facets.airflowState",
    "run.facets.debug",
    "job.facets.airflow",
    "run.facets.spark_applicationDetails.driverHost",
    "run.facets.spark_applicationDetails.uiWebUrl",
    "run.facets.spark_applicationDetails.userName",
)
"""Paths left out of written golden files (partial matching then does not check them):
every facet's ``_producer``/``_schemaURL`` (repeated per facet; ``validate_events`` checks
them), and the provider's dumps of Airflow's own task, DAG and run attributes, which are
not lineage, change with every Airflow release and hold durations and timestamped URLs; and
where the Spark driver ran (host, UI URL when the UI is on, user)."""

MACHINE_DEPENDENT: tuple[str, ...] = (
    "run.facets.spark_applicationDetails.applicationId",
    "run.facets.errorMessage.stackTrace",
    "**.inputStatistics.size",
    "**.inputStatistics.fileCount",
    "**.outputStatistics.size",
    "**.outputStatistics.fileCount",
)
"""Paths written as "any value of the same type": they change with the machine (Spark application
id, file paths in stack traces) or with its core count and library versions (file counts and
bytes written), while the rest of the event must not."""

_update_from_option = False
_full_from_option = False
_NONE: Any = object()

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_DATETIME = (
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}(?::|%3A)\d{2}(?:(?::|%3A)\d{2}(?:\.\d+)?)?"
    r"(?:Z|(?:[+-]|%2B)\d{2}(?:(?::|%3A)?\d{2})?)?"
)
_VERSION = r"(?<![0-9A-Za-z])\d+(?:[.-]\d+)+(?:[.+-]?(?:dev|rc|post|a|b|alpha|beta|SNAPSHOT)[0-9A-Za-z.]*)?"
_VERSION_GENERIC = r"[0-9][0-9A-Za-z.+-]*"
_VERSIONED_KEYS = {"producer", "_producer", "schemaURL", "_schemaURL"}


def set_update_mode(enabled: bool, *, full: bool = False) -> None:
    """Used by the pytest plugin's ``--lineage-update-golden`` / ``--lineage-golden-full``."""
    global _update_from_option, _full_from_option
    _update_from_option = enabled
    _full_from_option = full


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def full_snapshot_requested() -> bool:
    """Whether golden files get whole events: ``--lineage-golden-full`` or ``LINEAGE_GOLDEN_FULL=1``."""
    return _full_from_option or _truthy(FULL_ENV_VAR)


def lineage_view(event: Mapping[str, Any]) -> dict[str, Any]:
    """The part of an event a lineage-only golden file keeps: type, job, datasets and their lineage facets."""

    def dataset(item: Any) -> Any:
        if not isinstance(item, Mapping):
            return item
        kept: dict[str, Any] = {k: item[k] for k in ("namespace", "name") if k in item}
        facets = item.get("facets")
        if isinstance(facets, Mapping):
            kept["facets"] = {k: v for k, v in facets.items() if k in LINEAGE_FACETS}
        return kept

    view: dict[str, Any] = {k: event[k] for k in ("eventType",) if k in event}
    job = event.get("job")
    if isinstance(job, Mapping):
        view["job"] = {k: job[k] for k in ("namespace", "name") if k in job}
    for side in ("inputs", "outputs"):
        if isinstance(event.get(side), list):
            view[side] = [dataset(item) for item in event[side]]
    return view


def update_requested() -> bool:
    """Whether golden files should be rewritten: the pytest option or ``LINEAGE_UPDATE_GOLDEN=1``."""
    return _update_from_option or _truthy(UPDATE_ENV_VAR)


def _is_versioned(key: str | None, parent: Mapping[str, Any] | None) -> bool:
    if key is None:
        return False
    if key in _VERSIONED_KEYS or "version" in key.lower():
        return True
    # tags facets: {"key": "openlineage_client_version", "value": "1.54.0"}
    tag_key = parent.get("key") if parent is not None and key == "value" else None
    return isinstance(tag_key, str) and "version" in tag_key.lower()


def _placeholder_items(placeholders: m.Placeholders | None) -> list[tuple[str, str]]:
    items = [(name, os.fspath(value)) for name, value in (placeholders or {}).items()]
    return sorted(((n, v) for n, v in items if v), key=lambda item: -len(item[1]))


def normalize_string(
    value: str,
    *,
    placeholders: Sequence[tuple[str, str]] = (),
    versioned: bool = False,
    run_names: Mapping[str, str] | None = None,
) -> Any:
    """The golden form of one actual string: a matcher, a ``${name}`` template, or the literal.

    A UUID that is some event's runId becomes a named capture (``"as": "<job>"``), so the file
    asserts that START and COMPLETE share a run id and that parent facets point at the DAG run.
    """
    if re.fullmatch(_UUID, value):
        return m.uuid(capture=(run_names or {}).get(value))
    if re.fullmatch(_DATETIME, value) and m.parse_iso_datetime(value.replace("%3A", ":")) is not None:
        return m.datetime()
    alternatives = [f"(?P<p{i}>{re.escape(v)})" for i, (_, v) in enumerate(placeholders)]
    alternatives += [f"(?P<uuid>{_UUID})", f"(?P<datetime>{_DATETIME})"]
    if versioned:
        alternatives.append(f"(?P<version>{_VERSION})")
    literal_parts: list[str] = []
    regex_parts: list[str] = []
    volatile = False
    pos = 0
    for match in re.finditer("|".join(alternatives), value):
        before = value[pos : match.start()]
        literal_parts.append(m.escape_literal(before))
        regex_parts.append(_regex_escape(before))
        group = match.lastgroup or ""
        if group.startswith("p"):
            token = "${" + placeholders[int(group[1:])][0] + "}"
            literal_parts.append(token)
            regex_parts.append(token)
        else:
            volatile = True
            regex_parts.append({"uuid": _UUID, "datetime": _DATETIME, "version": _VERSION_GENERIC}[group])
        pos = match.end()
    literal_parts.append(m.escape_literal(value[pos:]))
    regex_parts.append(_regex_escape(value[pos:]))
    if volatile:
        return m.regex("".join(regex_parts))
    return "".join(literal_parts)


def _glob_match(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    """Dotted-path glob: ``*`` is one key or list index, ``**`` any number of them."""
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_glob_match(rest, path[i:]) for i in range(len(path) + 1))
    return bool(path) and head in ("*", path[0]) and _glob_match(rest, path[1:])


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}.get(type(value), "string")


def _excluded(path: tuple[str, ...], exclude: Sequence[tuple[str, ...]]) -> bool:
    return any(_glob_match(pattern, path) for pattern in exclude)


_REGEX_SPECIAL = re.compile(r"([\\.^$*+?{}\[\]|()])")


def _regex_escape(text: str) -> str:
    """Escape only what is special in a pattern, so golden-file regexes stay readable."""
    return _REGEX_SPECIAL.sub(r"\\\1", text)


def _dataset_id(item: Mapping[str, Any]) -> tuple[str, str]:
    return (str(item.get("namespace")), str(item.get("name")))


class _Builder:
    """Turns one actual event into its golden form, reusing still-matching parts of the old one."""

    def __init__(
        self,
        placeholders: m.Placeholders | None,
        exclude: Iterable[str],
        run_names: Mapping[str, str],
        namespace: str | None = None,
    ) -> None:
        self.namespace = namespace
        # matching an old file resolves ${namespace}; writing substitutes only the caller's placeholders
        self.placeholders = with_environment(placeholders, namespace)
        self.items = _placeholder_items(placeholders)
        self.exclude = [tuple(p.split(".")) for p in exclude]
        self.machine_dependent = [tuple(p.split(".")) for p in MACHINE_DEPENDENT]
        self.run_names = run_names

    def build(
        self, actual: Any, old: Any, path: tuple[str, ...], key: str | None, parent: Mapping[str, Any] | None
    ) -> Any:
        if old is not _NONE and matches(old, actual, placeholders=self.placeholders):
            return m.encode(old)
        if _excluded(path, self.machine_dependent):
            return m.encode(m.of_type(_json_type(actual)))
        if isinstance(actual, Mapping):
            old_map = old if isinstance(old, Mapping) else {}
            return {
                k: self.build(v, old_map.get(k, _NONE), (*path, str(k)), str(k), actual)
                for k, v in actual.items()
                if not _excluded((*path, str(k)), self.exclude)
            }
        if isinstance(actual, list):
            return self._build_list(actual, old, path)
        if path[-2:] == ("job", "namespace") and self.namespace is not None and actual == self.namespace:
            return "${" + NAMESPACE_PLACEHOLDER + "}"
        if isinstance(actual, str):
            return normalize_string(
                actual,
                placeholders=self.items,
                versioned=_is_versioned(key, parent),
                run_names=self.run_names,
            )
        return actual

    def _build_list(self, actual: list[Any], old: Any, path: tuple[str, ...]) -> Any:
        old_items: list[Any] = []
        if isinstance(old, m.ListMatcher):
            old_items = old.items
        elif isinstance(old, list):
            old_items = old
        if actual and all(is_dataset(i) for i in actual):
            ordered = sorted(actual, key=_dataset_id)
            remaining = [o for o in old_items if is_dataset(o)]
            out = []
            for index, item in enumerate(ordered):
                pair = next(
                    (
                        o
                        for o in remaining
                        if matches(o["namespace"], item["namespace"], placeholders=self.placeholders)
                        and matches(o["name"], item["name"], placeholders=self.placeholders)
                    ),
                    _NONE,
                )
                if pair is not _NONE:
                    remaining.remove(pair)
                out.append(self.build(item, pair, (*path, str(index)), None, None))
            return out
        return [
            self.build(item, old_items[i] if i < len(old_items) else _NONE, (*path, str(i)), None, None)
            for i, item in enumerate(actual)
        ]


def to_expected(
    actual: Any,
    *,
    placeholders: m.Placeholders | None = None,
    keys: Iterable[str] | None = None,
    exclude: Iterable[str] = DEFAULT_EXCLUDE,
    previous: Mapping[str, Any] | None = None,
    full: bool = False,
    namespace: str | None = None,
) -> dict[str, Any]:
    """The golden-file document (JSON-ready) for ``actual`` events.

    By default only the lineage (:func:`lineage_view`) is written; ``full`` keeps whole events.
    ``keys`` limits it to some event keys; ``exclude`` drops dotted paths (``*`` matches any
    key or list index); ``previous`` is an old expectation whose still-matching parts are kept;
    a job namespace equal to ``namespace`` is written as ``${namespace}``.
    """
    events = _select(coerce_events(actual), keys)
    run_names = _run_names(events)
    if not full:
        events = {k: [lineage_view(e) for e in v] for k, v in events.items()}
    builder = _Builder(placeholders, exclude, run_names, namespace)
    doc: dict[str, Any] = {}
    for key, old_value in (previous or {}).items():
        if old_value is m.ABSENT and key not in events:  # "no such event" still holds: keep it
            doc[key] = m.ABSENT.to_json()
    for key in sorted(events):
        got = events[key]
        old = (previous or {}).get(key, _NONE)
        if len(got) == 1:
            single = old[0] if isinstance(old, list) and len(old) == 1 else old
            doc[key] = builder.build(
                got[0], single if not isinstance(single, list) else _NONE, (), None, None
            )
        else:
            olds = old if isinstance(old, list) else []
            doc[key] = [
                builder.build(e, olds[i] if i < len(olds) else _NONE, (), None, None)
                for i, e in enumerate(got)
            ]
    return doc


def _run_names(events: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, str]:
    """runId -> capture name: the job name next to it, ``#2``... for that job's later runs.

    Events and parent/root facets alike hold ``{"job": {"name"}, "run": {"runId"}}``, so a task's
    parent runId gets the DAG's name even when the DAG's own events are not in the file.
    """
    names: dict[str, str] = {}
    per_job: dict[str, int] = {}

    def visit(node: Any) -> None:
        if isinstance(node, Mapping):
            job, run = node.get("job"), node.get("run")
            if isinstance(job, Mapping) and isinstance(run, Mapping):
                name, run_id = job.get("name"), run.get("runId")
                if isinstance(name, str) and isinstance(run_id, str) and run_id not in names:
                    per_job[name] = per_job.get(name, 0) + 1
                    names[run_id] = name if per_job[name] == 1 else f"{name}#{per_job[name]}"
            for key in sorted(node):
                visit(node[key])
        elif isinstance(node, list):
            for item in node:
                visit(item)

    for key in sorted(events):
        for event in events[key]:
            visit(event)
    return names


def _select(events: dict[str, list[dict[str, Any]]], keys: Iterable[str] | None) -> dict[str, Any]:
    if keys is None:
        return events
    wanted = set(keys)
    return {k: v for k, v in events.items() if k in wanted}


def write_expected(
    path: str | os.PathLike[str],
    actual_events: Any,
    *,
    placeholders: m.Placeholders | None = None,
    keys: Iterable[str] | None = None,
    exclude: Iterable[str] = DEFAULT_EXCLUDE,
    preserve: bool = True,
    full: bool | None = None,
    namespace: str | None = None,
) -> dict[str, Any]:
    """Write ``actual_events`` as a golden file (JSON, or YAML for .yaml/.yml) and return the document.

    With ``preserve`` (default) parts of an existing file that still match are kept as they are,
    so hand-written matchers survive an update.  The file is only touched when its text changes.
    ``full=None`` follows ``--lineage-golden-full`` / ``LINEAGE_GOLDEN_FULL=1``.
    """
    file = Path(path)
    previous = load_expected(file) if preserve and file.exists() else None
    doc = to_expected(
        actual_events,
        placeholders=placeholders,
        keys=keys,
        exclude=exclude,
        previous=previous,
        full=full_snapshot_requested() if full is None else full,
        namespace=namespace or current_namespace(),
    )
    text = dump_expected(doc, yaml_format=is_yaml(file))
    if not file.exists() or file.read_text(encoding="utf-8") != text:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    return doc


def assert_events_match_file(
    actual: Any,
    path: str | os.PathLike[str],
    *,
    placeholders: m.Placeholders | None = None,
    update: bool | None = None,
    keys: Iterable[str] | None = None,
    exclude: Iterable[str] = DEFAULT_EXCLUDE,
    allow_extra_keys: bool = False,
) -> None:
    """Compare ``actual`` events with a golden file, or rewrite the file in update mode.

    ``update=None`` follows ``--lineage-update-golden`` / ``LINEAGE_UPDATE_GOLDEN=1``.  A golden file
    is a snapshot, so by default an event key it does not list fails (``allow_extra_keys``);
    ``keys`` restricts both the snapshot and the check to some keys.

    ``path`` may also be one of Airflow's expected-event files (a JSON array of events with Jinja
    checks), used unchanged: it is recognised by its content, checks only the keys it lists and is
    never rewritten, whatever the update mode.
    """
    file = Path(path)
    events = _select(coerce_events(actual), list(keys) if keys is not None else None)
    namespace = getattr(actual, "namespace", None)
    if file.suffix.lower() == ".json" and file.is_file():
        expected_file = read_airflow_file(file)
        if expected_file is not None:
            if keys is not None:
                expected_file = expected_file.only(set(keys))
            mismatches = expected_file.mismatches(events)
            if mismatches:
                raise AssertionError(expected_file.report(mismatches, actual_empty=not events))
            return
    if update if update is not None else update_requested():
        write_expected(file, events, placeholders=placeholders, exclude=exclude, namespace=namespace)
        return
    if not file.exists():
        raise AssertionError(
            f"golden file {file} does not exist; run pytest with --lineage-update-golden "
            f"(or {UPDATE_ENV_VAR}=1) to write it from this run"
        )
    expected = load_expected(file)
    mismatches = compare_events(
        events,
        expected,
        placeholders=with_environment(placeholders, namespace),
        allow_extra_keys=allow_extra_keys,
    )
    if mismatches:
        message = format_mismatches(
            mismatches, header=f"OpenLineage events do not match golden file {file}", actual_empty=not events
        )
        hints = [f"(if the change is intended, rerun with --lineage-update-golden or {UPDATE_ENV_VAR}=1)"]
        raise AssertionError("\n".join([message, *hints]))
