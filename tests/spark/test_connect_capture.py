"""SparkConnectLineageCapture on a real Spark Connect server: the pyspark internals it relies on,
failures that lose one action's lineage only, nesting and cleanup."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from spark_helpers import PATIENT, get, local, names, run_captured

from lineage_operators.spark.connect.capture import SparkConnectLineageCapture
from lineage_operators.spark.connect.interceptor import PlanListener, attach, detach
from lineage_operators.spark.connect.server import ServerLookups

pytestmark = pytest.mark.filterwarnings("ignore")


class Recorder(PlanListener):
    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.responses: list[tuple[str, str]] = []

    def on_request(self, request: Any) -> None:
        self.requests.append(request)

    def on_response(self, operation_id: str, response: Any) -> None:
        self.responses.append((operation_id, response.WhichOneof("response_type") or "metrics"))


def captured(spark: Any, body: Any, **options: Any) -> Any:
    _, result = run_captured(spark, body, **{"timeout": PATIENT, **options})
    assert isinstance(_, SparkConnectLineageCapture)
    return result


@pytest.fixture(scope="module")
def source(connect_spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("connect") / "source"
    connect_spark.range(5).selectExpr("id", "id * 2 AS twice").write.parquet(str(path))
    return path


def test_pyspark_internals_the_interceptor_uses(connect_spark: Any, source: Path) -> None:
    """Fails loudly when a pyspark release changes what attach() and the lookups depend on:
    ``SparkConnectClient._stub`` / ``._channel`` and ``_analyze(method="input_files")``."""
    client = connect_spark.client
    original = client._stub
    assert client._channel is not None
    recorder = Recorder()
    attach(connect_spark, recorder)
    try:
        assert client._stub is not original
        rows = connect_spark.read.parquet(str(source)).where("id > 1").collect()
    finally:
        detach(connect_spark, recorder)
    assert client._stub is original
    assert len(rows) == 3
    (request,) = recorder.requests
    assert request.plan.root.WhichOneof("rel_type") == "filter"
    assert (request.operation_id, "result_complete") in recorder.responses
    files = client._analyze(
        method="input_files", plan=connect_spark.read.parquet(str(source))._plan.to_proto(client)
    )
    assert files.input_files
    assert all(f.startswith("file:") for f in files.input_files)


def test_nested_captures_share_the_interceptor(connect_spark: Any, source: Path, tmp_path: Path) -> None:
    client = connect_spark.client
    original = client._stub
    outer = SparkConnectLineageCapture(connect_spark, timeout=PATIENT)
    inner = SparkConnectLineageCapture(connect_spark, timeout=PATIENT)
    outer.start()
    inner.start()
    connect_spark.read.parquet(str(source)).count()
    first = inner.stop()
    connect_spark.range(2).write.parquet(str(tmp_path / "after"))
    second = outer.stop()
    assert client._stub is original
    assert names(first.inputs) == {local(source)}
    assert first.outputs == []
    assert names(second.outputs) == {local(tmp_path / "after")}
    assert first.complete
    assert second.complete


def test_a_failing_lookup_loses_that_action_only(
    connect_spark: Any, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    real = ServerLookups.input_files

    def flaky(self: ServerLookups, relation: Any, key: Any) -> list[str]:
        if str(source) in key[2]:  # the server fails (or times out) on this read's analysis
            raise TimeoutError("server too slow")
        return real(self, relation, key)

    monkeypatch.setattr(ServerLookups, "input_files", flaky)
    out = tmp_path / "copy"

    def body() -> None:
        assert connect_spark.read.parquet(str(source)).count() == 5  # its lookup fails
        connect_spark.range(3).write.parquet(str(out))

    with caplog.at_level(logging.WARNING):
        result = captured(connect_spark, body)
    assert names(result.outputs) == {local(out)}
    assert result.inputs == []
    assert not result.complete
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1
    assert "lineage of one Spark Connect action lost" in warnings[0]
    assert out.exists()  # the task's own work is untouched


def test_stop_waits_at_most_capture_timeout_with_one_warning(
    connect_spark: Any, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """A server that does not answer a lookup costs the task ``capture_timeout``, not the hang."""
    released = threading.Event()
    real = ServerLookups.schema

    def hanging(self: ServerLookups, relation: Any, key: Any = None) -> str:
        released.wait(60)
        return real(self, relation, key)

    monkeypatch.setattr(ServerLookups, "schema", hanging)

    def body() -> None:
        connect_spark.read.parquet(str(source)).count()
        connect_spark.range(1).write.parquet(str(tmp_path / "a"))

    try:
        with caplog.at_level(logging.WARNING):
            capture, result = run_captured(connect_spark, body, timeout=0.5, background=False)
        assert not released.is_set()  # stop() returned while the lookup still hung
    finally:
        released.set()
    assert isinstance(capture, SparkConnectLineageCapture)
    assert (result.inputs, result.outputs) == ([], [])
    assert not result.complete
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1
    assert "capture_timeout (0.5s)" in warnings[0]
    assert (tmp_path / "a").exists()


def test_a_drop_is_held_at_most_capture_timeout(
    connect_spark: Any, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """The catalog read before a DROP hangs: the DROP still runs once the timeout is spent."""
    released = threading.Event()

    def hanging(self: ServerLookups, name: str) -> Any:
        released.wait(60)
        raise TimeoutError("no answer")

    monkeypatch.setattr(ServerLookups, "describe", hanging)
    connect_spark.sql("CREATE TABLE default.held_drop USING parquet AS SELECT 1 AS id")

    def drop() -> None:
        connect_spark.sql("DROP TABLE default.held_drop")

    try:
        with caplog.at_level(logging.WARNING):
            run_captured(connect_spark, drop, timeout=0.5)
        assert not released.is_set()
    finally:
        released.set()
    assert not connect_spark.catalog.tableExists("default.held_drop")
    assert sum("capture_timeout" in r.getMessage() for r in caplog.records) == 1


def test_temp_and_persistent_views_resolve_to_what_they_read(connect_spark: Any, source: Path) -> None:
    def body() -> None:
        connect_spark.read.parquet(str(source)).createOrReplaceTempView("connect_src")
        connect_spark.sql(f"CREATE OR REPLACE VIEW default.connect_view AS SELECT * FROM parquet.`{source}`")
        connect_spark.sql("SELECT * FROM connect_src").collect()
        connect_spark.table("default.connect_view").collect()

    result = captured(connect_spark, body)
    assert names(result.inputs) == {local(source)}
    connect_spark.sql("DROP VIEW IF EXISTS default.connect_view")


def test_secrets_in_options_never_reach_the_result(connect_spark: Any, caplog: Any) -> None:
    url = "jdbc:postgresql://dbhost:5433/sales?user=alice&password=hunter2"

    def body() -> None:
        with pytest.raises(Exception):  # noqa: B017, PT011 - no such database
            connect_spark.range(2).write.jdbc(
                url, "public.orders", mode="append", properties={"password": "s3cret"}
            )

    with caplog.at_level(logging.DEBUG, logger="lineage_operators"):
        result = captured(connect_spark, body)
    assert names(result.outputs) == {("postgres://dbhost:5433", "sales.public.orders")}
    text = repr(result) + " ".join(r.getMessage() for r in caplog.records)
    assert "hunter2" not in text
    assert "s3cret" not in text


def test_the_mixins_recorder_captures_a_connect_session(
    connect_spark: Any, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lineage_operators.recorder import LineageRecorder

    monkeypatch.setenv("AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT", str(PATIENT))  # the setting applies

    recorder = LineageRecorder("dag.task")
    out = tmp_path / "recorded"
    with recorder.capturing(connect_spark):
        connect_spark.read.parquet(str(source)).write.mode("overwrite").parquet(str(out))
    assert names(recorder.inputs) == {local(source)}
    assert names(recorder.outputs) == {local(out)}
    assert recorder.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "OVERWRITE"
    assert recorder.run_facets["spark_processingEngine"].version == connect_spark.version


def test_the_subset_bound_set_on_a_connect_session_holds(connect_spark: Any, tmp_path: Path) -> None:
    """``spark.lineage_operators.subset.maxLocations`` set on the session bounds a ``subset`` facet over
    Connect too (the session facts come from the one config request, spark/session_facts.py), and the run
    facets are a classic session's: the engine, this package, the application."""
    events = tmp_path / "many"
    days = [events / f"dt=2026-01-{day:02d}" for day in range(1, 6)]
    for day in days:
        connect_spark.range(1).write.parquet(str(day))
    connect_spark.conf.set("spark.lineage_operators.subset.maxLocations", "2")
    try:
        result = captured(connect_spark, lambda: [connect_spark.read.parquet(str(d)).collect() for d in days])
    finally:
        connect_spark.conf.unset("spark.lineage_operators.subset.maxLocations")
    read = get(result.inputs, events).input_facets["subset"].inputCondition
    assert (read.locations, read.omittedLocations) == ([str(d) for d in days[:2]], 3)
    facets = {"spark_processingEngine", "spark_applicationDetails", "lineageOperators"}
    assert set(result.run_facets) == facets
    assert result.run_facets["spark_applicationDetails"].appName == "lineage-tests"


def test_a_lookup_that_fails_as_expected_logs_nothing(
    connect_spark: Any, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """``DROP TABLE IF EXISTS`` of a table that is not there: the capture's ``DESCRIBE`` fails,
    and pyspark would log that failure with the server's stack trace at ERROR (its own handler,
    on stderr) into a task that succeeds."""

    result = captured(connect_spark, lambda: connect_spark.sql("DROP TABLE IF EXISTS never_created_here"))
    assert result.complete
    printed = "".join(capfd.readouterr())
    assert "never_created_here" not in printed
    assert "TABLE_OR_VIEW_NOT_FOUND" not in printed


def test_a_stopped_sessions_second_close_leaves_the_process_alone(
    connect_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before SPARK-55406 (4.0.0 has the bug), closing any Connect client shuts down the release
    pool all clients share, and a stopped session's ``__del__`` closes its client again, whenever
    and on whichever thread the garbage collector runs it. A session the operator stopped must not
    do that to the next task's session (in one process, ``dag.test()``)."""
    from pyspark.sql.connect.client.reattach import ExecutePlanResponseReattachableIterator as Releases
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    from lineage_operators.spark.session.task_session import stop_owned_session

    stopped = RemoteSparkSession.builder.remote(connect_server.url).create()
    assert stopped.range(2).count() == 2
    stop_owned_session(stopped)
    following = RemoteSparkSession.builder.remote(connect_server.url).create()
    try:
        assert following.range(3).count() == 3
        shut_down: list[str] = []
        for name in ("shutdown", "shutdown_threadpool_if_idle"):
            if name in vars(Releases):
                monkeypatch.setattr(
                    Releases, name, classmethod(lambda cls, _name=name: shut_down.append(_name))
                )
        stopped.__del__()  # what the garbage collector runs
        assert shut_down == []
        monkeypatch.undo()
        assert following.range(4).count() == 4
    finally:
        following.stop()
