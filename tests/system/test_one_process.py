"""Issue 20: many tasks in one process (``dag.test()`` through the harness, and ``airflow dags test``),
configured with ``[openlineage] extractors = SparkCaptureExtractor``: every task reports exactly its own
datasets, once; every task after a capture fault or a hang succeeds on a working session; no file
is left in the temporary folder; Spark's own log lines of a session the operator launched hold no
secret (the suite-wide canary scan reads them too: the test prints them)."""

from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tests.support.canary import CANARY, leaked
from tests.system.conftest import EXTRACTOR, LOGICAL_DATE, load_dag_file, rebuild_extractors
from tests.system.test_unmodified_tasks_cli import airflow_dags_test

from lineage_operators.testing import validate_events

DAG_FILE = Path(__file__).parent / "dags" / "one_process.py"
TASKS = ("operator", "drain_fault", "hang", "plain", "taskflow", "decorated", "no_spark")
FAULTS = ("drain_fault", "hang")


def expected(base_dir: Path) -> dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]]:
    """(inputs, outputs) each task touched."""

    def ids(*names: str) -> list[tuple[str, str]]:
        return sorted(("file", f"{base_dir}/{name}") for name in names)

    return {
        "operator": ([], ids("operator/out")),
        "drain_fault": ([], ids("drain_fault/out")),
        "hang": ([], ids("hang/out")),
        "plain": (ids("plain/a"), ids("plain/a", "plain/b")),
        "taskflow": (ids("taskflow/a"), ids("taskflow/a", "taskflow/b")),
        "decorated": (ids("plain/a"), ids("decorated/c")),
        "no_spark": ([], []),
    }


def _ids(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((d["namespace"], d["name"]) for d in datasets)


def assert_each_task_has_its_own_lineage(events: Any, base_dir: Path) -> None:
    wanted = expected(base_dir)
    for task_id in TASKS:
        inputs, outputs = wanted[task_id]
        starts = events.get(f"one_process.{task_id}.event.start")
        completes = events.get(f"one_process.{task_id}.event.complete")
        assert starts, (task_id, sorted(events))
        assert completes, (task_id, sorted(events))
        for event in (starts[-1], completes[-1]):
            for direction, own in (("inputs", inputs), ("outputs", outputs)):
                found = _ids(event[direction])
                assert not [k for k, n in Counter(found).items() if n > 1], (task_id, direction, found)
                assert set(found) <= set(own), (task_id, event["eventType"], direction, found)
        complete = completes[-1]
        if task_id not in FAULTS:  # a fault may lose its own datasets, never another task's
            assert (_ids(complete["inputs"]), _ids(complete["outputs"])) == (inputs, outputs), task_id


def assert_spark_was_left_clean(base_dir: Path) -> None:
    """What the task after the hang found: the operator's session fully stopped, on time."""
    state = json.loads((base_dir / "plain" / "state.json").read_text())
    assert state == {"active_context": False, "callback_server": False, "stop_threads": []}


def _wait_for_reader_threads(timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while any(t.name == "lineage-reader" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.1)


def test_mixed_tasks_in_dag_test_keep_their_own_lineage(run_dag, base_dir: Path, monkeypatch, tmp_path: Path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # this process's temporary folder
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXTRACTORS", EXTRACTOR)
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT", "10")  # a loaded machine
    monkeypatch.setenv("LINEAGE_TEST_INJECT_FAULTS", "1")
    monkeypatch.setenv("LINEAGE_TEST_HANG_S", "90")
    rebuild_extractors()
    dag_module = load_dag_file(DAG_FILE, "__dict__")  # one module: its faults, its release
    try:
        result = run_dag(dag_module["dag"], logical_date=LOGICAL_DATE)
    finally:
        dag_module["remove_faults"]()
        rebuild_extractors()
    validate_events(result)
    assert result.task_states == dict.fromkeys(TASKS, "success"), result.task_states
    assert_each_task_has_its_own_lineage(result, base_dir)
    assert_spark_was_left_clean(base_dir)
    _wait_for_reader_threads()  # the released hang finishes its read, unseen
    assert sorted(p.name for p in scratch.iterdir()) == []


def test_mixed_tasks_in_airflow_dags_test_keep_their_own_lineage(
    tmp_path: Path, base_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setenv("LINEAGE_TEST_INJECT_FAULTS", "1")
    monkeypatch.setenv("LINEAGE_TEST_HANG_S", "20")
    timeout = {"AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT": "10"}  # a loaded machine
    events = airflow_dags_test(
        Path(sys.executable), "one_process", tmp_path, base_dir, dag_files=(DAG_FILE,), airflow_env=timeout
    )
    assert_each_task_has_its_own_lineage(events, base_dir)
    assert_spark_was_left_clean(base_dir)
    assert sorted(p.name for p in scratch.iterdir() if p.name.startswith("lineage-")) == []


def test_spark_log_lines_of_a_session_the_operator_launched_are_masked(
    tmp_path: Path, base_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    """A canary in a path Spark warns about and in a UDF's exception: Spark's own log4j lines (the
    executor's and the scheduler's included) print them masked in the task's log."""
    monkeypatch.setenv("LINEAGE_TEST_CANARY", CANARY)
    airflow_dags_test(Path(sys.executable), "spark_log_canary", tmp_path, base_dir, dag_files=(DAG_FILE,))
    log = (tmp_path / "airflow-dags-test.log").read_text()
    sys.stderr.write(log)  # for the suite-wide canary scan of captured output
    spark_lines = [
        line for line in log.splitlines() if " ERROR Executor" in line or " WARN TaskSetManager" in line
    ]
    assert spark_lines, log[-3000:]  # the UDF's failure reached Spark's log
    assert "password=***" in log
    assert "All paths were ignored" in log  # Spark printed the path too
    assert leaked([log]) == []
