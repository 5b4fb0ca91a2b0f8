"""Validating events against the official OpenLineage JSON schemas.

The schemas are not bundled: they are read from a spec directory holding
``OpenLineage.json`` and ``facets/*.json`` (``OPENLINEAGE_SPEC_DIR``, or found by walking
up from the working directory to a ``shared/openlineage-spec``).  Every facet is checked
against its own facet schema when the spec defines one for that facet name and place
(run, job, dataset, input, output); other (custom) facets only against the base facet
definition (``_producer`` and ``_schemaURL`` required).
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SPEC_DIR_ENV_VAR",
    "SpecNotFoundError",
    "find_spec_dir",
    "schema_errors",
    "validate_event",
    "validate_events",
]

SPEC_DIR_ENV_VAR = "OPENLINEAGE_SPEC_DIR"
_BASE_REF = re.compile(
    r"OpenLineage\.json#/\$defs/(RunFacet|JobFacet|DatasetFacet|InputDatasetFacet|OutputDatasetFacet)$"
)


class SpecNotFoundError(RuntimeError):
    """No OpenLineage spec directory: validation must not pass silently without schemas."""


def find_spec_dir(start: str | os.PathLike[str] | None = None) -> Path:
    """``$OPENLINEAGE_SPEC_DIR``, else the nearest ``shared/openlineage-spec`` above ``start`` (cwd)."""
    env = os.environ.get(SPEC_DIR_ENV_VAR)
    if env:
        path = Path(env)
        if not (path / "OpenLineage.json").is_file():
            raise SpecNotFoundError(f"{SPEC_DIR_ENV_VAR}={env} has no OpenLineage.json")
        return path
    here = Path(start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "shared" / "openlineage-spec"
        if (candidate / "OpenLineage.json").is_file():
            return candidate
    raise SpecNotFoundError(
        f"no OpenLineage spec found: set {SPEC_DIR_ENV_VAR} to a directory holding OpenLineage.json and "
        f"facets/*.json, or keep it at shared/openlineage-spec in {here} or a parent directory"
    )


@dataclass(frozen=True)
class _Spec:
    registry: Any
    root_id: str
    # (facet place, facet name) -> schema reference
    facets: Mapping[tuple[str, str], str]


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _place_of(definition: Any) -> str | None:
    """Which base facet a facet definition extends (``allOf: [{$ref: ...#/$defs/RunFacet}]``)."""
    for item in definition.get("allOf", []) if isinstance(definition, Mapping) else []:
        ref = item.get("$ref", "") if isinstance(item, Mapping) else ""
        match = _BASE_REF.search(ref)
        if match:
            return match.group(1)
    return None


@functools.lru_cache(maxsize=4)
def _load_spec(spec_dir: str) -> _Spec:
    from referencing import Registry, Resource

    root_path = Path(spec_dir) / "OpenLineage.json"
    root = json.loads(root_path.read_text(encoding="utf-8"))
    root_id = root["$id"]
    resources = [(root_id, Resource.from_contents(root))]
    facet_refs: dict[tuple[str, str], str] = {}
    aliases: set[str] = set()
    for file in sorted((Path(spec_dir) / "facets").glob("*.json")):
        schema = json.loads(file.read_text(encoding="utf-8"))
        schema_id = schema.get("$id", file.as_uri())
        resources.append((schema_id, Resource.from_contents(schema)))
        defs = schema.get("$defs", {})
        places = {name: _place_of(d) for name, d in defs.items()}
        for facet_name, prop in schema.get("properties", {}).items():
            referenced = [r.split("#/$defs/", 1)[1] for r in _refs(prop) if r.startswith("#/$defs/")]
            placed = [(places.get(d), d) for d in referenced if places.get(d)]
            if not placed:  # e.g. "subset": a base def whose input/output variants carry the place
                placed = [(p, d) for d, p in places.items() if p]
            for place, definition in placed:
                key = (str(place), facet_name)
                facet_refs[key] = f"{schema_id}#/$defs/{definition}"
        aliases.update(r.split("#", 1)[0] for r in _refs(schema) if "OpenLineage.json" in r)
    # facet files may point at another OpenLineage.json version than the one in the spec dir
    resources.extend((alias, Resource.from_contents(root)) for alias in aliases - {root_id})
    registry = Registry().with_resources(resources)
    return _Spec(registry=registry, root_id=root_id, facets=facet_refs)


@functools.lru_cache(maxsize=256)
def _validator(spec_dir: str, ref: str) -> Any:
    from jsonschema import Draft202012Validator

    spec = _load_spec(spec_dir)
    return Draft202012Validator(
        {"$ref": ref}, registry=spec.registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def _leaves(error: Any) -> Iterator[Any]:
    """The innermost errors: anyOf/oneOf wrappers only say 'not valid under any schema'."""
    if error.context:
        for sub in error.context:
            yield from _leaves(sub)
    else:
        yield error


def _format_path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(event)"


def _facet_locations(event: Mapping[str, Any]) -> Iterator[tuple[str, tuple[Any, ...], Any]]:
    """(place, path, facets dict) for every facet container of a run, job or dataset event."""

    def facets(obj: Any, key: str) -> Any:
        return obj.get(key) if isinstance(obj, Mapping) and isinstance(obj.get(key), Mapping) else None

    for place, path, container in (
        ("RunFacet", ("run", "facets"), facets(event.get("run"), "facets")),
        ("JobFacet", ("job", "facets"), facets(event.get("job"), "facets")),
        ("DatasetFacet", ("dataset", "facets"), facets(event.get("dataset"), "facets")),
    ):
        if container is not None:
            yield place, path, container
    for side, extra_key, extra_place in (
        ("inputs", "inputFacets", "InputDatasetFacet"),
        ("outputs", "outputFacets", "OutputDatasetFacet"),
    ):
        datasets = event.get(side)
        for index, dataset in enumerate(datasets if isinstance(datasets, list) else []):
            for key, place in (("facets", "DatasetFacet"), (extra_key, extra_place)):
                container = facets(dataset, key)
                if container is not None:
                    yield place, (side, index, key), container


def _event_def(event: Mapping[str, Any]) -> str:
    if "run" in event or "eventType" in event:
        return "RunEvent"
    return "DatasetEvent" if "dataset" in event else "JobEvent"


def schema_errors(event: Mapping[str, Any], *, spec_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Every schema violation of one event, as ``path: message`` strings (empty when valid)."""
    directory = str(Path(spec_dir) if spec_dir is not None else find_spec_dir())
    spec = _load_spec(directory)
    seen: set[tuple[str, str]] = set()
    errors: list[str] = []

    def add(path: str, message: str) -> None:
        if (path, message) not in seen:
            seen.add((path, message))
            errors.append(f"{path}: {message}")

    for error in _validator(directory, f"{spec.root_id}#/$defs/{_event_def(event)}").iter_errors(event):
        for leaf in _leaves(error):
            add(_format_path(leaf.absolute_path), leaf.message)
    for place, path, container in _facet_locations(event):
        for name, facet in container.items():
            ref = spec.facets.get((place, name))
            if ref is None:
                continue  # custom facet: the event schema already checked it against the base facet
            for error in _validator(directory, ref).iter_errors(facet):
                for leaf in _leaves(error):
                    add(_format_path((*path, name, *leaf.absolute_path)), leaf.message)
    return errors


def validate_event(event: Mapping[str, Any], *, spec_dir: str | os.PathLike[str] | None = None) -> None:
    """Raise ``AssertionError`` listing every schema violation of ``event``."""
    errors = schema_errors(event, spec_dir=spec_dir)
    if errors:
        raise AssertionError("OpenLineage event is not valid:\n  " + "\n  ".join(errors))


def validate_events(events: Any, *, spec_dir: str | os.PathLike[str] | None = None) -> None:
    """Validate keyed events (``load_events``/``run_dag`` output), a path, or event dicts.

    One ``AssertionError`` lists every violation of every event, prefixed by its key.
    """
    from lineage_operators.testing.compare import coerce_events

    keyed = coerce_events(events)
    problems: list[str] = []
    for key in keyed:
        group = keyed[key]
        for index, event in enumerate(group):
            label = key if len(group) == 1 else f"{key}[{index}]"
            problems.extend(f"{label}: {e}" for e in schema_errors(event, spec_dir=spec_dir))
    if problems:
        raise AssertionError(f"{len(problems)} OpenLineage schema error(s):\n  " + "\n  ".join(problems))
