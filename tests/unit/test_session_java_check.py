"""The Java check runs only when a session fails to start: no ``java -version`` on the task's
thread of a task that starts fine (70-110 ms of a subprocess), one clear line when Java is why."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace
from typing import Any

import pytest
from pyspark.sql import SparkSession

from lineage_operators.spark.session import task_session as session_module
from lineage_operators.spark.session.task_session import SessionSpec, java_problem, open_session


class LaunchFailed(Exception):
    pass


@pytest.fixture
def builder(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``getOrCreate`` returns ``state["session"]``, or raises ``state["error"]`` when set."""
    state: dict[str, Any] = {"session": object(), "error": None}

    def get_or_create(self: Any) -> Any:
        if state["error"] is not None:
            raise state["error"]
        return state["session"]

    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    monkeypatch.setattr(SparkSession.Builder, "getOrCreate", get_or_create)
    return state


def _java_version(monkeypatch: pytest.MonkeyPatch, stderr: str) -> list[list[str]]:
    runs: list[list[str]] = []
    monkeypatch.setattr(session_module.shutil, "which", lambda name: "/opt/java/bin/java")

    def run(args: list[str], **kwargs: Any) -> Any:
        runs.append(args)
        return SimpleNamespace(stderr=stderr)

    monkeypatch.setattr(session_module.subprocess, "run", run)
    return runs


def test_a_session_that_starts_runs_no_java_check(builder, monkeypatch):
    runs = _java_version(monkeypatch, 'openjdk version "17.0.15" 2025-04-15')
    session, owned = open_session(SessionSpec(master="local[1]"))
    assert (session, owned) == (builder["session"], True)
    assert runs == []


def test_a_failed_start_without_java_says_so_in_one_line(builder, monkeypatch):
    builder["error"] = LaunchFailed("Java gateway process exited before sending its port number")
    monkeypatch.setattr(session_module.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="no `java` is on PATH") as raised:
        open_session(SessionSpec(master="local[1]"))
    assert isinstance(raised.value.__cause__, LaunchFailed)


def test_a_failed_start_with_an_old_java_names_its_version(builder, monkeypatch):
    builder["error"] = LaunchFailed("UnsupportedClassVersionError")
    runs = _java_version(monkeypatch, 'java version "1.8.0_392"')
    with pytest.raises(RuntimeError, match="found Java 8"):
        open_session(SessionSpec(master="local[1]"))
    assert runs == [["/opt/java/bin/java", "-version"]]


def test_a_failed_start_with_a_good_java_keeps_spark_s_own_error(builder, monkeypatch):
    builder["error"] = LaunchFailed("port already in use")
    _java_version(monkeypatch, 'openjdk version "21.0.2" 2024-01-16')
    with pytest.raises(LaunchFailed, match="port already in use"):
        open_session(SessionSpec(master="local[1]"))


def test_java_that_cannot_run_is_reported(monkeypatch):
    monkeypatch.setattr(session_module.shutil, "which", lambda name: "/opt/java/bin/java")

    def run(args: list[str], **kwargs: Any) -> Any:
        raise subprocess.TimeoutExpired(args, 30)

    monkeypatch.setattr(session_module.subprocess, "run", run)
    assert "`java -version` failed" in (java_problem() or "")
