"""Golden files: write -> load -> match round trips, update mode, stability and preserved edits.

These tests exercise the matcher machinery on whole events (``LINEAGE_GOLDEN_FULL=1``); the default
lineage-only files are tested in test_harness_golden_lineage.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.testing import (
    assert_events_match,
    assert_events_match_file,
    load_events,
    load_expected,
    matchers,
    write_expected,
)
from lineage_operators.testing.events import read_event_file
from lineage_operators.testing.golden import FULL_ENV_VAR, UPDATE_ENV_VAR, normalize_string, set_update_mode

SAMPLE = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
BASE = "/tmp/lineage-base"
PLACEHOLDERS = {"base_dir": BASE}
EXTRACT = "etl.daily.extract.event.complete"


@pytest.fixture(autouse=True)
def _full_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FULL_ENV_VAR, "1")


def _events(base: str = BASE) -> dict[str, list[dict[str, Any]]]:
    """The sample run's events, as if its outputs had been written under ``base``."""
    text = SAMPLE.read_text().replace(BASE, base)
    return load_events(json.loads(line) for line in text.splitlines())


def _fails(callable_: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AssertionError) as info:
        callable_(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("name", ["golden.json", "golden.yaml"])
def test_write_load_match_round_trip_across_base_dirs(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    write_expected(path, _events(), placeholders=PLACEHOLDERS)

    expected = load_expected(path)
    assert_events_match(_events(), expected, placeholders=PLACEHOLDERS, allow_extra_keys=False)
    # another run, another temp dir: still matches once the placeholder follows
    assert_events_match(_events("/tmp/run-2"), expected, placeholders={"base_dir": "/tmp/run-2"})
    assert_events_match_file(_events("/tmp/run-2"), path, placeholders={"base_dir": "/tmp/run-2"})


def test_golden_content_replaces_volatile_values(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    write_expected(path, _events(), placeholders=PLACEHOLDERS)
    doc = json.loads(path.read_text())
    event = doc[EXTRACT]

    assert list(doc) == sorted(doc)
    assert event["eventTime"] == {"$match": "datetime"}
    assert event["run"]["runId"] == {"$match": "uuid", "as": "etl.daily.extract"}
    assert event["run"]["facets"]["parent"]["run"]["runId"] == {"$match": "uuid", "as": "etl.daily"}
    assert doc["etl.daily.event.start"]["run"]["runId"] == {"$match": "uuid", "as": "etl.daily"}
    assert event["outputs"][0]["name"] == "${base_dir}/staging/orders"
    assert [i["name"] for i in event["inputs"]] == ["/data/raw/orders.csv", "raw/customers"]
    assert event["producer"]["$match"] == "regex"
    assert "providers-openlineage/[0-9]" in event["producer"]["pattern"]
    assert event["run"]["facets"]["processing_engine"]["version"]["$match"] == "regex"
    # Airflow's own attribute dumps and per-facet _producer/_schemaURL are left out
    assert "airflow" not in event["run"]["facets"]
    assert "airflowDagRun" not in doc["etl.daily.event.complete"]["run"]["facets"]
    assert "_producer" not in event["run"]["facets"]["parent"]
    assert "_schemaURL" not in event["outputs"][0]["facets"]["schema"]


def test_writing_is_stable(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    write_expected(path, _events(), placeholders=PLACEHOLDERS)
    first = path.read_text()
    shuffled = read_event_file(SAMPLE)[::-1]
    for event in shuffled:
        event["inputs"] = event["inputs"][::-1]
    write_expected(path, shuffled, placeholders=PLACEHOLDERS, preserve=False)
    assert path.read_text() == first
    assert first.endswith("}\n")


def test_changed_event_fails_against_golden_naming_key_and_path(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    write_expected(path, _events(), placeholders=PLACEHOLDERS)
    changed = _events()
    changed[EXTRACT][0]["outputs"][0]["facets"]["schema"]["fields"][1]["type"] = "string"
    changed[EXTRACT][0]["inputs"][0]["name"] = "/data/raw/orders_v2.csv"

    message = _fails(assert_events_match_file, changed, path, placeholders=PLACEHOLDERS)
    assert f"do not match golden file {path}" in message
    assert (
        f"{EXTRACT}: outputs[namespace=file,name={BASE}/staging/orders].facets.schema.fields[1].type"
        in message
    )
    assert f"{EXTRACT}: inputs[namespace=file,name=/data/raw/orders.csv]: missing dataset" in message
    assert f"{EXTRACT}: inputs[namespace=file,name=/data/raw/orders_v2.csv]: unexpected dataset" in message
    assert "--lineage-update-golden" in message


def test_run_id_linkage_is_checked_by_the_golden_file(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    write_expected(path, _events(), placeholders=PLACEHOLDERS)
    changed = _events()
    changed[EXTRACT][0]["run"]["runId"] = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"

    message = _fails(assert_events_match_file, changed, path, placeholders=PLACEHOLDERS)
    assert "captured as 'etl.daily.extract'" in message


def test_new_event_key_fails_a_golden_file_by_default(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    events = _events()
    write_expected(path, events, placeholders=PLACEHOLDERS, keys=[EXTRACT])
    assert list(json.loads(path.read_text())) == [EXTRACT]

    assert_events_match_file(events, path, placeholders=PLACEHOLDERS, keys=[EXTRACT])
    message = _fails(assert_events_match_file, events, path, placeholders=PLACEHOLDERS)
    assert "etl.daily.load.event.complete: unexpected event" in message
    assert_events_match_file(events, path, placeholders=PLACEHOLDERS, allow_extra_keys=True)


def test_missing_golden_file_explains_how_to_create_it(tmp_path: Path) -> None:
    message = _fails(assert_events_match_file, _events(), tmp_path / "nope.json")
    assert "does not exist; run pytest with --lineage-update-golden" in message
    assert f"{UPDATE_ENV_VAR}=1" in message


def test_update_mode_rewrites_the_file_and_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "golden.json"
    path.write_text('{"etl.daily.extract.event.complete": {"eventType": "START"}}\n')

    assert_events_match_file(_events(), path, placeholders=PLACEHOLDERS, update=True)
    assert json.loads(path.read_text())[EXTRACT]["eventType"] == "COMPLETE"

    path.unlink()
    monkeypatch.setenv(UPDATE_ENV_VAR, "1")
    assert_events_match_file(_events(), path, placeholders=PLACEHOLDERS)
    assert path.exists()
    monkeypatch.delenv(UPDATE_ENV_VAR)

    path.unlink()
    set_update_mode(True)  # what --lineage-update-golden does
    try:
        assert_events_match_file(_events(), path, placeholders=PLACEHOLDERS)
    finally:
        set_update_mode(False)
    assert path.exists()
    assert_events_match_file(_events(), path, placeholders=PLACEHOLDERS, update=False)


def test_update_keeps_hand_edits_that_still_match(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    write_expected(path, _events(), placeholders=PLACEHOLDERS)
    doc = json.loads(path.read_text())
    extract = doc[EXTRACT]
    extract["inputs"][0]["name"] = {"$match": "regex", "pattern": r"/data/raw/.*\.csv"}
    del extract["run"]["facets"]["nominalTime"]
    extract["outputs"][0]["facets"]["schema"]["fields"] = {"$match": "subset", "items": [{"name": "id"}]}
    doc["etl.daily.extract.event.fail"] = {"$match": "absent"}
    path.write_text(json.dumps(doc, indent=2))

    changed = _events()
    load = changed["etl.daily.load.event.complete"][0]
    load["outputs"][0]["name"] = "shop.public.orders_v2"
    assert_events_match_file(changed, path, placeholders=PLACEHOLDERS, update=True)

    updated = json.loads(path.read_text())
    assert updated[EXTRACT] == extract  # still matched: kept exactly as edited
    assert updated["etl.daily.extract.event.fail"] == {"$match": "absent"}
    assert updated["etl.daily.load.event.complete"]["outputs"][0]["name"] == "shop.public.orders_v2"
    assert_events_match_file(changed, path, placeholders=PLACEHOLDERS)


def test_load_expected_binds_placeholders_early(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    path.write_text(json.dumps({"k.event.start": {"a": "${base_dir}/x", "b": {"$placeholder": "base_dir"}}}))

    assert load_expected(path, placeholders={"base_dir": "/b"}) == {"k.event.start": {"a": "/b/x", "b": "/b"}}
    assert load_expected(path)["k.event.start"]["a"] == matchers.template("${base_dir}/x")
    with pytest.raises(KeyError, match=r"unknown placeholder \$\{base_dir\}"):
        load_expected(path, placeholders={"other": "/o"})


def test_load_expected_rejects_non_mapping(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    path.write_text("[]")
    with pytest.raises(ValueError, match="mapping of event keys"):
        load_expected(path)


@pytest.mark.parametrize(
    ("value", "versioned", "expected"),
    [
        ("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", False, matchers.uuid()),
        ("2024-05-01T10:00:00.5+00:00", False, matchers.datetime()),
        ("2024-05-01", False, "2024-05-01"),  # a date alone is data (a partition), not a timestamp
        ("3.3.2", True, matchers.regex("[0-9][0-9A-Za-z.+-]*")),
        ("3.3.2", False, "3.3.2"),
        (f"{BASE}/out", False, "${base_dir}/out"),
        ("cost: ${x}", False, "cost: $${x}"),
        (
            "manual__2024-05-01T10:00:00+00:00",
            False,
            matchers.regex(
                r"manual__\d{4}-\d{2}-\d{2}[T ]\d{2}(?::|%3A)\d{2}(?:(?::|%3A)\d{2}(?:\.\d+)?)?"
                r"(?:Z|(?:[+-]|%2B)\d{2}(?:(?::|%3A)?\d{2})?)?"
            ),
        ),
    ],
)
def test_normalize_string(value: str, versioned: bool, expected: Any) -> None:
    assert normalize_string(value, placeholders=[("base_dir", BASE)], versioned=versioned) == expected


def test_volatile_token_and_placeholder_in_one_string_give_a_regex_with_the_placeholder() -> None:
    normalized = normalize_string(
        f"{BASE}/run-0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.parquet", placeholders=[("base_dir", BASE)]
    )
    assert isinstance(normalized, matchers.Matcher)
    assert normalized.to_json()["pattern"].startswith("${base_dir}/run-")
    actual = {"k.event.start": [{"v": "/tmp/other/run-0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c.parquet"}]}
    assert_events_match(actual, {"k.event.start": {"v": normalized}}, placeholders={"base_dir": "/tmp/other"})


def test_several_events_under_one_key_are_written_as_a_list(tmp_path: Path) -> None:
    events = _events()
    retry = copy.deepcopy(events[EXTRACT][0])
    retry["run"]["runId"] = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    events[EXTRACT].append(retry)
    path = tmp_path / "golden.json"
    write_expected(path, events, placeholders=PLACEHOLDERS)

    doc = json.loads(path.read_text())
    assert [e["run"]["runId"]["as"] for e in doc[EXTRACT]] == ["etl.daily.extract", "etl.daily.extract#2"]
    assert_events_match_file(events, path, placeholders=PLACEHOLDERS)


def test_machine_dependent_values_are_written_as_type_matchers(tmp_path):
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2026-01-01T00:00:00+00:00",
        "job": {"namespace": "ns", "name": "d.t"},
        "run": {
            "runId": "01a1fd39-cc00-77b1-aaa9-5e1492520e28",
            "facets": {
                "spark_applicationDetails": {"applicationId": "local-1795251120361", "appName": "d.t"}
            },
        },
        "outputs": [
            {
                "namespace": "file",
                "name": "/x",
                "outputFacets": {"outputStatistics": {"rowCount": 3, "size": 1981}},
            }
        ],
    }
    path = tmp_path / "golden.json"
    write_expected(path, [event])
    written = json.loads(path.read_text())["d.t.event.complete"]
    details = written["run"]["facets"]["spark_applicationDetails"]
    assert details == {"applicationId": {"$match": "type", "type": "string"}, "appName": "d.t"}
    stats = written["outputs"][0]["outputFacets"]["outputStatistics"]
    assert stats == {"rowCount": 3, "size": {"$match": "type", "type": "number"}}
