"""The package's own facets: their ``_schemaURL`` names a schema shipped inside the package."""

from __future__ import annotations

import json
from importlib import resources
from importlib.metadata import version
from typing import Any

import pytest

pytest.importorskip("openlineage.client")

from jsonschema import Draft202012Validator
from openlineage.client.serde import Serde
from referencing import Registry, Resource

from lineage_operators import facets as f
from lineage_operators._version import __version__
from lineage_operators.testing.schema import find_spec_dir

CUSTOM = [
    f.spark_application_details_facet(master="local[2]", appName="app", applicationId="local-1"),
    f.lineage_operators_facet(),
]


def _shipped(url: str) -> tuple[dict[str, Any], str]:
    """The packaged schema file a ``_schemaURL`` points at, and the fragment's definition name."""
    assert url.startswith(f.SCHEMA_BASE_URL), url
    document, _, fragment = url.partition("#")
    relative = document.removeprefix(f.SCHEMA_BASE_URL)
    text = resources.files("lineage_operators").joinpath("schemas", *relative.split("/")).read_text()
    return json.loads(text), fragment


@pytest.mark.parametrize("facet", CUSTOM, ids=lambda x: type(x).__name__)
def test_custom_facet_schema_is_packaged_and_validates(facet: Any) -> None:
    data = Serde.to_dict(facet)
    schema, fragment = _shipped(data["_schemaURL"])
    assert schema["$id"] == data["_schemaURL"].partition("#")[0]
    assert fragment.startswith("/$defs/")
    spec = json.loads((find_spec_dir() / "OpenLineage.json").read_text())
    registry = Registry().with_resources(
        [(spec["$id"], Resource.from_contents(spec)), (schema["$id"], Resource.from_contents(schema))]
    )
    validator = Draft202012Validator({"$ref": data["_schemaURL"]}, registry=registry)
    assert list(validator.iter_errors(data)) == []
    bad = {**data, "_producer": 3}
    assert list(validator.iter_errors(bad)), "the packaged schema must reject a broken facet"


def test_processing_engine_reports_the_openlineage_client_version() -> None:
    engine = f.processing_engine_facet("4.0.1")
    assert engine.openlineageAdapterVersion == version("openlineage-python")
    assert f.lineage_operators_facet().version == __version__
