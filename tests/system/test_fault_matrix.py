"""The fault matrix: what an operations team tries before rollout, on real Airflow (dag.test()),
the real OpenLineage provider and real Spark. Faults inside capture are injected by wrapping one
library function; everything around them is real. Numbers refer to the items of issue 14."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from tests.support.canary import CANARY, CANARY_USER, leaked
from tests.system.conftest import LOGICAL_DATE, all_text, dataset_ids, final_event, load_dag_file

from lineage_operators import LineageAwarePySparkOperator
from lineage_operators._logging import current_task

DAGS = Path(__file__).parent / "dags" / "fault_matrix.py"


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch, base_dir: Path) -> Path:
    monkeypatch.setenv("LINEAGE_TEST_CANARY", CANARY)
    monkeypatch.setenv("AIRFLOW_CONN_FM_CONNECT", f"spark-connect://{CANARY_USER}:{CANARY}@127.0.0.1:1")
    monkeypatch.setenv("AIRFLOW_CONN_FM_POSTGRES", f"postgres://u:{CANARY}@127.0.0.1:5432/shop")
    monkeypatch.setenv("AIRFLOW_CONN_FM_UNDERSCORE", "spark_connect://127.0.0.1:15002")
    monkeypatch.setenv(
        "AIRFLOW_CONN_FM_BAD_EXTRA",
        json.dumps({"conn_type": "spark", "host": "local[1]", "extra": {"spark_conf": "spark.x=1"}}),
    )
    return base_dir


def _messages(caplog: pytest.LogCaptureFixture, prefix: str = "", level: int = logging.DEBUG) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith(prefix) and r.levelno >= level]


def _error(result: Any, dag_id: str, task_id: str) -> dict[str, Any]:
    event = final_event(result, dag_id, task_id)
    assert event["eventType"] == "FAIL", event["eventType"]
    return event["run"]["facets"]["errorMessage"]


def _rendered_fields(dag_id: str) -> dict[str, Any]:
    from airflow.models.renderedtifields import RenderedTaskInstanceFields
    from airflow.utils.session import create_session

    with create_session() as session:
        rows = session.query(RenderedTaskInstanceFields).filter_by(dag_id=dag_id).all()
        return {row.task_id: row.rendered_fields for row in rows}


def test_secrets_planted_everywhere_reach_no_event_log_or_rendered_field(run_dag, planted: Path, caplog):
    caplog.set_level(logging.INFO)
    result = run_dag(load_dag_file(DAGS, "secrets_dag"), logical_date=LOGICAL_DATE)
    assert result.task_states == {"planted": "success", "connect_token": "failed"}

    # 1: opening the Connect session failed; its error held the URL with token and user id
    error = _error(result, "fault_secrets", "connect_token")
    assert "cannot be configured together" in error["message"]
    assert "token=***" in error["message"]
    assert "user_id=***" in error["message"]
    # 2: the recorder's warning about lineage.add_input("jdbc:mysql://u:<pw>@...") (the declared
    # inputs= JDBC URL is warned about in the provider's forked child: see test_mixin)
    warnings = _messages(caplog, "lineage_operators", logging.WARNING)
    assert any("could not record dataset 'jdbc:mysql://db:3306/shop'" in m for m in warnings), warnings
    # 3: the rendered template fields Airflow stores (the UI's "Rendered Template" tab)
    rendered = _rendered_fields("fault_secrets")["planted"]
    assert rendered["config_kwargs"]["spark.lineage.test.day"] == "2026-01-01"
    assert rendered["config_kwargs"]["spark.lineage.test.credentials"] == "***"
    assert "password=***" in rendered["config_kwargs"]["spark.lineage.test.url"]
    assert "password=***" in json.dumps(rendered["inputs"])
    # 4: Spark's own redaction covers plan text in sessions the operator creates
    plan = (planted / "plan.txt").read_text()
    assert "redacted" in plan
    # no canary anywhere: events, log records, rendered fields, Spark's plan text
    texts = [all_text(result), plan, json.dumps(rendered), *(r.getMessage() for r in caplog.records)]
    assert leaked(texts) == []
    complete = final_event(result, "fault_secrets", "planted")
    assert dataset_ids(complete["outputs"]) == [("file", f"{planted}/secrets_out")]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"master": 7077}, "master must be a string"),
        ({"master": "nonsense://"}, "master 'nonsense://' is not a Spark master URL"),
        ({"capture_lineage": "no"}, "capture_lineage must be True or False"),
        (
            {"master": f"sc://h:1/;token={CANARY}", "capture_lineage": 1},
            "capture_lineage must be True or False",
        ),
    ],
)
def test_bad_arguments_fail_at_definition(arguments: dict[str, Any], expected: str):
    from airflow.sdk import DAG

    with (
        DAG("fault_definition", schedule=None, start_date=datetime(2026, 1, 1)),
        pytest.raises((TypeError, ValueError)) as raised,
    ):
        LineageAwarePySparkOperator(task_id="t", python_callable=print, **arguments)
    assert expected in str(raised.value)
    assert leaked([str(raised.value)]) == []


def test_bad_connections_and_templated_master_fail_at_start_of_execute(run_dag, planted: Path):
    result = run_dag(load_dag_file(DAGS, "bad_input_dag"))
    assert set(result.task_states.values()) == {"failed"}
    expected = {
        "wrong_conn_type": "conn_id 'fm_postgres' is a connection of type 'postgres', expected a 'spark'",
        "unparseable_conn": "conn_id 'fm_underscore' is a connection of type '(none)'",
        "spark_conf_not_a_dict": "conn_id 'fm_bad_extra': extra 'spark_conf' must be a JSON object",
        "templated_master": "master 'nonsense://' is not a Spark master URL",
    }
    for task_id, sentence in expected.items():
        error = _error(result, "fault_bad_input", task_id)
        assert sentence in error["message"], (task_id, error["message"])
        assert "at org.apache" not in error.get("stackTrace", ""), task_id  # before Spark started
    assert leaked([all_text(result)]) == []


@pytest.fixture
def injected_faults(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """6: a facet builder raises for one dataset; 9: handing an execution over to its reading (on
    the reader thread, from the JVM's queue) raises in task `raising`; 8: plan reading (on the
    reader thread) hangs in task `hang` until the returned event is set (at most 90 s)."""
    from lineage_operators import facets
    from lineage_operators.spark.capture.classic import SparkLineageCapture
    from lineage_operators.spark.plan.reader import PlanReader

    release = threading.Event()
    schema_facet, on_execution, read = facets.schema_facet, SparkLineageCapture._on_execution, PlanReader.read

    def bad_schema(text: str) -> Any:
        if "boom" in text:
            raise RuntimeError("facet builder bug")
        return schema_facet(text)

    def raising(self: Any, *args: Any) -> None:
        if (current_task() or "").endswith(".raising"):
            raise RuntimeError("hand-over bug")
        on_execution(self, *args)

    def hanging(self: Any, *args: Any) -> Any:
        if (current_task() or "").endswith(".hang"):
            release.wait(90)
        return read(self, *args)

    monkeypatch.setattr(facets, "schema_facet", bad_schema)
    monkeypatch.setattr(SparkLineageCapture, "_on_execution", raising)
    monkeypatch.setattr(PlanReader, "read", hanging)
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT", "2")
    try:
        yield release
    finally:
        release.set()
        _wait_for_spark_to_stop()


def _wait_for_spark_to_stop(timeout: float = 120.0) -> None:
    from pyspark import SparkContext

    deadline = time.monotonic() + timeout
    while SparkContext._active_spark_context is not None and time.monotonic() < deadline:
        time.sleep(0.2)


def _duration(result: Any, dag_id: str, task_id: str) -> float:
    start = result[f"{dag_id}.{task_id}.event.start"][-1]["eventTime"]
    end = final_event(result, dag_id, task_id)["eventTime"]
    parse: Callable[[str], datetime] = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def test_capture_faults_never_fail_slow_or_silence_the_task(run_dag, base_dir: Path, injected_faults, caplog):
    caplog.set_level(logging.INFO)
    result = run_dag(load_dag_file(DAGS, "capture_dag"))
    injected_faults.set()
    assert result.task_states == {"bad_facet": "success", "raising": "success", "hang": "success"}

    # 6: the bad facet is lost alone: both datasets are there, the other one keeps its schema
    outputs = {d["name"]: d for d in final_event(result, "fault_capture", "bad_facet")["outputs"]}
    assert set(outputs) == {f"{base_dir}/boom", f"{base_dir}/fine"}
    assert "schema" not in outputs[f"{base_dir}/boom"]["facets"]
    assert "dataSource" in outputs[f"{base_dir}/boom"]["facets"]
    assert "schema" in outputs[f"{base_dir}/fine"]["facets"]

    warnings = _messages(caplog, "lineage_operators", logging.WARNING)
    # 9: one warning for the raising hand-over, and the task's COMPLETE still went out
    hand_over = "reading a Spark execution failed: RuntimeError: hand-over bug"
    assert sum(hand_over in m for m in warnings) == 1, warnings
    assert final_event(result, "fault_capture", "raising")["eventType"] == "COMPLETE"
    # 8: the hang cost the capture budget (2 s), not the hang (90 s) nor the old 30 s drain
    assert any("gave up after 2.0s" in m for m in warnings), warnings
    assert _duration(result, "fault_capture", "hang") < 30
    # 10: every warning of this library names the task
    assert warnings
    assert all("fault_capture." in m for m in warnings), warnings
    # no py4j/Spark error or traceback reached Python logging
    noisy = [r for r in caplog.records if r.name.startswith("py4j") and r.levelno >= logging.WARNING]
    assert noisy == [], [r.getMessage() for r in noisy]
    assert not any(r.exc_info for r in caplog.records if r.levelno >= logging.WARNING)


def test_capture_is_skipped_where_selective_enable_turns_lineage_off(
    run_dag, base_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    from lineage_operators.spark.capture.classic import SparkLineageCapture

    started: list[str | None] = []
    start = SparkLineageCapture.start

    def counting_start(self: Any) -> None:
        started.append(current_task())
        start(self)

    monkeypatch.setattr(SparkLineageCapture, "start", counting_start)
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__SELECTIVE_ENABLE", "True")
    result = run_dag(load_dag_file(DAGS, "selective_dag"))
    assert result.task_states == {"not_enabled": "success", "enabled": "success"}
    assert started == ["fault_selective.enabled"]  # 11
    complete = final_event(result, "fault_selective", "enabled")
    assert dataset_ids(complete["outputs"]) == [("file", f"{base_dir}/after_fault")]


def test_odd_characters_in_paths_name_the_directory_on_disk(run_dag, base_dir: Path):
    """5: `%XX` is decoded exactly once (as Spark's Path/URI handling does), `#`, spaces, unicode kept."""
    odd_leaves = load_dag_file(DAGS, "ODD_LEAVES")
    result = run_dag(load_dag_file(DAGS, "odd_paths_dag"))
    assert result.task_states == {"odd": "success"}
    complete = final_event(result, "fault_odd_paths", "odd")
    expected = sorted(("file", f"{base_dir}/odd/{leaf}") for leaf in odd_leaves)
    assert all((base_dir / "odd" / leaf).is_dir() for leaf in odd_leaves)
    assert dataset_ids(complete["outputs"]) == expected
    assert dataset_ids(complete["inputs"]) == expected


@pytest.fixture
def shared_session(base_dir: Path) -> Iterator[Any]:
    """A session the user keeps for the whole process (the tasks reuse it and leave it running)."""
    from pyspark.sql import SparkSession

    _wait_for_spark_to_stop()
    (base_dir / "shared").mkdir()
    session = (
        SparkSession.builder.master("local[2]")
        .appName("fault-shared-session")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()


def test_a_shared_session_keeps_each_tasks_threads_in_its_own_lineage(
    run_dag, base_dir: Path, shared_session
):
    """7: executions belong to the task whose thread ran them, extra threads included."""
    result = run_dag(load_dag_file(DAGS, "shared_session_dag"))
    assert result.task_states == {"a": "success", "b": "success"}
    shared = base_dir / "shared"
    during_b = load_dag_file(DAGS, "A_THREAD_WRITES_DURING_B")
    assert all((shared / f"a_thread_{i}" / "_SUCCESS").exists() for i in range(during_b + 1))

    def outputs(task_id: str) -> list[tuple[str, str]]:
        return dataset_ids(final_event(result, "fault_shared_session", task_id)["outputs"])

    # a: its own thread and what its background thread wrote while a ran
    assert outputs("a") == [("file", f"{shared}/a_main"), ("file", f"{shared}/a_thread_0")]
    # b: its own thread and the extra thread it started; none of a's thread's writes during b
    assert outputs("b") == [("file", f"{shared}/b_main"), ("file", f"{shared}/b_thread")]


def readme_backend_down_settings() -> tuple[str, dict[str, Any]]:
    """docs/backends.md, "When the lineage backend is down": its ``execution_timeout`` and transport."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "backends.md").read_text(encoding="utf-8")
    section = text.split("## When the lineage backend is down", 1)[1]
    block = section.split("```ini\n", 1)[1].split("```", 1)[0]
    values = dict(line.split(" = ", 1) for line in block.splitlines() if " = " in line)
    return values["execution_timeout"].split("#")[0].strip(), json.loads(values["transport"])


@pytest.mark.parametrize("state", ["closed", "hanging"])
def test_a_dead_lineage_backend_with_the_readmes_settings_costs_the_task_nothing_but_time(
    run_dag, base_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog, state: str
):
    """13: the provider's HTTP transport at a closed port or a server that never answers, configured
    as the docs say: the task succeeds and writes its data; each event gets at most the retries
    the docs allow (the settings really reach the provider's transport)."""
    from tests.support.dead_backend import dead_backend

    from lineage_operators.testing import runner

    execution_timeout, transport = readme_backend_down_settings()
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXECUTION_TIMEOUT", execution_timeout)
    with dead_backend(state) as backend:
        settings = json.dumps({**transport, "url": backend.url})
        http = {"AIRFLOW__OPENLINEAGE__TRANSPORT": settings, "AIRFLOW__OPENLINEAGE__CONFIG_PATH": ""}
        monkeypatch.setattr(runner, "transport_env", lambda *args, **kwargs: http)
        result = run_dag(load_dag_file(DAGS, "transport_down_dag"))
    assert result.task_states == {"write": "success"}
    assert (base_dir / "transport" / "_SUCCESS").exists()
    assert dict(result) == {}  # nothing reached a backend
    ours = _messages(caplog, "lineage_operators", logging.WARNING)
    assert ours == [], ours
    if state == "closed":  # refused at once: the retries end long before the provider's timeout
        expired = [m for m in _messages(caplog, "airflow.providers.openlineage") if "expired" in m]
        assert expired == [], expired
    else:
        job = "fault_transport_down.write"
        assert {key for key in backend.attempts if key[1] == job} == {("START", job), ("COMPLETE", job)}
        assert max(backend.attempts.values()) <= 1 + transport["retry"]["total"], backend.attempts


def _http_to(url: str, transport: dict[str, Any]) -> dict[str, str]:
    settings = json.dumps({**transport, "url": url, "endpoint": "api/v1/lineage"})
    return {"AIRFLOW__OPENLINEAGE__TRANSPORT": settings, "AIRFLOW__OPENLINEAGE__CONFIG_PATH": ""}


def test_a_failing_lineage_server_costs_the_task_nothing_and_tries_each_event_a_bounded_number_of_times(
    run_dag, base_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog
):
    """13 with a server that answers every POST with 503: the task succeeds and writes its data,
    nothing of ours warns, nothing is stored, and each event is tried ``1 + retry.total`` times at most.
    The attempts are what a loopback double of Marquez's API (tests/support/lineage_server.py) counts
    and Marquez cannot; Marquez itself stopped, failing and slow: tests/system/test_marquez_faults.py."""
    from tests.support.lineage_server import lineage_server

    from lineage_operators.testing import runner

    execution_timeout, transport = readme_backend_down_settings()
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXECUTION_TIMEOUT", execution_timeout)
    job = "fault_transport_down.write"

    def timed_run() -> float:
        started = time.monotonic()
        result = run_dag(load_dag_file(DAGS, "transport_down_dag"))
        assert result.task_states == {"write": "success"}
        return time.monotonic() - started

    with lineage_server() as server:
        monkeypatch.setattr(runner, "transport_env", lambda *args, **kwargs: _http_to(server.url, transport))
        healthy = timed_run()  # the usual time, with the server answering at once
        assert [key for key in server.received() if key[1] == job] == [("START", job), ("COMPLETE", job)]
        server.events.clear()
        server.status = 503
        elapsed = timed_run()
        stored = [key for key in server.received() if key[1] == job]
    print(f"backend 5xx: run_dag took {elapsed:.1f} s, {healthy:.1f} s with the server healthy")
    # each event costs the task at most the provider's execution_timeout (DAG and task events: 4)
    assert elapsed <= healthy + 4 * float(execution_timeout), (elapsed, healthy)
    assert (base_dir / "transport" / "_SUCCESS").exists()
    ours = _messages(caplog, "lineage_operators", logging.WARNING)
    assert ours == [], ours
    assert stored == []
    # the task's two events (and the DAG's, at most two) each tried 1 + the docs' retries
    tries = 1 + transport["retry"]["total"]
    assert 2 * tries <= server.refused <= 4 * tries, server.refused
