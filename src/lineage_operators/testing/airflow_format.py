"""Airflow's expected-event files, read as they are: the format of the OpenLineage provider's system tests.

A file is a JSON array of partial events. Each is filed under ``job.name + ".event." + eventType``
(lower case); several under one key are expected in that order, and an item with ``"$absent":
"<reason>"`` says the key must have no event at all. Inside an event:

- dicts are partial: only the keys written are checked; ``null`` means the key must be absent;
  ``{"$optional": "<reason>", ...}`` (or ``{"$optional": ..., "$value": [...]}`` for a list) is
  checked only when the key is present and not an empty list;
- lists match exactly: same length, same order;
- a string holding ``{{`` is a Jinja template rendered with ``result`` (the actual value); it passes
  when the output, lower-cased, is ``"true"`` or equals the actual value, and a rendering error is a
  mismatch; other values compare with ``==``.

The helpers the files call (``is_datetime``, ``is_uuid``, ``regex_match``, ``env_var``...) and the
filters (``url_scheme_authority``, ``url_path``) are written here from that contract, so a team can
copy one of Airflow's files and load it unchanged. Jinja is imported only when a file is compared.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

__all__ = [
    "Absent",
    "AirflowExpectation",
    "expected_key",
    "group_expected",
    "is_airflow_format",
    "jinja_environment",
    "load_airflow_expected",
    "read_expected_document",
]

ABSENT_KEY = "$absent"
OPTIONAL_KEY = "$optional"
VALUE_KEY = "$value"


@dataclass(frozen=True)
class Absent:
    """``{"$absent": reason}``: no event may exist under the key."""

    reason: str


AirflowExpectation = Mapping[str, Any] | list[Mapping[str, Any]] | Absent
"""Under one key: one partial event (compared with the last event, exactly one expected), a list of
them (that many events, pairwise in order) or :class:`Absent`."""


def _true(ok: bool) -> str:
    return "true" if ok else "false"


def _any(result: Any) -> Any:
    """The value itself: rendered, it equals the actual value, so any value passes."""
    return result


def _is_numeric(result: Any) -> str:
    try:
        float(result)
    except (TypeError, ValueError, OverflowError):
        return "false"
    return "true"


def _is_datetime(result: Any) -> str:
    """What dateutil can parse (lenient, as the provider's files expect)."""
    from dateutil.parser import parse

    try:
        parse(result)
    except (TypeError, ValueError, OverflowError):
        return "false"
    return "true"


def _is_uuid(result: Any) -> str:
    try:
        uuid.UUID(result)
    except (TypeError, ValueError, AttributeError):
        return "false"
    return "true"


def _regex_match(result: Any, pattern: str) -> str:
    """``re.match``: anchored at the start only, as in the provider's files."""
    try:
        return _true(re.match(pattern, result) is not None)
    except (TypeError, re.error):
        return "false"


def _env_var(var: str, default: str | None = None) -> str:
    """An environment variable of the process comparing; without it and without a default, an error."""
    if var in os.environ:
        return os.environ[var]
    if default is not None:
        return default
    raise ValueError(f"environment variable {var!r} is not set and no default was given")


def _not_match(result: str, pattern: str) -> str:
    """Passes unless ``pattern`` occurs in ``result`` (a substring, not a regex): then an error."""
    if pattern in result:
        raise ValueError(f"found {pattern!r} in {result!r}")
    return "true"


def _url_scheme_authority(url: str) -> str:
    parsed = urlparse(url)
    return f"{parsed.scheme}://{parsed.netloc}"


def _url_path(url: str) -> str:
    return urlparse(url).path


HELPERS: dict[str, Any] = {
    "any": _any,
    "is_datetime": _is_datetime,
    "is_numeric": _is_numeric,
    "is_uuid": _is_uuid,
    "regex_match": _regex_match,
    "env_var": _env_var,
    "not_match": _not_match,
}
FILTERS: dict[str, Any] = {"url_scheme_authority": _url_scheme_authority, "url_path": _url_path}


def jinja_environment() -> Any:
    """A Jinja environment with the helpers and filters Airflow's expected-event files call."""
    from jinja2 import Environment

    env = Environment()  # renders checks, never HTML: no autoescaping
    env.globals.update(HELPERS)
    env.filters.update(FILTERS)
    return env


def is_airflow_format(document: Any) -> bool:
    """Airflow's files are a JSON array of events; this library's golden files a mapping of keys."""
    return isinstance(document, list)


def read_expected_document(path: str | os.PathLike[str]) -> Any:
    """The parsed content of an expected-events file: JSON, or YAML by suffix (this library's only)."""
    file = Path(path)
    text = file.read_text(encoding="utf-8")
    if file.suffix.lower() in (".yaml", ".yml"):
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


def expected_key(event: Mapping[str, Any]) -> str:
    """``job.name + ".event." + eventType`` lower-cased, the key Airflow's system tests file events by."""
    job = event.get("job")
    name = job.get("name") if isinstance(job, Mapping) else None
    event_type = event.get("eventType")
    if not isinstance(name, str) or not isinstance(event_type, str):
        raise ValueError(
            "every expected event needs job.name and eventType (strings) to build its key; got "
            f"{json.dumps(event, default=str)[:200]}"
        )
    return f"{name}.event.{event_type.lower()}"


def group_expected(events: Sequence[Any]) -> dict[str, AirflowExpectation]:
    """Key a file's events in file order: repeated keys become a list, ``$absent`` replaces the key."""
    grouped: dict[str, AirflowExpectation] = {}
    for index, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise ValueError(f"item {index} of the expected events is a {type(event).__name__}, not an event")
        key = expected_key(event)
        reason = event.get(ABSENT_KEY)
        if isinstance(reason, str):
            grouped[key] = Absent(reason)
            continue
        existing = grouped.get(key)
        if existing is None or isinstance(existing, Absent):
            grouped[key] = event
        elif isinstance(existing, list):
            existing.append(event)
        else:
            grouped[key] = [existing, event]
    return grouped


def load_airflow_expected(source: str | os.PathLike[str] | Sequence[Any]) -> dict[str, AirflowExpectation]:
    """The expectations of an Airflow expected-events file (a path, or its already parsed array)."""
    if isinstance(source, (str, os.PathLike)):
        document = read_expected_document(source)
        if not is_airflow_format(document):
            raise ValueError(f"{source}: not Airflow's format (a JSON array of events)")
        return group_expected(document)
    return group_expected(source)
