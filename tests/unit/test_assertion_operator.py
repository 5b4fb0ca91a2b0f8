"""The assertion operator without a deployment: what parsing it does, how it waits and what it checks
(the scheduler run is in tests/system/test_assertion_dag.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lineage_operators.testing import event_store
from lineage_operators.testing.assertion import AssertLineageOperator, after_keys, wait_for_events
from lineage_operators.testing.event_store import EventStore

ROOT = Path(__file__).resolve().parents[2]
DAG_FILE = ROOT / "tests/system/dags_assertion/lineage_assertion.py"
HEAVY = ("pyspark", "py4j", "openlineage", "airflow.providers.openlineage")


@pytest.fixture(autouse=True)
def _no_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_store, "_requested", set())


def _parse_report(statement: str) -> dict[str, Any]:
    report = (
        "import json, sys; from lineage_operators.testing.event_store import requested_dag_ids; "
        f"print(json.dumps({{'modules': sorted(m for m in sys.modules if m.startswith({HEAVY!r})), "
        "'requested': sorted(requested_dag_ids())}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", f"{statement}\n{report}"], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_parsing_a_dag_with_the_operator_loads_nothing_heavy_and_asks_for_its_events():
    baseline = _parse_report("import runpy; runpy.run_path('tests/unit/dags/plain_python_dag.py')")
    parsed = _parse_report(f"import runpy; runpy.run_path({str(DAG_FILE)!r})")
    assert set(parsed["modules"]) <= set(baseline["modules"])  # Airflow's provider discovery only
    assert not [m for m in parsed["modules"] if m.startswith(("pyspark", "py4j", "openlineage"))]
    assert parsed["requested"] == ["lineage_assertion"]
    assert baseline["requested"] == []


def test_only_an_operator_inside_a_dag_asks(tmp_path: Path):
    from airflow.sdk import DAG

    AssertLineageOperator(task_id="loose", expected=tmp_path / "x.json")
    assert event_store.requested_dag_ids() == frozenset()
    with DAG("asks", schedule=None):
        AssertLineageOperator(task_id="check", expected="expected/x.json")
    assert event_store.requested_dag_ids() == {"asks"}
    with pytest.raises(TypeError, match="path of an expected-events file"):
        AssertLineageOperator(task_id="bad", expected={"d.event.start": {}})  # type: ignore[arg-type]


def test_a_relative_expected_path_is_taken_from_the_dag_files_folder(tmp_path: Path):
    from airflow.sdk import DAG

    with DAG("relative", schedule=None) as dag:
        relative = AssertLineageOperator(task_id="check", expected="expected/x.json")
        absolute = AssertLineageOperator(task_id="check2", expected=tmp_path / "x.json")
    assert relative.expected_path() == Path(dag.fileloc).parent / "expected/x.json"
    assert absolute.expected_path() == tmp_path / "x.json"
    assert relative.retries == 0  # the events would not change on a retry


def test_after_keys():
    assert after_keys("d", "check") == {
        "d.check.event.complete",
        "d.check.event.fail",
        "d.check.event.abort",
        "d.event.complete",
        "d.event.fail",
        "d.event.abort",
    }


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_waiting_returns_as_soon_as_every_key_has_its_events():
    clock = FakeClock()
    arrivals = [{}, {"a": [1]}, {"a": [1], "b": [1]}, {"a": [1], "b": [1, 2]}]
    reads = iter(arrivals)
    events = wait_for_events(lambda: next(reads), {"a": 1, "b": 2}, 10.0, clock=clock, sleep=clock.sleep)
    assert events == {"a": [1], "b": [1, 2]}
    assert clock.now == 1.5


def test_waiting_gives_up_at_the_timeout_with_what_arrived():
    clock = FakeClock()
    events = wait_for_events(lambda: {"a": [1]}, {"a": 1, "b": 1}, 3.0, clock=clock, sleep=clock.sleep)
    assert events == {"a": [1]}
    assert clock.now == 3.0


def _store_run(directory: Path) -> None:
    event_store.request_events("d")
    store = EventStore(directory)
    for name, event_type, second in (("d.t", "START", 1), ("d.t", "COMPLETE", 2), ("d.check", "START", 3)):
        task_id = name.split(".")[1]
        facets = {
            "airflow": {"dag": {"dag_id": "d"}, "dagRun": {"run_id": "r1"}, "task": {"task_id": task_id}}
        }
        store.handle(
            {
                "eventType": event_type,
                "eventTime": f"2026-01-01T00:00:0{second}+00:00",
                "job": {"namespace": "default", "name": name},
                "run": {"runId": "019b76da-a800-711e-9eac-faf9db95b822", "facets": facets},
                "outputs": [{"namespace": "file", "name": "/data/out"}] if event_type == "COMPLETE" else [],
            }
        )


def _execute(operator: AssertLineageOperator) -> None:
    operator.execute({"dag_run": SimpleNamespace(dag_id="d", run_id="r1")})


def test_execute_passes_on_matching_events_and_skips_what_happens_later(tmp_path: Path):
    _store_run(tmp_path / "store")
    golden = tmp_path / "golden.json"  # written by a run_dag run: holds the keys of later events too
    golden.write_text(
        json.dumps(
            {
                "d.t.event.start": {"job": {"namespace": "${namespace}"}},
                "d.t.event.complete": {"outputs": [{"namespace": "file", "name": "${base}/out"}]},
                "d.check.event.start": {},
                "d.check.event.complete": {},
                "d.event.complete": {},
            }
        )
    )
    operator = AssertLineageOperator(
        task_id="check", expected=golden, directory=tmp_path / "store", placeholders={"base": "/data"}
    )
    _execute(operator)
    airflow_file = tmp_path / "airflow.json"
    airflow_file.write_text(
        json.dumps(
            [
                {
                    "eventType": "COMPLETE",
                    "job": {"name": "d.t"},
                    "outputs": [{"name": "{{ result.endswith('/out') }}"}],
                },
                {"eventType": "FAIL", "job": {"name": "d.t"}, "$absent": "t succeeds"},
            ]
        )
    )
    _execute(
        AssertLineageOperator(task_id="check", expected=airflow_file, directory=tmp_path / "store", timeout=0)
    )


def test_execute_fails_with_the_harness_report(tmp_path: Path):
    _store_run(tmp_path / "store")
    airflow_file = tmp_path / "airflow.json"
    airflow_file.write_text(
        json.dumps(
            [
                {"eventType": "COMPLETE", "job": {"name": "d.t"}, "outputs": [{"name": "/data/other"}]},
                {"eventType": "START", "job": {"name": "d.missing"}},
            ]
        )
    )
    operator = AssertLineageOperator(
        task_id="check", expected=airflow_file, directory=tmp_path / "store", timeout=0
    )
    with pytest.raises(AssertionError) as failure:
        _execute(operator)
    report = str(failure.value)
    assert report.startswith(f"OpenLineage events do not match Airflow expected-events file {airflow_file}: ")
    assert '  d.t.event.complete: outputs[0].name: value differs\n      expected: "/data/other"\n' in report
    assert "  d.missing.event.start: missing event" in report
    # a golden snapshot fails on an event key it does not list
    golden = tmp_path / "golden.json"
    golden.write_text(json.dumps({"d.t.event.start": {}, "d.t.event.complete": {}}))
    with pytest.raises(AssertionError, match=r"d\.check\.event\.start: unexpected event"):
        _execute(AssertLineageOperator(task_id="check", expected=golden, directory=tmp_path / "store"))


def test_the_store_comes_from_the_configured_transport(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from lineage_operators.testing.assertion import _configured_directory

    store = {"type": "lineage_operators.testing.EventStoreTransport", "directory": str(tmp_path / "store")}
    composite = {"type": "composite", "transports": {"console": {"type": "console"}, "assertions": store}}
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", json.dumps(composite))
    assert _configured_directory() == str(tmp_path / "store")
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", json.dumps({"type": "console"}))
    with pytest.raises(RuntimeError, match="EventStoreTransport"):
        _configured_directory()
