"""Executions reach the capture through a queue in the JVM (``ExecutionReader.Pending``), not a py4j
callback: one round trip per execution on the reader thread, no Python listener, no callback
server, no ``QueryExecution`` handle unless a read needs the object, and a reader thread that
ends quietly."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from spark_helpers import captured, get, lifecycle, local, names, run_captured

from lineage_operators.spark.listen import execution_queue
from lineage_operators.spark.listen.execution_queue import ExecutionQueue, HeldExecution
from lineage_operators.spark.listen.listener import QueryListener, drain
from lineage_operators.spark.rdd import jobs as rdd


def _calls(monkeypatch: Any, cls: type, name: str) -> list[bool]:
    """One entry per call of ``cls.name`` from here on (the method still runs)."""
    calls: list[bool] = []
    original = getattr(cls, name)

    def counted(instance: Any, *args: Any) -> Any:
        calls.append(True)
        return original(instance, *args)

    monkeypatch.setattr(cls, name, counted)
    return calls


@pytest.fixture
def db(spark: Any) -> Iterator[str]:
    spark.sql("CREATE DATABASE IF NOT EXISTS queue_db")
    yield "queue_db"
    spark.sql("DROP DATABASE IF EXISTS queue_db CASCADE")


def test_each_execution_costs_the_reader_one_round_trip(spark: Any, tmp_path: Path, monkeypatch: Any) -> None:
    """The reader's call that takes an execution from the queue also reads it: no callback into
    Python, no hand-over, no call to release a handle (three round trips before)."""
    from py4j import clientserver

    spark.range(10).write.mode("overwrite").parquet(str(tmp_path / "t"))
    frame = spark.read.parquet(str(tmp_path / "t"))
    monkeypatch.setattr(rdd.RddJobWatcher, "read_queued_if_due", lambda watcher: None)  # at stop() only
    counted = threading.local()
    send = clientserver.ClientServerConnection.send_command

    def counting(connection: Any, *args: Any, **kwargs: Any) -> Any:
        counted.n = getattr(counted, "n", 0) + 1
        return send(connection, *args, **kwargs)

    per_call: list[int] = []
    dispatched = threading.local()
    read_next, dispatch = ExecutionQueue._read_next, ExecutionQueue._dispatch

    def measured(queue: Any) -> bool:
        before, dispatched.n = getattr(counted, "n", 0), 0
        going_on = read_next(queue)
        if dispatched.n:
            per_call.append(getattr(counted, "n", 0) - before)
        return going_on

    def counted_dispatch(queue: Any, text: str) -> None:
        dispatched.n += 1
        dispatch(queue, text)

    monkeypatch.setattr(clientserver.ClientServerConnection, "send_command", counting)
    monkeypatch.setattr(ExecutionQueue, "_read_next", measured)
    monkeypatch.setattr(ExecutionQueue, "_dispatch", counted_dispatch)
    run_captured(spark, frame.count)  # set-up (JVM-side functions) happens on first use
    per_call.clear()
    _, result = run_captured(spark, lambda: [frame.count() for _ in range(5)])
    assert result.executions == 5
    assert per_call == [1] * 5


def test_no_python_listener_and_no_callback_server(spark: Any, caplog: pytest.LogCaptureFixture) -> None:
    gateway = spark.sparkContext._gateway
    server_before = gateway.__dict__.get("_callback_server")
    pool = gateway.gateway_property.pool
    listeners_before = len(spark._jsparkSession.listenerManager().listListeners())

    def python_listeners() -> set[int]:  # earlier py4j-callback captures' stay until the JVM lets go
        return {id(v) for v in list(pool.dict.values()) if isinstance(v, QueryListener)}

    python_before = python_listeners()
    caplog.set_level(logging.INFO)
    seen: dict[str, Any] = {}

    def body() -> None:
        spark.range(3).collect()
        seen["server"] = gateway.__dict__.get("_callback_server")
        seen["python listeners"] = python_listeners() - python_before
        seen["query listeners"] = len(spark._jsparkSession.listenerManager().listListeners())
        seen["readers"] = [t for t in threading.enumerate() if t.name == "lineage-reader"]

    result = captured(spark, body)
    assert result.executions == 1
    assert seen["server"] is server_before
    assert seen["python listeners"] == set()
    assert seen["query listeners"] == listeners_before
    (reader,) = seen["readers"]
    reader.join(10)
    assert not reader.is_alive()  # closing the queue ends the reader's wait in the JVM at once
    py4j_info = [r.getMessage() for r in caplog.records if r.name.startswith("py4j")]
    assert "Closing down clientserver connection" not in py4j_info  # the reader's end is quiet


def test_the_execution_object_is_fetched_only_by_reads_that_need_it(
    spark: Any, db: str, tmp_path: Path, monkeypatch: Any
) -> None:
    fetched = _calls(monkeypatch, HeldExecution, "_handle")
    out = tmp_path / "out"
    result = captured(spark, lambda: spark.range(4).write.parquet(str(out)))
    assert names(result.outputs) == {local(out)}
    assert fetched == []  # a file write: all it needs came with the JVM-side read

    spark.sql(f"CREATE TABLE {db}.queued (a STRING) USING parquet")
    location = Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:")) / f"{db}.db" / "queued"
    result = captured(spark, lambda: spark.sql(f"ALTER TABLE {db}.queued ADD COLUMNS (b INT)"))
    assert lifecycle(get(result.outputs, location)) == "ALTER"  # read from the plan object itself
    assert fetched


def test_executions_queued_while_the_reader_is_slow_are_all_read_by_stop(
    spark: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    from lineage_operators.spark.plan.reader import PlanReader

    read = PlanReader.read

    def slow(*args: Any) -> Any:
        threading.Event().wait(0.3)
        return read(*args)

    monkeypatch.setattr(PlanReader, "read", slow)
    paths = [tmp_path / f"out{n}" for n in range(3)]
    result = captured(spark, lambda: [spark.range(2).write.parquet(str(p)) for p in paths])
    assert names(result.outputs) == {local(p) for p in paths}
    assert result.complete


def test_the_wait_in_the_jvm_is_bounded(spark: Any, monkeypatch: Any) -> None:
    """The reader waits in the JVM at most ``WAIT_MS`` per call, so a queue nobody closes (a
    process ending without stop()) never pins the reader's py4j connection for good."""
    monkeypatch.setattr(execution_queue, "WAIT_MS", 50)
    calls = _calls(monkeypatch, ExecutionQueue, "_read_next")
    result = captured(spark, lambda: threading.Event().wait(0.5))
    assert result.executions == 0
    assert len(calls) >= 3  # it came back empty-handed and asked again


def test_a_task_that_stopped_its_own_session_still_gets_its_last_executions(
    spark: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """After the task's own ``spark.stop()`` there is no bus left to drain, but the reader may still
    be reading the last executions: stop() waits for them instead of abandoning the reader."""
    from lineage_operators.spark.capture import classic as capture
    from lineage_operators.spark.plan.reader import PlanReader

    read = PlanReader.read

    def slow(*args: Any) -> Any:
        threading.Event().wait(0.5)
        return read(*args)

    monkeypatch.setattr(PlanReader, "read", slow)
    out = tmp_path / "out"

    def body() -> None:
        spark.range(2).write.parquet(str(out))
        # as after spark.stop(): every event delivered (the execution is queued), no bus left
        assert drain(spark.sparkContext._jsc, 10.0)
        monkeypatch.setattr(capture, "_context_stopped", lambda session: True)

    result = captured(spark, body)
    assert names(result.outputs) == {local(out)}
    assert result.complete


def test_an_ended_execution_is_read_once_settled_or_when_a_drain_asks(
    spark: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """Where a line settles reads, the reader takes an ended execution ``SETTLE_MS`` after it ended,
    not at the moment the task's thread gets its action's result (both threads would then want the
    GIL); stop()'s drain has what is queued read at once. (The JVM side is the same on every line.)"""
    monkeypatch.setattr(execution_queue, "settle_ms", lambda line: 4000)
    read_at: list[float] = []
    dispatch = ExecutionQueue._dispatch

    def stamped(queue: Any, text: str) -> None:
        read_at.append(time.monotonic())
        dispatch(queue, text)

    monkeypatch.setattr(ExecutionQueue, "_dispatch", stamped)
    out = tmp_path / "out"
    seen: dict[str, Any] = {}

    def body() -> None:
        spark.range(2).write.parquet(str(out))
        assert drain(spark.sparkContext._jsc, 10.0)  # the execution is queued in the JVM
        threading.Event().wait(1.0)
        seen["read while settling"] = len(read_at)
        seen["body ended"] = time.monotonic()

    result = captured(spark, body)
    assert seen["read while settling"] == 0
    assert names(result.outputs) == {local(out)}
    assert result.complete
    assert len(read_at) == 1
    assert read_at[0] - seen["body ended"] < 3.0  # the drain's, not the end of the 4 s settling


def test_a_listener_blocked_on_the_shared_queue_does_not_hold_up_the_capture(
    spark: Any, tmp_path: Path
) -> None:
    """Another listener blocked on Spark's shared queue (openlineage-spark's, in S3A's retries while S3 is
    down) holds up the whole listener bus, but not the queues the capture reads: stop() has the task's
    lineage, complete, without waiting out ``capture_timeout`` (it waited for the whole bus before)."""
    from lineage_operators.spark.jvm.tools import tools_for
    from lineage_operators.spark.listen.listener import java_proxy
    from lineage_operators.spark.session import callback_server

    unblock = threading.Event()

    class BlockingListener:
        def onSuccess(self, name: str, qe: Any, duration: int) -> None:
            unblock.wait(120)

        def onFailure(self, name: str, qe: Any, error: Any) -> None:
            unblock.wait(120)

        class Java:
            implements: ClassVar[list[str]] = ["org.apache.spark.sql.util.QueryExecutionListener"]

    gateway = spark.sparkContext._gateway
    callback_server.acquire_callback_server(gateway)
    blocking = java_proxy(tools_for(gateway), BlockingListener())
    manager = spark._jsparkSession.listenerManager()
    manager.register(blocking)  # Spark puts the query listeners' bus on the shared queue
    out = tmp_path / "out"
    try:

        def body() -> None:
            spark.range(2).write.parquet(str(out))

        _, result = run_captured(spark, body, timeout=3.0)
        assert not drain(spark.sparkContext._jsc, 0.5)  # the whole bus is held up
    finally:
        unblock.set()
        manager.unregister(blocking)
        callback_server.release_callback_server(gateway)
    assert names(result.outputs) == {local(out)}
    assert result.complete
