"""The plugin's pieces without a JVM: configuration, the builder entry point it watches,
arming without importing pyspark, and the extractor's merge with the provider's extractor."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from lineage_operators.model import LineageDataset
from lineage_operators.plugin import settings, store

ROOT = Path(__file__).resolve().parents[2]
EXTRACTOR = "lineage_operators.extractor.SparkCaptureExtractor"


@pytest.mark.parametrize(
    ("extractors", "capture_operators", "expected"),
    [
        (None, None, set()),
        ("", "", set()),
        (EXTRACTOR, None, set(settings.DEFAULT_OPERATORS)),
        (f"other.Extractor; {EXTRACTOR}", "MyOperator", {*settings.DEFAULT_OPERATORS, "MyOperator"}),
        ("other.Extractor", " A, B ,", {"A", "B"}),
    ],
)
def test_operators_to_capture(extractors, capture_operators, expected):
    assert settings.operators_to_capture(extractors, capture_operators) == expected


def test_the_builder_entry_point_the_plugin_wraps_is_unchanged():
    """If pyspark renames or re-shapes ``SparkSession.Builder.getOrCreate`` this fails, instead of
    capture silently stopping for unmodified tasks."""
    from pyspark.sql.session import SparkSession

    method = inspect.unwrap(SparkSession.Builder.getOrCreate)
    assert list(inspect.signature(method).parameters) == ["self"]
    assert isinstance(SparkSession.builder, SparkSession.Builder)


def _run(code: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=120
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_arming_imports_no_pyspark_and_wraps_the_builder_when_pyspark_is_imported():
    seen = _run(
        "import json, sys\n"
        "from lineage_operators.spark.capture import automatic as auto_capture\n"
        "auto_capture.arm('dag.task')\n"
        "before = sorted(m for m in sys.modules if m.startswith(('pyspark', 'py4j')))\n"
        "from pyspark.sql import SparkSession\n"
        "wrapped = getattr(SparkSession.Builder.getOrCreate, '__lineage_operators_wrapped__', False)\n"
        "finder = auto_capture._finder in sys.meta_path\n"
        "print(json.dumps({'before': before, 'wrapped': wrapped, 'finder': finder}))"
    )
    assert seen == {"before": [], "wrapped": True, "finder": False}


def test_observed_sessions_are_captured_once_classic_and_connect(monkeypatch):
    """Each session once, with the capture that fits it (a Connect session: the Connect capture)."""
    from lineage_operators.spark.capture import automatic as auto_capture
    from lineage_operators.spark.capture import classic as capture
    from lineage_operators.spark.connect import capture as connect_capture

    started: list[object] = []

    class FakeCapture:
        def __init__(self, session, **options):
            self.session = session

        def start(self):
            started.append(self.session)

        def stop(self):
            return capture.CaptureResult(outputs=[LineageDataset("file", f"/out/{id(self.session)}")])

    class FakeConnectCapture(FakeCapture):
        pass

    monkeypatch.setattr(capture, "SparkLineageCapture", FakeCapture)
    monkeypatch.setattr(connect_capture, "SparkConnectLineageCapture", FakeConnectCapture)
    session_module = sys.modules.get("pyspark.sql.session")
    if session_module is not None:  # a session left active by an earlier test is not this task's
        monkeypatch.setattr(session_module.SparkSession, "getActiveSession", classmethod(lambda cls: None))
    connect_type = type("SparkSession", (), {"__module__": "pyspark.sql.connect.session"})
    classic, connect = SimpleNamespace(_jsparkSession=object()), connect_type()
    auto_capture.arm("dag.task")
    try:
        for session in (classic, classic, connect, connect):
            auto_capture.observe_session(session)
    finally:
        result = auto_capture.finish()
    assert started == [classic, connect]
    assert sorted(d.name for d in result.outputs) == sorted(f"/out/{id(s)}" for s in (classic, connect))
    assert auto_capture.finish() is None


def _python_operator():
    from airflow.providers.standard.operators.python import PythonOperator

    def job():
        return 1

    return PythonOperator(task_id="t", python_callable=job)


def test_extractor_adds_capture_to_the_python_extractor_result():
    from lineage_operators.extractor import SparkCaptureExtractor
    from lineage_operators.spark.facts import CaptureResult

    operator = _python_operator()
    ti = SimpleNamespace(dag_id="d", task_id="t", run_id="r", map_index=-1, try_number=1)
    extractor = SparkCaptureExtractor(operator)

    started = extractor.extract()
    assert "sourceCode" in started.job_facets
    assert started.inputs == [] and started.outputs == []  # noqa: PT018

    store.put(ti, CaptureResult(outputs=[LineageDataset("file", "/out/x")], run_facets={"spark_x": "y"}))
    completed = extractor.extract_on_complete(ti)
    assert [(d.namespace, d.name) for d in completed.outputs] == [("file", "/out/x")]
    assert "sourceCode" in completed.job_facets
    assert completed.run_facets["spark_x"] == "y"
    assert "unknownSourceAttribute" not in completed.run_facets
    failed = extractor.extract_on_failure(ti)
    assert [d.name for d in failed.outputs] == ["/out/x"]


def test_extractor_without_capture_gives_what_the_provider_gives():
    from airflow.providers.openlineage.extractors.python import PythonExtractor

    from lineage_operators.extractor import SparkCaptureExtractor

    operator = _python_operator()
    ti = SimpleNamespace(dag_id="d", task_id="other", run_id="r", map_index=-1, try_number=1)
    ours = SparkCaptureExtractor(operator).extract_on_complete(ti)
    theirs = PythonExtractor(operator).extract_on_complete(ti)
    assert ours == theirs


def test_a_task_the_plugin_never_armed_ends_without_importing_the_capture():
    """Every task process loads the plugin: an unarmed task's end must cost a look-up, not the
    import of ``lineage_operators.spark`` (~1 ms)."""
    seen = _run(
        "import json, sys\n"
        "from types import SimpleNamespace\n"
        "from lineage_operators.plugin.listener import TaskCaptureListener, TaskCleanupListener\n"
        "ti = SimpleNamespace(dag_id='d', task_id='t', task=SimpleNamespace(task_type='PythonOperator'))\n"
        "TaskCaptureListener().on_task_instance_success(None, ti)\n"
        "TaskCleanupListener().on_task_instance_success(None, ti)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('lineage_operators.spark'))))"
    )
    assert seen == []
