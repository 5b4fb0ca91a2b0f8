"""Validating events against the official OpenLineage JSON schemas.

The schemas are not bundled.  By default each event is checked against the schema its
``schemaURL`` names and each facet against its ``_schemaURL``, downloaded on first use and
cached on disk (:mod:`lineage_operators.testing.schema_cache`), so later runs work offline.
With ``OPENLINEAGE_SPEC_DIR`` (or ``spec_dir=``) the schemas are read from a directory holding
``OpenLineage.json`` and ``facets/*.json`` instead, and each facet is checked against the
spec's schema for that facet name and place (run, job, dataset, input, output).  This package's
own facets are checked, in both modes, against the schema the package ships
(:mod:`lineage_operators.testing.packaged_schemas`; their URL is never fetched). Other facets
whose schema is not part of the OpenLineage spec (custom facets) are checked only against the
base facet definition (``_producer`` and ``_schemaURL`` required).
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

from lineage_operators.testing.compare import coerce_events
from lineage_operators.testing.packaged_schemas import (
    is_own_schema_url,
    packaged_resources,
    packaged_schemas,
    schema_refs,
)
from lineage_operators.testing.schema_cache import (
    MIRROR_ENV_VAR,
    SPEC_URL_PREFIX,
    SchemaUnavailableError,
    cache_dir,
    load_schema,
)

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


def find_spec_dir() -> Path | None:
    """``$OPENLINEAGE_SPEC_DIR`` when set (it must hold ``OpenLineage.json``), else ``None`` (by URL)."""
    env = os.environ.get(SPEC_DIR_ENV_VAR)
    if not env:
        return None
    path = Path(env)
    if not (path / "OpenLineage.json").is_file():
        raise SpecNotFoundError(f"{SPEC_DIR_ENV_VAR}={env} has no OpenLineage.json")
    return path


def _unavailable(error: Exception) -> SpecNotFoundError:
    return SpecNotFoundError(
        f"validate_events needs the OpenLineage JSON schemas and cannot get them: {error}. "
        f"Run once with internet access (they are then cached in {cache_dir()}), or set "
        f"{SPEC_DIR_ENV_VAR} to a folder holding OpenLineage.json and facets/*.json "
        f"(OpenLineage's spec/ folder), or {MIRROR_ENV_VAR} to a mirror of {SPEC_URL_PREFIX}"
    )


@functools.lru_cache(maxsize=1)
def _url_registry() -> Any:
    """A registry that resolves every ``$ref`` URL through the download cache."""
    from referencing import Registry, Resource

    def retrieve(uri: str) -> Any:
        return Resource.from_contents(load_schema(uri))

    registry = Registry(retrieve=retrieve)  # type: ignore[call-arg]
    return registry.with_resources(packaged_resources())


@functools.lru_cache(maxsize=512)
def _url_validator(ref: str, cache: str) -> Any:
    """Validator for one schema URL (with its ``#/$defs/...`` fragment); ``cache`` keys the cache dir."""
    from jsonschema import Draft202012Validator

    if not is_own_schema_url(ref):  # this package's schemas are packaged, never downloaded
        load_schema(ref)  # fail here, with the download error, rather than deep inside jsonschema
    return Draft202012Validator(
        {"$ref": ref}, registry=_url_registry(), format_checker=Draft202012Validator.FORMAT_CHECKER
    )


@dataclass(frozen=True)
class _Spec:
    registry: Any
    root_id: str
    # (facet place, facet name) -> schema reference
    facets: Mapping[tuple[str, str], str]


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
            referenced = [r.split("#/$defs/", 1)[1] for r in schema_refs(prop) if r.startswith("#/$defs/")]
            placed = [(places.get(d), d) for d in referenced if places.get(d)]
            if not placed:  # e.g. "subset": a base def whose input/output variants carry the place
                placed = [(p, d) for d, p in places.items() if p]
            for place, definition in placed:
                key = (str(place), facet_name)
                facet_refs[key] = f"{schema_id}#/$defs/{definition}"
        aliases.update(r.split("#", 1)[0] for r in schema_refs(schema) if "OpenLineage.json" in r)
    # facet files may point at another OpenLineage.json version than the one in the spec dir
    resources.extend((alias, Resource.from_contents(root)) for alias in aliases - {root_id})
    resources.extend(packaged_resources(root))  # this package's custom facets
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


def _collect(
    errors: list[str], seen: set[tuple[str, str]], validator: Any, instance: Any, prefix: tuple[Any, ...]
) -> None:
    for error in validator.iter_errors(instance):
        for leaf in _leaves(error):
            path, message = _format_path((*prefix, *leaf.absolute_path)), leaf.message
            if (path, message) not in seen:
                seen.add((path, message))
                errors.append(f"{path}: {message}")


def _dir_errors(event: Mapping[str, Any], directory: str) -> list[str]:
    spec = _load_spec(directory)
    seen: set[tuple[str, str]] = set()
    errors: list[str] = []
    _collect(errors, seen, _validator(directory, f"{spec.root_id}#/$defs/{_event_def(event)}"), event, ())
    for place, path, container in _facet_locations(event):
        for name, facet in container.items():
            ref = spec.facets.get((place, name)) or _own_ref(facet, errors, (*path, name))
            if ref is not None:  # else custom facet: the event schema checked it against the base facet
                _collect(errors, seen, _validator(directory, ref), facet, (*path, name))
    return errors


def _own_ref(facet: Any, errors: list[str], path: tuple[Any, ...]) -> str | None:
    """The ``_schemaURL`` of one of this package's facets when its schema is packaged.

    A URL under this package's schema folder whose file is not packaged is an error: the event
    names a schema nobody can read.
    """
    ref = facet.get("_schemaURL") if isinstance(facet, Mapping) else None
    if not isinstance(ref, str) or not is_own_schema_url(ref):
        return None
    if ref.split("#", 1)[0] not in packaged_schemas() or "#" not in ref:
        errors.append(f"{_format_path(path)}._schemaURL: {ref!r} names no packaged lineage_operators schema")
        return None
    return ref


def _url_errors(event: Mapping[str, Any]) -> list[str]:
    url = event.get("schemaURL")
    if not isinstance(url, str) or "#" not in url:
        return [f"schemaURL: missing or without a '#/$defs/...' fragment ({url!r}): cannot pick its schema"]
    cache = str(cache_dir())
    seen: set[tuple[str, str]] = set()
    errors: list[str] = []
    try:
        _collect(errors, seen, _url_validator(url, cache), event, ())
        for _place, path, container in _facet_locations(event):
            for name, facet in container.items():
                ref = facet.get("_schemaURL") if isinstance(facet, Mapping) else None
                if isinstance(ref, str) and ref.startswith(SPEC_URL_PREFIX) and "#" in ref:
                    _collect(errors, seen, _url_validator(ref, cache), facet, (*path, name))
                elif (own := _own_ref(facet, errors, (*path, name))) is not None:
                    _collect(errors, seen, _url_validator(own, cache), facet, (*path, name))
    except SchemaUnavailableError as exc:
        raise _unavailable(exc) from exc
    return errors


def schema_errors(event: Mapping[str, Any], *, spec_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Every schema violation of one event, as ``path: message`` strings (empty when valid)."""
    directory = Path(spec_dir) if spec_dir is not None else find_spec_dir()
    if directory is None:
        return _url_errors(event)
    return _dir_errors(event, str(directory))


def validate_event(event: Mapping[str, Any], *, spec_dir: str | os.PathLike[str] | None = None) -> None:
    """Raise ``AssertionError`` listing every schema violation of ``event``."""
    errors = schema_errors(event, spec_dir=spec_dir)
    if errors:
        raise AssertionError("OpenLineage event is not valid:\n  " + "\n  ".join(errors))


def validate_events(events: Any, *, spec_dir: str | os.PathLike[str] | None = None) -> None:
    """Validate keyed events (``load_events``/``run_dag`` output), a path, or event dicts.

    One ``AssertionError`` lists every violation of every event, prefixed by its key.
    """
    keyed = coerce_events(events)
    problems: list[str] = []
    for key in keyed:
        group = keyed[key]
        for index, event in enumerate(group):
            label = key if len(group) == 1 else f"{key}[{index}]"
            problems.extend(f"{label}: {e}" for e in schema_errors(event, spec_dir=spec_dir))
    if problems:
        raise AssertionError(f"{len(problems)} OpenLineage schema error(s):\n  " + "\n  ".join(problems))
