"""LineageAwarePySparkOperator without a JVM: the session is stubbed, the contract is not."""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest

from lineage_operators import LineageAwarePySparkOperator, SparkJobError
from lineage_operators.spark.session import task_session as session_module
from lineage_operators.spark.session.task_session import (
    java_major_version,
    spec_from_master,
    with_parent_job_information,
)


class FakeSparkContext:
    pass


class FakeSession:
    """Looks like a classic session (has `_jsparkSession`), records whether it was stopped."""

    def __init__(self) -> None:
        self._jsparkSession = object()
        self.sparkContext = FakeSparkContext()
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


@pytest.fixture
def opened(monkeypatch):
    """Replace session creation; capture stays off so nothing touches a JVM."""
    calls: dict[str, Any] = {"owned": True}

    def fake_open(spec):
        calls["spec"] = spec
        calls["session"] = FakeSession()
        return calls["session"], calls["owned"]

    monkeypatch.setattr(session_module, "open_session", fake_open)
    return calls


def run(op: LineageAwarePySparkOperator) -> Any:
    return op.execute({"ti": None, "dag_run": None})


def test_callable_receives_spark_and_its_op_kwargs(opened):
    seen = {}

    def job(spark, factor):
        seen["spark"], seen["factor"] = spark, factor
        return 42

    op = LineageAwarePySparkOperator(
        task_id="t", python_callable=job, op_kwargs={"factor": 3}, capture_lineage=False
    )
    assert run(op) == 42
    assert seen == {"spark": opened["session"], "factor": 3}
    assert opened["spec"].conf["spark.app.name"] == "adhoc_airflow.t"
    assert opened["spec"].master == "local[*]"
    assert opened["session"].stopped


def test_user_conf_wins_and_sc_is_passed(opened):
    def job(spark, sc):
        assert sc is spark.sparkContext

    op = LineageAwarePySparkOperator(
        task_id="t",
        python_callable=job,
        master="spark://cluster:7077",
        config_kwargs={"spark.app.name": "mine", "spark.executor.memory": "2g"},
        capture_lineage=False,
    )
    run(op)
    assert opened["spec"].master == "spark://cluster:7077"
    assert opened["spec"].conf["spark.app.name"] == "mine"
    assert opened["spec"].conf["spark.executor.memory"] == "2g"


def test_a_session_it_did_not_create_is_not_stopped(opened):
    opened["owned"] = False
    op = LineageAwarePySparkOperator(task_id="t", python_callable=lambda spark: None, capture_lineage=False)
    run(op)
    assert not opened["session"].stopped


def test_subclass_overrides_run_spark_and_record_lineage_errors_are_warnings(opened, caplog):
    class Internal(LineageAwarePySparkOperator):
        def run_spark(self, spark, context):
            self.lineage.add_output("/data/out")
            return "done"

        def record_lineage(self, spark, context):
            raise RuntimeError("hook bug")

    op = Internal(task_id="internal", capture_lineage=False)
    with caplog.at_level(logging.WARNING, logger="lineage_operators"):
        assert run(op) == "done"
    assert [d.key for d in op.resolved_outputs] == [("file", "/data/out")]
    assert any("hook bug" in r.getMessage() and "internal" in r.getMessage() for r in caplog.records)


def test_an_error_holding_a_secret_is_reraised_redacted(opened):
    def job(spark):
        raise RuntimeError(
            "cannot connect to jdbc:postgresql://u:hunter2-secret@db:5432/x?password=hunter2-secret"
        )

    op = LineageAwarePySparkOperator(task_id="t", python_callable=job, capture_lineage=False)
    with pytest.raises(SparkJobError) as raised:
        run(op)
    assert "hunter2-secret" not in str(raised.value)
    assert "cannot connect" in str(raised.value)
    assert raised.value.__suppress_context__
    assert opened["session"].stopped


def test_an_ordinary_error_is_reraised_unchanged(opened):
    def job(spark):
        raise ValueError("bad row")

    op = LineageAwarePySparkOperator(task_id="t", python_callable=job, capture_lineage=False)
    with pytest.raises(ValueError, match="bad row"):
        run(op)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({}, ValueError, "python_callable"),
        ({"python_callable": print, "conn_id": "c", "master": "local[1]"}, ValueError, "not both"),
        ({"python_callable": print, "config_kwargs": ["spark.x"]}, TypeError, "config_kwargs"),
        ({"python_callable": print, "inputs": ["relative"]}, ValueError, "inputs"),
    ],
)
def test_bad_arguments_fail_at_dag_definition(kwargs, error, message):
    with pytest.raises(error, match=message):
        LineageAwarePySparkOperator(task_id="t", **kwargs)


def test_connect_urls_are_spark_connect():
    spec = spec_from_master("sc://spark-connect:15002")
    assert spec.is_connect
    assert spec.remote == "sc://spark-connect:15002"
    assert spec.master is None
    assert not spec_from_master(None).is_connect


def test_parent_job_information_is_not_injected_over_the_users():
    conf = {"spark.openlineage.parentRunId": "mine"}
    assert with_parent_job_information(conf, context={}) == conf


@pytest.mark.parametrize(
    ("output", "major"),
    [('openjdk version "17.0.15" 2025-04-15', 17), ('java version "1.8.0_392"', 8), ("garbage", None)],
)
def test_java_major_version(output, major):
    assert java_major_version(output) == major


def test_a_connect_session_that_fails_to_open_leaves_the_process_classic(monkeypatch):
    # pyspark's builder.remote(...).getOrCreate() sets SPARK_CONNECT_MODE_ENABLED before it
    # connects; in one process (dag.test()) the next classic task would then fail to start
    monkeypatch.delenv("SPARK_CONNECT_MODE_ENABLED", raising=False)

    def failing_open(spec):
        os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
        raise ConnectionError("the Spark Connect server at sc://h:15002 is not reachable")

    monkeypatch.setattr(session_module, "open_session", failing_open)
    op = LineageAwarePySparkOperator(task_id="t", python_callable=print, master="sc://h:15002")
    with pytest.raises(ConnectionError, match="not reachable"):
        run(op)
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ
