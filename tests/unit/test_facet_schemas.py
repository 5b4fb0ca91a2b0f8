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


def test_every_custom_facet_and_packaged_schema_is_covered() -> None:
    """CUSTOM above lists every facet class of the package and every packaged schema."""
    import attr
    from openlineage.client.facet_v2 import BaseFacet

    from lineage_operators.testing.packaged_schemas import packaged_schemas

    classes = {
        name
        for name, value in vars(f).items()
        if isinstance(value, type)
        and issubclass(value, BaseFacet)
        and attr.has(value)
        and value.__module__ == f.__name__
    }
    assert classes == {type(x).__name__ for x in CUSTOM}
    packaged = {name for schema in packaged_schemas().values() for name in schema["$defs"]}
    assert packaged == classes


def _event_with_custom_facets(**changes: Any) -> dict[str, Any]:
    """A real provider event carrying the package's custom run facets (``changes`` patch them)."""
    from pathlib import Path

    from lineage_operators.testing import load_events

    sample = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
    event = load_events(sample)["etl.daily.extract.event.complete"][0]
    for facet in CUSTOM:
        data = Serde.to_dict(facet)
        key = (
            "lineageOperators"
            if isinstance(facet, f.LineageOperatorsRunFacet)
            else "spark_applicationDetails"
        )
        event["run"]["facets"][key] = {**data, **changes.get(key, {})}
    return event


BROKEN = {"lineageOperators": {"version": 3}, "spark_applicationDetails": {"master": ["local"]}}
BROKEN_MESSAGES = [
    "run.facets.lineageOperators.version: 3 is not of type 'string'",
    "run.facets.spark_applicationDetails.master: ['local'] is not of type 'string'",
]


def test_harness_validates_custom_facets_from_the_packaged_schemas() -> None:
    """With the spec folder: our facets are checked against their packaged schema, not only the base."""
    from lineage_operators.testing.schema import schema_errors

    assert schema_errors(_event_with_custom_facets()) == []
    errors = schema_errors(_event_with_custom_facets(**BROKEN))
    assert sorted(errors) == BROKEN_MESSAGES


def test_harness_never_fetches_the_custom_schema_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Without the spec folder (schemas by URL): only OpenLineage's schemas are downloaded."""
    import urllib.request

    from tests.support.schema_server import serve_spec, spec_dir

    from lineage_operators.testing import schema as harness
    from lineage_operators.testing.schema_cache import CACHE_ENV_VAR, MIRROR_ENV_VAR

    spec = spec_dir()
    fetched: list[str] = []
    real_urlopen = urllib.request.urlopen

    def urlopen(url: Any, *args: Any, **kwargs: Any) -> Any:
        fetched.append(str(url))
        return real_urlopen(url, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    monkeypatch.delenv("OPENLINEAGE_SPEC_DIR")
    monkeypatch.setenv(CACHE_ENV_VAR, str(tmp_path))
    harness._url_validator.cache_clear()
    with serve_spec(spec) as server:
        monkeypatch.setenv(MIRROR_ENV_VAR, server.mirror_url)
        assert harness.schema_errors(_event_with_custom_facets()) == []
        assert sorted(harness.schema_errors(_event_with_custom_facets(**BROKEN))) == BROKEN_MESSAGES
    assert fetched, "OpenLineage's own schemas come from the mirror"
    assert all(u.startswith(server.mirror_url) for u in fetched), fetched
    harness._url_validator.cache_clear()


def test_a_custom_schema_url_that_is_not_packaged_is_an_error() -> None:
    from lineage_operators.testing.schema import schema_errors

    missing = f.custom_schema_url("NoSuchRunFacet")
    errors = schema_errors(_event_with_custom_facets(lineageOperators={"_schemaURL": missing}))
    assert errors == [
        f"run.facets.lineageOperators._schemaURL: {missing!r} names no packaged lineage_operators schema"
    ]
