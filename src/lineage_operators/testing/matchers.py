"""Matchers for volatile values in expected OpenLineage events.

Every matcher has a Python form (``matchers.uuid()``) and a JSON form
(``{"$match": "uuid"}``) so one expectation can live in a test module or in a
JSON/YAML golden file.  :func:`decode` turns the JSON form into matcher objects,
:func:`encode` does the reverse; both leave plain values alone.

Placeholders (such as the test's base dir) are written ``${name}`` inside any
string, or ``{"$placeholder": "name"}`` for a whole value, and are resolved when
the comparison runs, so a golden file stays valid from one temp dir to the next.
``$${`` stands for a literal ``${``.

Size: one small class per matcher, each with its Python and JSON form; a matcher is looked
up by name from either form, so they live in one module.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

__all__ = [
    "ABSENT",
    "ANY",
    "ListMatcher",
    "Matcher",
    "Template",
    "UnknownPlaceholderError",
    "datetime",
    "decode",
    "encode",
    "has_template",
    "of_type",
    "placeholder",
    "regex",
    "render_template",
    "subset",
    "template",
    "unordered",
    "uuid",
]

MATCH_KEY = "$match"
PLACEHOLDER_KEY = "$placeholder"

Placeholders = Mapping[str, "str | os.PathLike[str]"]

_TEMPLATE_TOKEN = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ISO_DATETIME_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?"
)


class UnknownPlaceholderError(KeyError):
    """A ``${name}`` was used but no value for ``name`` was given; listed, never silently kept."""


def has_template(text: str) -> bool:
    """Whether ``text`` uses the ``${name}`` / ``$${`` syntax (and so is not a plain literal)."""
    return _TEMPLATE_TOKEN.search(text) is not None


def render_template(text: str, placeholders: Placeholders | None, *, escape: bool = False) -> str:
    """Substitute ``${name}`` in ``text``; ``escape`` regex-escapes the values (for regex patterns)."""
    values = placeholders or {}

    def _sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:  # "$${" escape
            return "\\$\\{" if escape else "${"
        if name not in values:
            known = ", ".join(sorted(values)) or "none"
            raise UnknownPlaceholderError(f"unknown placeholder ${{{name}}} (known placeholders: {known})")
        value = os.fspath(values[name])
        return re.escape(value) if escape else value

    return _TEMPLATE_TOKEN.sub(_sub, text)


def escape_literal(text: str) -> str:
    """Make a literal string safe to write where ``${...}`` would be read as a placeholder."""
    return text.replace("${", "$${")


class Matcher:
    """A value expectation that is not plain equality.

    ``check`` returns ``None`` when ``actual`` matches, else a short reason, so the
    comparison can list every failure instead of stopping at the first.
    """

    kind: ClassVar[str] = ""
    capture: str | None = None
    """Name binding the matched value: every matcher with the same name must see the same value
    (``{"$match": "uuid", "as": "etl.load"}``), e.g. a task's parent runId and its DAG's runId."""

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        raise NotImplementedError

    def to_json(self) -> Any:
        return self._with_capture({MATCH_KEY: self.kind})

    def _with_capture(self, out: dict[str, Any]) -> dict[str, Any]:
        if self.capture is not None:
            out["as"] = self.capture
        return out

    def _capture_repr(self) -> str:
        return "" if self.capture is None else f" as {self.capture!r}"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_json() == other.to_json()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))

    def __repr__(self) -> str:
        return f"<{self.kind}>"


class _AnyMatcher(Matcher):
    """Matches any value, as long as the key is present."""

    kind = "any"

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        return None


class _AbsentMatcher(Matcher):
    """Asserts that a key is NOT present; handled by the dict comparison itself."""

    kind = "absent"

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        return "expected the key to be absent"


class _UuidMatcher(Matcher):
    """A canonical (hyphenated) UUID string, optionally of one version (OL run ids are v7)."""

    kind = "uuid"

    def __init__(self, version: int | None = None, capture: str | None = None) -> None:
        self.version = version
        self.capture = capture

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        if not isinstance(actual, str) or not _UUID_RE.fullmatch(actual):
            return "not a UUID"
        if self.version is not None and int(actual[14], 16) != self.version:
            return f"not a version {self.version} UUID"
        return None

    def to_json(self) -> Any:
        out: dict[str, Any] = {MATCH_KEY: self.kind}
        if self.version is not None:
            out["version"] = self.version
        return self._with_capture(out)

    def __repr__(self) -> str:
        version = "" if self.version is None else f" v{self.version}"
        return f"<uuid{version}{self._capture_repr()}>"


def parse_iso_datetime(value: str) -> _dt.datetime | None:
    """Parse ISO 8601 the way OL producers write it (``Z`` suffix included, on Python 3.10 too)."""
    if not _ISO_DATETIME_RE.fullmatch(value):
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        return _dt.datetime.fromisoformat(text)
    except ValueError:
        # Python < 3.11 rejects some valid forms (e.g. 5-digit fractions); trim the fraction.
        trimmed = re.sub(r"[.,](\d+)", lambda m: "." + (m.group(1) + "000000")[:6], text)
        try:
            return _dt.datetime.fromisoformat(trimmed)
        except ValueError:
            return None


class _DateTimeMatcher(Matcher):
    """An ISO 8601 date-time string (what OL uses for eventTime and nominal times)."""

    kind = "datetime"

    def __init__(self, capture: str | None = None) -> None:
        self.capture = capture

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        if not isinstance(actual, str) or parse_iso_datetime(actual) is None:
            return "not an ISO 8601 date-time"
        return None

    def __repr__(self) -> str:
        return f"<datetime{self._capture_repr()}>"


class _RegexMatcher(Matcher):
    """A string that fully matches ``pattern``; ``${name}`` placeholders in it are escaped values."""

    kind = "regex"

    def __init__(self, pattern: str, capture: str | None = None) -> None:
        self.pattern = pattern
        self.capture = capture
        if not has_template(pattern):
            re.compile(pattern)  # fail at definition time on a bad pattern

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        if not isinstance(actual, str):
            return "not a string"
        try:
            pattern = render_template(self.pattern, placeholders, escape=True)
        except UnknownPlaceholderError as exc:
            return str(exc.args[0])
        if re.fullmatch(pattern, actual, flags=re.DOTALL) is None:
            return f"does not match regex {self.pattern!r}"
        return None

    def to_json(self) -> Any:
        return self._with_capture({MATCH_KEY: self.kind, "pattern": self.pattern})

    def __repr__(self) -> str:
        return f"<regex {self.pattern!r}{self._capture_repr()}>"


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (Mapping,),
    "array": (list, tuple),
    "null": (type(None),),
}


class _TypeMatcher(Matcher):
    """Any value of one JSON type: for volatile numbers such as durations."""

    kind = "type"

    def __init__(self, type_name: str, capture: str | None = None) -> None:
        if type_name not in _JSON_TYPES:
            raise ValueError(f"unknown JSON type {type_name!r}; use one of {sorted(_JSON_TYPES)}")
        self.type_name = type_name
        self.capture = capture

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        is_bool = isinstance(actual, bool)
        if self.type_name in ("number", "integer") and is_bool:
            return f"not of JSON type {self.type_name}"
        if not isinstance(actual, _JSON_TYPES[self.type_name]):
            return f"not of JSON type {self.type_name}"
        return None

    def to_json(self) -> Any:
        return self._with_capture({MATCH_KEY: self.kind, "type": self.type_name})

    def __repr__(self) -> str:
        return f"<{self.type_name}{self._capture_repr()}>"


class Template(Matcher):
    """A string containing ``${name}`` placeholders, equal to the actual value once rendered."""

    kind = "template"

    def __init__(self, template: str) -> None:
        self.template = template

    def render(self, placeholders: Placeholders | None) -> str:
        return render_template(self.template, placeholders)

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        try:
            expected = self.render(placeholders)
        except UnknownPlaceholderError as exc:
            return str(exc.args[0])
        if actual != expected:
            return f"differs from {expected!r}"
        return None

    def to_json(self) -> Any:
        return self.template  # the string itself is the JSON form

    def __repr__(self) -> str:
        return repr(self.template)


class ListMatcher(Matcher):
    """A list matched regardless of order: ``subset`` allows extra actual items, ``unordered`` not.

    The comparison engine handles it (it needs recursion); this class only carries the items.
    """

    kind = "list"

    def __init__(self, items: Sequence[Any], mode: str) -> None:
        if mode not in ("subset", "unordered"):
            raise ValueError(f"unknown list mode {mode!r}")
        if isinstance(items, (str, bytes, Mapping)):
            raise TypeError(f"{mode}() takes a list of expected items")
        self.items = list(items)
        self.mode = mode

    def check(self, actual: Any, placeholders: Placeholders | None = None) -> str | None:
        raise TypeError("ListMatcher is evaluated by the comparison engine")

    def to_json(self) -> Any:
        return {MATCH_KEY: self.mode, "items": [encode(i) for i in self.items]}

    def __repr__(self) -> str:
        return f"<{self.mode} of {len(self.items)} items>"


ANY: Matcher = _AnyMatcher()
"""Any value; the key must exist. JSON: ``{"$match": "any"}``."""

ABSENT: Matcher = _AbsentMatcher()
"""The key must not exist. JSON: ``{"$match": "absent"}``."""


def uuid(version: int | None = None, *, capture: str | None = None) -> Matcher:
    """Any UUID string. JSON: ``{"$match": "uuid"}`` (optionally ``"version": 7``, ``"as": name``).

    ``capture`` names the value: all matchers sharing the name must see the same UUID.
    """
    return _UuidMatcher(version, capture)


def datetime(*, capture: str | None = None) -> Matcher:
    """Any ISO 8601 date-time string. JSON: ``{"$match": "datetime"}``."""
    return _DateTimeMatcher(capture)


def regex(pattern: str, *, capture: str | None = None) -> Matcher:
    """A string fully matching ``pattern``. JSON: ``{"$match": "regex", "pattern": "..."}``."""
    return _RegexMatcher(pattern, capture)


def of_type(type_name: str, *, capture: str | None = None) -> Matcher:
    """Any value of a JSON type. JSON: ``{"$match": "type", "type": "number"}``."""
    return _TypeMatcher(type_name, capture)


def placeholder(name: str) -> Template:
    """The whole value equals placeholder ``name``. JSON: ``{"$placeholder": "name"}``."""
    return Template("${" + name + "}")


def template(text: str) -> Template:
    """A string with ``${name}`` placeholders; plain strings with ``${`` are read the same way."""
    return Template(text)


def subset(items: Sequence[Any]) -> ListMatcher:
    """Each expected item must match a distinct actual item; extra actual items are allowed.

    JSON: ``{"$match": "subset", "items": [...]}``.
    """
    return ListMatcher(items, "subset")


def unordered(items: Sequence[Any]) -> ListMatcher:
    """Same items in any order, no extras. JSON: ``{"$match": "unordered", "items": [...]}``."""
    return ListMatcher(items, "unordered")


def _decode_match(obj: Mapping[str, Any]) -> Matcher:
    kind = obj[MATCH_KEY]
    extra = set(obj) - {MATCH_KEY}

    def _only(*allowed: str) -> None:
        unknown = extra - set(allowed)
        if unknown:
            raise ValueError(f"{{'$match': {kind!r}}} does not take {sorted(unknown)}")

    if kind == "any":
        _only()
        return ANY
    if kind == "absent":
        _only()
        return ABSENT
    capture = obj.get("as")
    if kind == "uuid":
        _only("version", "as")
        return uuid(obj.get("version"), capture=capture)
    if kind == "datetime":
        _only("as")
        return datetime(capture=capture)
    if kind == "regex":
        _only("pattern", "as")
        return regex(obj["pattern"], capture=capture)
    if kind == "type":
        _only("type", "as")
        return of_type(obj["type"], capture=capture)
    if kind in ("subset", "unordered"):
        _only("items")
        return ListMatcher([decode(i) for i in obj.get("items", [])], kind)
    raise ValueError(
        f"unknown matcher {{'$match': {kind!r}}}; known: any, absent, uuid, datetime, regex, type, "
        "subset, unordered"
    )


def decode(obj: Any) -> Any:
    """Turn the JSON form of an expectation into matcher objects (matcher objects pass through)."""
    if isinstance(obj, Matcher):
        return obj
    if isinstance(obj, str):
        return Template(obj) if has_template(obj) else obj
    if isinstance(obj, Mapping):
        if MATCH_KEY in obj:
            return _decode_match(obj)
        if PLACEHOLDER_KEY in obj:
            if len(obj) != 1:
                raise ValueError("{'$placeholder': name} takes no other keys")
            return placeholder(obj[PLACEHOLDER_KEY])
        return {k: decode(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [decode(v) for v in obj]
    return obj


def encode(obj: Any) -> Any:
    """Turn matcher objects back into their JSON form, for writing golden files."""
    if isinstance(obj, Matcher):
        return obj.to_json()
    if isinstance(obj, Mapping):
        return {k: encode(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [encode(v) for v in obj]
    return obj
