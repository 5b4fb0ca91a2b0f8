"""Attribution's status-store records (``attribution.read_records``) against a real JVM.

The record function is built once per JVM; a new application only points it at its own status
store. In one process (``dag.test()``, the benchmarks) every task is a new application: building
the function per application cost ~30 py4j round trips on the task's thread and kept every stopped
application's status store alive.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest
from py4j import clientserver

from lineage_operators.spark.attribution.classic import read_records
from lineage_operators.spark.attribution.ownership import TAG_PREFIX
from lineage_operators.spark.jvm.tools import tools_for
from lineage_operators.spark.listen.job_statistics import last_execution_id


def _tagged_job(spark: Any, tag: str) -> int:
    """Runs one SQL execution whose job carries ``tag``; returns the newest execution id before it."""
    since = last_execution_id(spark._jsparkSession.sharedState().statusStore())
    spark.sparkContext.addJobTag(tag)
    try:
        spark.range(10).selectExpr("sum(id)").collect()
    finally:
        spark.sparkContext.removeJobTag(tag)
    return since


def _read(spark: Any, since: int, app_id: str) -> Any:
    tools = tools_for(spark.sparkContext._gateway)
    return read_records(tools, spark._jsparkSession, spark.sparkContext._jsc, since, app_id)


def _tags(records: Any) -> set[str]:
    return {tag for record in records for tag in record.job_tags}


def test_records_carry_the_capture_tags_of_their_jobs(spark: Any) -> None:
    since = _tagged_job(spark, f"{TAG_PREFIX}records-1")
    records = _read(spark, since, "app-records-1")
    assert f"{TAG_PREFIX}records-1" in _tags(records)
    assert all(record.execution_id > since for record in records)


def test_a_new_application_reuses_the_function_and_costs_one_round_trip(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    since = _tagged_job(spark, f"{TAG_PREFIX}records-2")
    _read(spark, since, "app-records-2")  # the function exists from here on
    sent: list[str] = []
    send = clientserver.ClientServerConnection.send_command

    def counting(connection: Any, command: str, *args: Any, **kwargs: Any) -> Any:
        if not command.startswith("m\nd\n"):  # py4j's own releases of garbage-collected proxies
            sent.append(command)
        return send(connection, command, *args, **kwargs)

    monkeypatch.setattr(clientserver.ClientServerConnection, "send_command", counting)
    gc.disable()
    try:
        records = _read(spark, since, "app-records-3")  # as the next task's new application would
        trips = len(sent)
        sent_new = [c.split(chr(10))[:3] for c in sent]
        sent.clear()
        _read(spark, since, "app-records-3")
        same_application = len(sent)
    finally:
        gc.enable()
    assert f"{TAG_PREFIX}records-2" in _tags(records)
    # pointing the holder at the application's store, on top of the reads a known application
    # makes (status store, count, newest id, the records)
    assert trips - same_application == 1, (trips, same_application, sent_new)
