"""The JSON schemas of this package's own facets, read from the package for offline validation.

A custom facet's ``_schemaURL`` names a file of ``lineage_operators/schemas/<version>/`` at its
path in the source repository (see docs/events.md). The harness validates such a facet against the
packaged file whose ``$id`` is that URL: the URL itself is never fetched, so validation needs no
network and checks exactly the schema the installed package ships.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any

__all__ = ["is_own_schema_url", "packaged_resources", "packaged_schemas", "schema_refs"]


@functools.lru_cache(maxsize=1)
def packaged_schemas() -> Mapping[str, Any]:
    """``$id`` -> schema document, for every ``lineage_operators/schemas/*/*.json``."""
    found: dict[str, Any] = {}
    root = resources.files("lineage_operators").joinpath("schemas")
    for version in sorted(root.iterdir(), key=lambda p: p.name):
        if not version.is_dir():
            continue
        for file in sorted(version.iterdir(), key=lambda p: p.name):
            if file.name.endswith(".json"):
                document = json.loads(file.read_text(encoding="utf-8"))
                found[str(document["$id"])] = document
    return found


@functools.lru_cache(maxsize=1)
def _own_prefixes() -> frozenset[str]:
    """``.../schemas/``: the base every packaged ``$id`` shares (a URL under it is ours)."""
    return frozenset(schema_id.rsplit("/", 2)[0] + "/" for schema_id in packaged_schemas())


def is_own_schema_url(url: str) -> bool:
    """A ``_schemaURL`` naming one of this package's schemas (packaged or not)."""
    return any(url.startswith(prefix) for prefix in _own_prefixes())


def schema_refs(node: Any) -> Iterator[str]:
    """Every ``$ref`` value inside a schema document."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from schema_refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from schema_refs(value)


def packaged_resources(openlineage_root: Any = None) -> list[tuple[str, Any]]:
    """``referencing`` resources of the packaged schemas.

    With ``openlineage_root`` (the spec folder's ``OpenLineage.json``), every ``OpenLineage.json``
    URL the packaged schemas refer to resolves to it, as the spec folder's facet files do.
    """
    from referencing import Resource

    pairs = [(schema_id, Resource.from_contents(doc)) for schema_id, doc in packaged_schemas().items()]
    if openlineage_root is not None:
        aliases = {
            ref.split("#", 1)[0]
            for doc in packaged_schemas().values()
            for ref in schema_refs(doc)
            if "OpenLineage.json" in ref
        }
        pairs.extend((alias, Resource.from_contents(openlineage_root)) for alias in sorted(aliases))
    return pairs
