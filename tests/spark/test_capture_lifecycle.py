"""Attribution, cleanup, failures, secrets and run facets of SparkLineageCapture."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import captured, listener_queues, local, names

from lineage_operators.spark.capture.classic import SparkLineageCapture


@pytest.fixture(scope="module")
def data(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("lifecycle")
    paths = {name: root / name for name in ("before", "during", "slow", "early")}
    for name in ("before", "slow", "early"):
        spark.range(3).write.parquet(str(paths[name]))
    return paths


def listeners(spark: Any) -> int:
    """The session's query listeners and the listener bus's listeners (the capture's relay)."""
    bus = spark.sparkContext._jsc.sc().listenerBus().listeners()
    return len(spark._jsparkSession.listenerManager().listListeners()) + int(bus.size())


def callback_server(spark: Any) -> Any:
    return spark.sparkContext._gateway.__dict__.get("_callback_server")


@pytest.fixture
def py4j_callbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    """As where ``ExecutionReader.java`` cannot be compiled: no JVM queue, so the query listener is
    a Python object the JVM calls back through py4j's callback server."""
    from lineage_operators.spark.plan import batch as plan_batch
    from lineage_operators.spark.plan import reader as plan

    monkeypatch.setattr(plan_batch, "batch_reader", lambda tools: None)
    monkeypatch.setattr(plan, "batch_reader", lambda tools: None)


def test_queries_before_start_do_not_leak(spark: Any, data: dict[str, Path]) -> None:
    spark.read.parquet(str(data["before"])).count()  # ended before the task
    early = spark.read.parquet(str(data["early"]))  # built before the task, run during it
    result = captured(spark, early.collect)
    assert names(result.inputs) == {local(data["early"])}


def test_query_running_across_start_does_not_leak(spark: Any, data: dict[str, Path]) -> None:
    slow = spark.sql(
        f"SELECT reflect('java.lang.Thread', 'sleep', bigint(2500)) AS s, id FROM parquet.`{data['slow']}`"
    )
    thread = threading.Thread(target=slow.collect)
    thread.start()
    deadline = time.monotonic() + 30
    while not spark.sparkContext.statusTracker().getActiveJobsIds() and time.monotonic() < deadline:
        time.sleep(0.05)
    capture = SparkLineageCapture(spark)
    capture.start()
    try:
        thread.join()
        spark.range(2).write.parquet(str(data["during"]))
    finally:
        result = capture.stop()
    assert names(result.outputs) == {local(data["during"])}
    assert result.inputs == []


@pytest.mark.parametrize("way_in", ["execution queue", "py4j callbacks"])
def test_cleanup_restores_listeners_and_callback_server(
    spark: Any, way_in: str, request: pytest.FixtureRequest
) -> None:
    if way_in == "py4j callbacks":
        request.getfixturevalue("py4j_callbacks")
    captured(spark, lambda: None)  # lines before 4.2 register ExecutionIds once per context
    before_listeners, before_server = listeners(spark), callback_server(spark)
    capture = SparkLineageCapture(spark)
    capture.start()
    # the execution queue (or the query relay) and the RDD-job listener
    assert listeners(spark) == before_listeners + 2
    if way_in == "execution queue":
        assert callback_server(spark) is before_server  # nothing calls Python back
    else:
        assert callback_server(spark) is not None
    spark.range(1).collect()
    capture.stop()
    assert listeners(spark) == before_listeners
    assert callback_server(spark) is before_server
    # a stopped capture sees nothing more, and stop() is idempotent
    spark.range(1).collect()
    assert capture.stop().executions == 1


def test_the_capture_adds_no_listener_queue(spark: Any) -> None:
    """Spark wakes each listener queue's thread for every event of the task: the capture's relay
    and RDD-job listener join a queue Spark runs anyway, instead of the shared queue, which
    ``listenerManager().register`` would start for the query listeners' bus."""
    before = listener_queues(spark)
    capture = SparkLineageCapture(spark)
    capture.start()
    try:
        during = listener_queues(spark)
        spark.range(1).collect()
    finally:
        result = capture.stop()
    assert during == before
    assert result.executions == 1


def test_without_the_compiled_helpers_the_query_listener_is_registered(
    spark: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, py4j_callbacks: None
) -> None:
    from lineage_operators.spark.jvm.tools import tools_for

    # as where Handles.java cannot be compiled (a second compile of the other classes, under the
    # same names, would confuse py4j's method cache: the shared tools keep theirs)
    monkeypatch.setattr(tools_for(spark.sparkContext._gateway), "fast", lambda: None)
    before = len(spark._jsparkSession.listenerManager().listListeners())
    capture = SparkLineageCapture(spark)
    capture.start()
    try:
        registered = len(spark._jsparkSession.listenerManager().listListeners())
        spark.range(2).write.parquet(str(tmp_path / "out"))
    finally:
        result = capture.stop()
    assert registered == before + 1
    assert len(spark._jsparkSession.listenerManager().listListeners()) == before
    assert names(result.outputs) == {local(tmp_path / "out")}


def test_a_stopped_capture_is_not_kept_alive_by_py4js_proxy_pool(spark: Any, py4j_callbacks: None) -> None:
    """The pool holds each task's listener until the JVM collects its proxy; through the listener's
    sink it held the capture and its application, some for the rest of the process."""
    import gc
    import weakref

    pool = spark.sparkContext._gateway.gateway_property.pool
    capture = SparkLineageCapture(spark)
    capture.start()
    try:
        spark.range(3).collect()
        listener = capture._listener
        assert any(value is listener for value in pool.dict.values())
    finally:
        result = capture.stop()
    assert result.executions == 1
    gone = weakref.ref(capture)
    del capture
    gc.collect()
    assert gone() is None
    assert not listener.enabled


def test_callback_server_started_by_someone_else_is_left_running(spark: Any, py4j_callbacks: None) -> None:
    from pyspark.java_gateway import ensure_callback_server_started

    from lineage_operators.spark.session import callback_server as listener

    gateway = spark.sparkContext._gateway
    was_running = callback_server(spark) is not None
    ensure_callback_server_started(gateway)
    server = callback_server(spark)
    try:
        result = captured(spark, lambda: spark.range(1).collect())
        assert result.executions == 1
        assert callback_server(spark) is server  # still running: not ours to stop
    finally:
        if not was_running:  # put the session back as we found it
            listener._unblock_connections(server)
            listener._shutdown_keeping_pool(server)
            gateway.__dict__["_callback_server"] = None


def test_two_captures_share_the_callback_server(spark: Any, py4j_callbacks: None) -> None:
    first, second = SparkLineageCapture(spark), SparkLineageCapture(spark)
    first.start()
    second.start()
    spark.range(1).collect()
    assert first.stop().executions == 1
    assert callback_server(spark) is not None  # the second capture still needs it
    spark.range(2).collect()
    assert second.stop().executions == 2
    assert callback_server(spark) is None


def test_failure_mid_job_keeps_what_came_before(spark: Any, data: dict[str, Path], tmp_path: Path) -> None:
    written, failed = tmp_path / "ok", tmp_path / "failed"
    capture = SparkLineageCapture(spark)
    capture.start()
    try:
        spark.read.parquet(str(data["before"])).write.parquet(str(written))
        with pytest.raises(Exception, match="boom"):
            # cast: raise_error's type is VOID, which Spark 3.5's Parquet writer rejects before any job
            spark.range(3).selectExpr("CAST(raise_error('boom') AS STRING) AS x").write.parquet(str(failed))
        snapshot = capture.snapshot()
        assert capture.active
    finally:
        final = capture.stop()
    assert local(written) in names(snapshot.outputs)
    assert names(snapshot.inputs) == {local(data["before"])}
    assert names(final.outputs) == names(snapshot.outputs)
    failed_outputs = [d for d in final.outputs if (d.namespace, d.name) == local(failed)]
    assert not failed_outputs or "outputStatistics" not in failed_outputs[0].output_facets


def test_failed_analysis_is_ignored(spark: Any) -> None:
    def body() -> None:
        with pytest.raises(Exception, match=r"PATH_NOT_FOUND|does not exist"):
            spark.read.parquet("/nonexistent/lineage/path").count()

    result = captured(spark, body)
    assert result.inputs == []
    assert result.outputs == []


def test_jdbc_write_is_named_without_credentials(spark: Any) -> None:
    """No database needed: the write fails in the driver, but its plan names the target."""
    url = "jdbc:postgresql://dbhost:5433/sales?user=alice&password=hunter2"

    def body() -> None:
        with pytest.raises(Exception):  # noqa: B017, PT011 - no driver / no server
            spark.range(2).write.jdbc(url, "public.orders", mode="append", properties={"password": "s3cret"})

    result = captured(spark, body)
    assert names(result.outputs) == {("postgres://dbhost:5433", "sales.public.orders")}
    text = repr(result)
    assert "hunter2" not in text
    assert "s3cret" not in text
    assert "alice" not in text


def test_spark_connect_like_session_is_not_captured() -> None:
    class NotClassic:
        sparkContext = None

    capture = SparkLineageCapture(NotClassic())
    capture.start()  # logs a warning, never raises
    result = capture.stop()
    assert result.inputs == []
    assert result.outputs == []
    assert not result.complete


def test_run_facets(spark: Any) -> None:
    result = captured(spark, lambda: None)
    engine = result.run_facets["spark_processingEngine"]
    assert (engine.name, engine.version) == ("spark", spark.version)
    from importlib.metadata import version

    from lineage_operators._version import __version__

    assert engine.openlineageAdapterVersion == version(
        "openlineage-python"
    )  # the client, as openlineage-spark
    assert result.run_facets["lineageOperators"].version == __version__
    details = result.run_facets["spark_applicationDetails"]
    assert details.applicationId == spark.sparkContext.applicationId
    assert (details.master, details.appName, details.deployMode) == (
        "local[2]",
        "lineage-operators-tests",
        "client",
    )
    assert details._schemaURL.startswith("https://")
    assert details._producer


def test_jdbc_read_and_write_with_embedded_derby(spark: Any) -> None:
    """JDBCRelation reads (table and query) and JDBC writes, against Derby shipped with Spark."""
    url = "jdbc:derby:memory:lineage_capture;create=true"
    driver = {"driver": "org.apache.derby.jdbc.EmbeddedDriver"}

    def body() -> None:
        frame = spark.range(3).selectExpr("id", "cast(id AS STRING) AS name")
        frame.write.jdbc(url, "APP.PEOPLE", mode="overwrite", properties={**driver, "password": "s3cret"})
        spark.read.jdbc(url, "APP.PEOPLE", properties=driver).count()
        query = spark.read.format("jdbc").options(url=url, query='SELECT "id" FROM APP.PEOPLE', **driver)
        query.load().collect()

    result = captured(spark, body)
    assert len(result.outputs) == 1
    assert len(result.inputs) == 1  # the table read and the query read name one dataset
    (written,), (read,) = result.outputs, result.inputs
    assert (written.namespace, written.name) == (read.namespace, read.name)
    assert read.name.endswith("APP.PEOPLE")
    assert written.facets["lifecycleStateChange"].lifecycleStateChange.value == "OVERWRITE"
    assert [(x.name, x.type) for x in read.facets["schema"].fields] == [("id", "long"), ("name", "string")]
    assert "s3cret" not in repr(result)
