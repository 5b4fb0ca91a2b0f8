"""load_events and event keys: every FileTransport layout, ordering, Airflow job naming."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
from openlineage.client.transport.file import FileConfig, FileTransport

from lineage_operators.testing import event_key, load_events
from lineage_operators.testing.events import read_event_file

SAMPLE = Path(__file__).parent / "harness_fixtures" / "sample_events.jsonl"
SAMPLE_KEYS = {
    "etl.daily.event.start",
    "etl.daily.event.complete",
    "etl.daily.extract.event.start",
    "etl.daily.extract.event.complete",
    "etl.daily.load.event.start",
    "etl.daily.load.event.complete",
}


def _sample() -> list[dict[str, Any]]:
    return read_event_file(SAMPLE)


def test_jsonl_file_is_keyed_by_dag_and_task_even_with_dots_in_the_dag_id() -> None:
    events = load_events(SAMPLE)

    assert set(events) == SAMPLE_KEYS
    assert all(len(v) == 1 for v in events.values())
    assert events["etl.daily.event.start"][0]["job"]["name"] == "etl.daily"
    assert events["etl.daily.load.event.complete"][0]["eventType"] == "COMPLETE"


def test_directory_of_pretty_and_compact_one_event_files(tmp_path: Path) -> None:
    for index, event in enumerate(_sample()):
        indent = 2 if index % 2 else None
        (tmp_path / f"events-{index:03d}.json").write_text(json.dumps(event, indent=indent))

    assert load_events(tmp_path) == load_events(SAMPLE)


def test_real_file_transport_without_append_pretty_debug_mode(tmp_path: Path) -> None:
    """append: false writes <log_file_path>-<timestamp>[...].json files next to the configured path."""
    prefix = tmp_path / "ol" / "events"
    prefix.parent.mkdir()
    for debug in (False, True):
        transport = FileTransport(FileConfig(log_file_path=str(prefix), append=False, debug_mode=debug))
        for state in (RunState.START, RunState.COMPLETE):
            transport.emit(
                RunEvent(
                    eventType=state,
                    eventTime=f"2024-01-01T00:00:0{int(debug)}.{state == RunState.COMPLETE:d}+00:00",
                    run=Run(runId=f"0190a1b2-0000-7000-8000-00000000000{int(debug)}"),
                    job=Job(namespace="test", name=f"job{int(debug)}"),
                    producer="https://example.com/producer",
                )
            )
    files = sorted(p.name for p in prefix.parent.iterdir())
    assert any(name.endswith("-job1-START.json") for name in files), files

    by_prefix = load_events(prefix)
    assert by_prefix == load_events(prefix.parent)
    assert set(by_prefix) == {f"job{i}.event.{t}" for i in (0, 1) for t in ("start", "complete")}


def test_appended_pretty_events_in_one_file(tmp_path: Path) -> None:
    """debug_mode pretty-prints even with append: true, so one file holds multi-line objects."""
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e, indent=2) + "\n" for e in _sample()))

    assert load_events(path) == load_events(SAMPLE)


def test_iterable_of_event_dicts() -> None:
    assert load_events(iter(_sample())) == load_events(SAMPLE)


def test_events_are_ordered_by_event_time_then_file_order() -> None:
    base = _sample()[1]
    events = []
    for second, marker in ((3, "c"), (1, "a"), (2, "b1"), (2, "b2")):
        event = copy.deepcopy(base)
        event["eventTime"] = f"2024-01-01T00:00:0{second}Z" if marker != "b2" else "2024-01-01T00:00:02+00:00"
        event["marker"] = marker
        events.append(event)

    ordered = load_events(events)["etl.daily.extract.event.start"]
    assert [e["marker"] for e in ordered] == ["a", "b1", "b2", "c"]


def test_event_key_uses_airflow_facets_not_dots() -> None:
    task_event = copy.deepcopy(load_events(SAMPLE)["etl.daily.extract.event.complete"][0])
    # a job name that would split wrongly: the facets still say dag "etl.daily", task "extract"
    task_event["job"]["name"] = "renamed.job"
    assert event_key(task_event) == "etl.daily.extract.event.complete"

    dag_event = load_events(SAMPLE)["etl.daily.event.complete"][0]
    assert event_key(dag_event) == "etl.daily.event.complete"


def test_event_key_for_other_producers_and_event_kinds() -> None:
    query = {"eventType": "START", "run": {"runId": "x", "facets": {}}, "job": {"name": "d.t.query.1"}}
    assert event_key(query) == "d.t.query.1.event.start"
    assert event_key({"job": {"name": "j"}}) == "j.job_event"
    assert event_key({"dataset": {"namespace": "file", "name": "/x"}}) == "file:/x.dataset_event"


def test_missing_source(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no OpenLineage event files"):
        load_events(tmp_path / "nothing.jsonl")
    assert load_events(tmp_path / "nothing.jsonl", missing_ok=True) == {}


def test_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"eventType": "START"}\n{"eventType": START}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: not valid JSON"):
        load_events(path)
