"""Asset events for unmodified tasks: the instance-level ``post_execute`` the plugin gives a task with
an ``AssetAlias`` outlet, checked against the conditions Airflow's task runner uses, and the
listener's flow around it (capture finished once, result kept, method taken away). No JVM."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from lineage_operators.model import LineageDataset
from lineage_operators.plugin import listener, outlets, settings, store

ALIAS = "spark_outputs"


def _operator(cls: Any = None, **kwargs: Any) -> Any:
    """A PythonOperator as the task runner holds it: the per-run copy from ``prepare_for_execution``."""
    from airflow.providers.standard.operators.python import PythonOperator
    from airflow.sdk import AssetAlias

    kwargs.setdefault("outlets", [AssetAlias(ALIAS)])
    return (cls or PythonOperator)(task_id="t", python_callable=lambda: 1, **kwargs).prepare_for_execution()


def _context() -> dict[str, Any]:
    from airflow.sdk.execution_time.context import OutletEventAccessors

    return {"outlet_events": OutletEventAccessors()}


def _result(*paths: str) -> Any:
    from lineage_operators.spark.facts import CaptureResult

    return CaptureResult(outputs=[LineageDataset("file", path) for path in paths])


def _alias_uris(context: dict[str, Any]) -> list[str]:
    from airflow.sdk import AssetAlias

    return [
        event.dest_asset_key.uri for event in context["outlet_events"][AssetAlias(ALIAS)].asset_alias_events
    ]


def _aliases(task: Any) -> list[Any]:
    from lineage_operators.assets import asset_aliases

    return asset_aliases(task.outlets)


def _runner_calls_post_execute(task: Any) -> bool:
    """The condition under which Airflow's task runner calls ``task.post_execute`` after ``execute``."""
    from airflow.sdk import BaseOperator

    return getattr(task.post_execute, "__func__", None) is not BaseOperator.post_execute


def test_the_runner_calls_the_installed_post_execute_which_adds_one_event_per_written_dataset():
    task = _operator()
    assert not _runner_calls_post_execute(task)
    finished: list[int] = []

    def finish() -> Any:
        finished.append(1)
        return _result("/lake/a", "relative/b")  # the relative path has no Asset URI: skipped

    assert outlets.install(task, _aliases(task), finish, "d.t")
    assert _runner_calls_post_execute(task)
    assert not outlets.install(task, _aliases(task), finish, "d.t")  # once per task instance

    context = _context()
    task.post_execute(context)
    assert _alias_uris(context) == ["file:///lake/a"]
    assert finished == [1]

    assert outlets.restore(task)
    assert not _runner_calls_post_execute(task)
    assert not outlets.restore(task)


def test_the_operators_own_post_execute_still_runs_and_generators_are_still_drained():
    from airflow.providers.standard.operators.python import PythonOperator

    seen: list[str] = []

    class Plain(PythonOperator):
        def post_execute(self, context: Any, result: Any = None) -> str:
            seen.append(f"plain:{sorted(context)}")
            return "plain"

    class Yielding(PythonOperator):
        def post_execute(self, context: Any, result: Any = None) -> Any:
            seen.append("yielding")
            yield "metadata"

    plain, yielding = _operator(Plain), _operator(Yielding)
    for task in (plain, yielding):
        outlets.install(task, _aliases(task), lambda: _result("/lake/x"), "d.t")

    context = _context()
    assert plain.post_execute(context) == "plain"
    assert list(yielding.post_execute(context)) == ["metadata"]
    assert seen == ["plain:['outlet_events']", "yielding"]
    assert _alias_uris(context) == ["file:///lake/x", "file:///lake/x"]

    outlets.restore(plain)
    assert plain.post_execute.__func__ is Plain.post_execute  # the class's method again


def test_a_failing_capture_is_a_warning_never_a_task_failure(caplog: pytest.LogCaptureFixture):
    task = _operator()

    def finish() -> Any:
        raise RuntimeError("py4j went away")

    outlets.install(task, _aliases(task), finish, "d.t")
    context = _context()
    with caplog.at_level(logging.WARNING):
        task.post_execute(context)
    assert _alias_uris(context) == []
    assert "Task d.t: asset events from Spark capture failed: py4j went away" in caplog.text


def test_a_task_without_an_alias_outlet_is_left_alone():
    from airflow.sdk import Asset

    task = _operator(outlets=[Asset("file:///lake/declared")])
    assert not outlets.install(task, _aliases(task), lambda: None, "d.t")
    assert "post_execute" not in vars(task)


class _Capture:
    """Stands in for auto_capture: armed by the running hook, finished once."""

    def __init__(self, result: Any) -> None:
        self.result, self.armed, self.finished = result, False, 0

    def arm(self, label: str) -> None:
        self.armed = True

    def is_armed(self) -> bool:
        return self.armed

    def finish(self) -> Any:
        self.finished += 1
        was_armed, self.armed = self.armed, False
        return self.result if was_armed else None


@pytest.fixture
def fake_capture(monkeypatch: pytest.MonkeyPatch) -> _Capture:
    from lineage_operators.spark.capture import automatic as auto_capture

    capture = _Capture(_result("/lake/out"))
    for name in ("arm", "is_armed", "finish"):
        monkeypatch.setattr(auto_capture, name, getattr(capture, name))
    monkeypatch.setattr(settings, "configured_operators", lambda: frozenset({"PythonOperator"}))
    return capture


def _task_instance(task: Any) -> Any:
    return SimpleNamespace(dag_id="d", task_id="t", run_id="r", map_index=-1, try_number=1, task=task)


@pytest.mark.parametrize("outcome", ["success", "failed", "skipped"])
def test_listener_finishes_capture_once_whether_or_not_post_execute_ran(
    fake_capture: _Capture, monkeypatch: pytest.MonkeyPatch, outcome: str
):
    from lineage_operators import hook_lineage

    reported: list[Any] = []
    monkeypatch.setattr(hook_lineage, "report_to_hook_lineage", lambda result, *args: reported.append(result))
    hooks = listener.TaskCaptureListener()
    ti = _task_instance(_operator())

    hooks.on_task_instance_running(previous_state=None, task_instance=ti)
    assert fake_capture.armed
    context = _context()
    if outcome == "success":  # the runner calls post_execute only when execute returned
        ti.task.post_execute(context)
        assert _alias_uris(context) == ["file:///lake/out"]
        hooks.on_task_instance_success(previous_state=None, task_instance=ti)
    elif outcome == "failed":
        hooks.on_task_instance_failed(previous_state=None, task_instance=ti, error=None)
    else:
        hooks.on_task_instance_skipped(previous_state=None, task_instance=ti)

    assert fake_capture.finished == 1
    assert store.get(ti) is fake_capture.result  # for the extractor in the provider's child
    assert reported == [fake_capture.result]
    assert "post_execute" not in vars(ti.task)


def test_listener_leaves_tasks_that_are_not_captured_alone(fake_capture: _Capture):
    from airflow.providers.standard.operators.bash import BashOperator
    from airflow.sdk import AssetAlias

    task = BashOperator(task_id="b", bash_command="true", outlets=[AssetAlias(ALIAS)]).prepare_for_execution()
    listener.TaskCaptureListener().on_task_instance_running(
        previous_state=None, task_instance=_task_instance(task)
    )
    assert not fake_capture.armed
    assert "post_execute" not in vars(task)
