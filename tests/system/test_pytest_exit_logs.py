"""A user's pytest session that imports Airflow and runs a Spark job ends without py4j's
``--- Logging error --- ValueError: I/O operation on closed file``: the plugin closes py4j's
connections before pytest closes the capture file that Airflow's root log handler writes to, and
no connection opens after that close (py4j's finalizer worker would open one for JVM objects
released just before it; the session's conftest makes that happen every time)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.support.processes import run_to_end

# What a user's test module looks like: Airflow imported at collection (its logging setup binds a
# root handler to pytest's captured stdout), a session-scoped SparkSession, one small job.
USER_TEST = """
import airflow  # noqa: F401
import pytest


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_job(spark, tmp_path):
    spark.range(3).write.parquet(str(tmp_path / "out"))
    assert spark.read.parquet(str(tmp_path / "out")).count() == 3
"""

# Two things that happen on a loaded machine, made certain: JVM objects become garbage right before
# the plugin's close (in a reference cycle, as py4j's collection proxies are, so the close's own
# collection frees them), and the exit takes long enough for py4j's finalizer worker, which wakes
# once a second, to run after the close.
USER_CONFTEST = """
import time

import pytest


class ReleaseJavaObjectsLate:
    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self, config):
        from pyspark import SparkContext

        for _ in range(3):
            proxy = SparkContext._jvm.java.util.ArrayList()
            proxy.cycle = proxy
        del proxy


class SlowExit:
    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config):
        time.sleep(1.5)


def pytest_configure(config):
    config.pluginmanager.register(ReleaseJavaObjectsLate(), "release-java-objects-late")
    config.pluginmanager.register(SlowExit(), "slow-exit")
"""


def test_pytest_session_with_airflow_and_spark_ends_without_logging_errors(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_user_job.py").write_text(USER_TEST)
    (project / "conftest.py").write_text(USER_CONFTEST)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "PYTEST", "PYSPARK"))}
    env["AIRFLOW_HOME"] = str(tmp_path / "airflow")
    result = run_to_end(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "t")],
        cwd=project,
        env=env,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    assert "1 passed" in output, output[-5000:]
    assert "plugins: lineage-operators" in output or ", lineage-operators" in output, output[:2000]
    for noise in ("Logging error", "Traceback", "I/O operation on closed file", "Closing down clientserver"):
        assert noise not in output, f"{noise!r} in the pytest session's output:\n{output[-5000:]}"
