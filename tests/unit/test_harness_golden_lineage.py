"""Default golden files: the lineage only, environment values as placeholders, short diffs on failure."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.testing import assert_events_match_file, load_events, write_expected
from lineage_operators.testing.golden import FULL_ENV_VAR, LINEAGE_FACETS

SAMPLE = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
BASE = "/tmp/lineage-base"
EXTRACT = "etl.daily.extract.event.complete"


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FULL_ENV_VAR, raising=False)
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__NAMESPACE", "sample")  # the namespace of the sample events


def _events() -> dict[str, list[dict[str, Any]]]:
    events = load_events(SAMPLE)
    output = events[EXTRACT][0]["outputs"][0]
    output["facets"]["columnLineage"] = {
        "_producer": "https://example.com/p",
        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
        "fields": {"id": {"inputFields": [{"namespace": "file", "name": "/in", "field": "id"}]}},
    }
    output["outputFacets"] = {"outputStatistics": {"rowCount": 3, "size": 123}}
    return events


def test_written_file_holds_only_the_lineage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "golden.json"
    write_expected(path, _events(), placeholders={"base_dir": BASE})
    event = json.loads(path.read_text())[EXTRACT]

    assert set(event) == {"eventType", "job", "inputs", "outputs"}
    assert event["job"] == {"namespace": "${namespace}", "name": "etl.daily.extract"}
    for dataset in event["inputs"] + event["outputs"]:
        assert set(dataset) <= {"namespace", "name", "facets"}
        assert set(dataset.get("facets", {})) <= set(LINEAGE_FACETS)
    assert "columnLineage" in event["outputs"][0]["facets"]
    assert "_producer" not in json.dumps(event)
    monkeypatch.setenv(FULL_ENV_VAR, "1")
    full = tmp_path / "full.json"
    write_expected(full, _events(), placeholders={"base_dir": BASE})
    assert len(path.read_text().splitlines()) * 3 < len(full.read_text().splitlines())


def test_full_snapshot_on_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FULL_ENV_VAR, "1")
    path = tmp_path / "golden.json"
    write_expected(path, _events(), placeholders={"base_dir": BASE})
    event = json.loads(path.read_text())[EXTRACT]
    assert "run" in event
    assert "outputStatistics" in event["outputs"][0]["outputFacets"]


def test_job_namespace_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "golden.json"
    write_expected(path, _events(), placeholders={"base_dir": BASE})
    elsewhere = json.loads(json.dumps(_events()).replace('"namespace": "sample"', '"namespace": "prod"'))
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__NAMESPACE", "prod")
    assert_events_match_file(elsewhere, path, placeholders={"base_dir": BASE})

    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__NAMESPACE", "sample")  # events from another namespace fail
    with pytest.raises(AssertionError, match=r"job\.namespace"):
        assert_events_match_file(elsewhere, path, placeholders={"base_dir": BASE})


def test_a_changed_facet_is_shown_as_a_short_diff(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    events = _events()
    write_expected(path, events, placeholders={"base_dir": BASE})
    changed = copy.deepcopy(events)
    fields = changed[EXTRACT][0]["outputs"][0]["facets"]["schema"]["fields"]
    fields.append({"name": "added_column", "type": "string", "description": "x" * 80})
    with pytest.raises(AssertionError) as info:
        assert_events_match_file(changed, path, placeholders={"base_dir": BASE})
    message = str(info.value)
    assert "--- expected" in message
    assert "+++ actual" in message
    assert any(line.strip().startswith("+") and "added_column" in line for line in message.splitlines())
    assert max(len(line) for line in message.splitlines()) < 200
