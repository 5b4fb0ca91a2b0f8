"""One local SparkSession shared by every test that needs a real JVM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

_HERE = Path(__file__).resolve().parent
_SESSIONS: list[Any] = []


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """local[2], no UI, 2 shuffle partitions, warehouse and Derby under a temporary directory."""
    from pyspark.sql import SparkSession

    work = tmp_path_factory.mktemp("spark")
    builder = SparkSession.builder
    session = (
        builder.master("local[2]")
        .appName("lineage-operators-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.local.dir", str(work / "local"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={Path(work) / 'derby'}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    _SESSIONS.append(session)
    try:
        yield session
    finally:
        _stop_sessions()


@pytest.fixture(scope="session")
def connect_spark(connect_server: Any) -> Iterator[Any]:
    """A Spark Connect session on the test server (built with the Connect builder, so the
    process-wide ``SPARK_CONNECT_MODE_ENABLED`` switch of ``SparkSession.builder.remote`` stays off
    for the classic session the other tests share)."""
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    session = RemoteSparkSession.builder.remote(connect_server.url).create()
    _SESSIONS.append(session)  # stopped with the classic one, when the last Spark test is done
    try:
        yield session
    finally:
        _stop_sessions()


def _stop_sessions() -> None:
    while _SESSIONS:
        _SESSIONS.pop().stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Stop the session once the last test of this directory and its fixtures are torn down.

    A session-scoped fixture lives until the whole run ends, and ``getOrCreate`` elsewhere (the
    system tests' operators) would silently reuse this session and its conf.
    """
    try:
        return (yield)
    finally:
        if nextitem is None or _HERE not in Path(str(nextitem.path)).resolve().parents:
            _stop_sessions()
