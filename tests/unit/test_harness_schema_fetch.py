"""validate_events without OPENLINEAGE_SPEC_DIR: schemas named by the events, downloaded once, cached.

The download goes to a local HTTP server serving the spec folder (tests/support/schema_server.py)
through LINEAGE_OPERATORS_SCHEMA_MIRROR; the cache goes to a temporary folder.
"""

from __future__ import annotations

import copy
import socket
from pathlib import Path

import pytest
from tests.support.schema_server import serve_spec, spec_dir

from lineage_operators.testing import SpecNotFoundError, load_events, validate_events
from lineage_operators.testing.schema import SPEC_DIR_ENV_VAR, find_spec_dir, schema_errors
from lineage_operators.testing.schema_cache import CACHE_ENV_VAR, MIRROR_ENV_VAR, cache_path

SAMPLE = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
EXTRACT = "etl.daily.extract.event.complete"


@pytest.fixture
def spec() -> Path:
    return spec_dir()


@pytest.fixture
def by_url(spec: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No spec folder: schemas come by URL into an empty cache."""
    monkeypatch.delenv(SPEC_DIR_ENV_VAR)
    cache = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV_VAR, str(cache))
    return cache


def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_schemas_are_downloaded_once_then_used_offline(
    spec: Path, by_url: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = load_events(SAMPLE)
    event = events[EXTRACT][0]
    with serve_spec(spec) as server:
        monkeypatch.setenv(MIRROR_ENV_VAR, server.mirror_url)
        validate_events(events)
    assert any(r.endswith("/OpenLineage.json") for r in server.requests)
    assert any("/spec/facets/" in r for r in server.requests)
    assert len(server.requests) == len(set(server.requests))  # each schema fetched once
    # cached under its original URL, versioned by the URL's path
    assert cache_path(event["schemaURL"]).is_file()
    assert str(cache_path(event["schemaURL"])).startswith(str(by_url / "openlineage.io" / "spec"))

    # offline: the mirror is gone, validation still works and still finds errors
    monkeypatch.setenv(MIRROR_ENV_VAR, f"http://127.0.0.1:{_dead_port()}/spec/")
    validate_events(events)
    broken = copy.deepcopy(event)
    broken["outputs"][0]["facets"]["schema"]["fields"] = "id long"
    del broken["producer"]
    errors = schema_errors(broken)
    assert "outputs[0].facets.schema.fields: 'id long' is not of type 'array'" in errors
    assert "(event): 'producer' is a required property" in errors


def test_no_network_and_no_cache_is_one_clear_message(by_url: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MIRROR_ENV_VAR, f"http://127.0.0.1:{_dead_port()}/spec/")
    with pytest.raises(SpecNotFoundError) as info:
        validate_events(load_events(SAMPLE))
    message = str(info.value)
    assert "cannot get them" in message
    assert SPEC_DIR_ENV_VAR in message
    assert str(by_url) in message
    assert message.count("could not download") == 1


def test_the_spec_folder_is_never_searched_for_above_the_working_directory(
    by_url: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An unrelated shared/openlineage-spec above the cwd must not be picked up silently."""
    (tmp_path / "shared" / "openlineage-spec").mkdir(parents=True)
    nested = tmp_path / "project" / "tests"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    assert find_spec_dir() is None


def test_spec_dir_from_env_must_hold_the_schema(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(SPEC_DIR_ENV_VAR, str(tmp_path))
    with pytest.raises(SpecNotFoundError, match=r"has no OpenLineage\.json"):
        find_spec_dir()
