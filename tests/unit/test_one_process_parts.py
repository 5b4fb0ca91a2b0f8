"""Issue 20 without a JVM: the listener's hand-over never blocks Spark's listener bus, hook lineage is
reported only where it is the channel and withdrawn after the task, Python workers get the task's
interpreter, ``capture_timeout`` lives where nothing imports in a circle."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from lineage_operators.spark.listen.listener import HandOver, QueryListener
from lineage_operators.spark.session.task_session import with_python_workers

# -- the hand-over --------------------------------------------------------------------------------


def test_the_callback_returns_at_once_while_a_read_hangs_and_the_reader_is_abandoned():
    release = threading.Event()
    read: list[str] = []
    closed = threading.Event()

    def slow_read(func_name: str, qe: Any, succeeded: bool) -> None:
        if func_name == "hang":
            release.wait(30)
        read.append(func_name)

    handover = HandOver(slow_read, closed.set)
    listener = QueryListener(handover.put)
    started = time.monotonic()
    listener.onSuccess("hang", object(), 1)
    listener.onSuccess("later", object(), 1)
    assert time.monotonic() - started < 0.5  # the listener bus is never held
    assert listener.in_flight == 0
    assert not handover.wait_idle(0.3)  # the budget ran out
    handover.abandon()
    release.set()
    assert closed.wait(5)  # the reader ended (and released what reads use) after the hung read
    assert read == ["hang"]  # "later" was dropped with the abandoned queue
    assert not handover.alive


def test_reads_happen_in_callback_order_and_close_ends_the_reader():
    read: list[str] = []
    exited = threading.Event()
    handover = HandOver(lambda name, qe, ok: read.append(name), exited.set)
    for name in ("a", "b", "c"):
        handover.put(name, None, True)
    assert handover.wait_idle(5)
    assert read == ["a", "b", "c"]
    handover.close()
    assert exited.wait(5)
    handover.put("after", None, True)  # a late callback is ignored
    assert read == ["a", "b", "c"]


def test_a_raising_read_is_one_warning_and_the_reader_goes_on(caplog):
    read: list[str] = []

    def reader(name: str, qe: Any, ok: bool) -> None:
        if name.startswith("bad"):
            raise RuntimeError("reader bug")
        read.append(name)

    handover = HandOver(reader)
    for name in ("bad1", "bad2", "good"):
        handover.put(name, None, True)
    assert handover.wait_idle(5)
    handover.close()
    assert read == ["good"]
    warnings = [
        r.getMessage() for r in caplog.records if "reading a Spark execution failed" in r.getMessage()
    ]
    assert len(warnings) == 1


# -- hook lineage -----------------------------------------------------------------------------------


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Any:
    from airflow.sdk import lineage

    real = lineage.HookLineageCollector()
    monkeypatch.setattr(lineage, "get_hook_lineage_collector", lambda: real)
    return real


def _result(*outputs: str, inputs: tuple[str, ...] = ()) -> Any:
    from lineage_operators.model import LineageDataset

    return SimpleNamespace(
        inputs=[LineageDataset("file", name) for name in inputs],
        outputs=[LineageDataset("file", name) for name in outputs],
    )


def test_hook_lineage_is_reported_once_and_withdrawn_after_the_task(collector: Any):
    from lineage_operators.hook_lineage import report_to_hook_lineage, withdraw

    other_task = object()
    collector.add_output_asset(context=other_task, uri="file:///kept")  # not ours: stays
    task = object()
    report_to_hook_lineage(_result("/out", "/out", inputs=("/in",)), task, "d.t", key=("d", "t"))
    assets = collector.collected_assets
    assert sorted(a.asset.uri for a in assets.outputs) == ["file:///kept", "file:///out"]
    assert [a.count for a in assets.outputs if a.asset.uri == "file:///out"] == [1]
    assert [a.asset.uri for a in assets.inputs] == ["file:///in"]
    withdraw(("d", "t"))
    assets = collector.collected_assets
    assert [a.asset.uri for a in assets.outputs] == ["file:///kept"]
    assert assets.inputs == []
    withdraw(("d", "t"))  # twice: nothing more


def test_the_plugin_reports_to_hook_lineage_only_without_our_extractor(
    collector: Any, monkeypatch: pytest.MonkeyPatch
):
    from lineage_operators.plugin import listener, store
    from lineage_operators.spark.capture import automatic as auto_capture

    task_instance = SimpleNamespace(
        dag_id="d", task_id="t", run_id="r", map_index=-1, try_number=1, task=object()
    )
    for extractors, expected in (
        ("lineage_operators.extractor.SparkCaptureExtractor", []),
        ("", ["file:///x"]),
    ):
        monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXTRACTORS", extractors)
        monkeypatch.setattr(auto_capture, "is_armed", lambda: True)
        monkeypatch.setattr(auto_capture, "finish", lambda: _result("/x"))
        listener._finish(task_instance)
        assert [a.asset.uri for a in collector.collected_assets.outputs] == expected, extractors
        assert store.get(task_instance) is not None
        listener.TaskCleanupListener().on_task_instance_success(None, task_instance)
        assert collector.collected_assets.outputs == []
        assert store.get(task_instance) is None


# -- Python workers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("conf", "master", "environ", "expected"),
    [
        ({}, "local[2]", {}, "/venv/bin/python"),
        ({}, "local-cluster[1,1,512]", {}, "/venv/bin/python"),
        ({"spark.master": "local"}, None, {}, "/venv/bin/python"),
        ({}, "spark://h:7077", {}, None),
        ({}, "yarn", {}, None),
        ({"spark.pyspark.python": "/opt/py"}, "local", {}, "/opt/py"),
        ({}, "local", {"PYSPARK_PYTHON": "/usr/bin/python3.12"}, None),
    ],
)
def test_python_workers_get_the_tasks_interpreter_on_local_masters(conf, master, environ, expected):
    assert (
        with_python_workers(conf, master, environ, "/venv/bin/python").get("spark.pyspark.python") == expected
    )


# -- no import circle -------------------------------------------------------------------------------


def test_the_recorder_and_capture_settings_import_without_the_operator():
    code = (
        "import sys\n"
        "import lineage_operators.recorder, lineage_operators.capture_settings\n"
        "from lineage_operators.capture_settings import capture_timeout\n"
        "assert 'lineage_operators.operators.pyspark' not in sys.modules, 'circle'\n"
        "assert capture_timeout() == 5.0\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr[-2000:]


def test_a_bad_capture_timeout_is_a_warning_and_the_default(monkeypatch: pytest.MonkeyPatch, caplog):
    from lineage_operators.capture_settings import DEFAULT_CAPTURE_TIMEOUT, capture_timeout

    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT", "soon")
    assert capture_timeout() == DEFAULT_CAPTURE_TIMEOUT
    assert any("capture_timeout is not a number" in r.getMessage() for r in caplog.records)
    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT", "-3")
    assert capture_timeout() == 0.0
