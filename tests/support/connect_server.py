"""A real Spark Connect server for tests, started from pyspark's own jars.

``ConnectServer`` runs ``org.apache.spark.sql.connect.service.SparkConnectServer`` (the jar ships
in ``pyspark/jars``) through pyspark's ``bin/spark-submit`` on 127.0.0.1 and a free port, with
its warehouse, Derby home and scratch space under one temporary directory, waits until the port
accepts connections, and ``stop()`` terminates it (its whole process group) and deletes the
directory. ``jars`` and ``conf`` add to its classpath and settings (a table format's jars and
session extensions: tests/delta starts such a server of its own). Use the session-scoped fixture::

    from tests.support.connect_server import connect_server  # noqa: F401
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from tests.support.ports import free_port as _free_port
from tests.support.processes import log_tail, stop_group, wait_until_answering

HOST = "127.0.0.1"
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
START_TIMEOUT = 180.0


def _pyspark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


class ConnectServer:
    """One Spark Connect server process; ``url`` is its ``sc://`` address."""

    def __init__(self, jars: Sequence[Path] = (), conf: Mapping[str, str] | None = None) -> None:
        self.jars = list(jars)
        self.extra_conf = dict(conf or {})
        self.root = Path(tempfile.mkdtemp(prefix="lineage-connect-"))
        self.warehouse = self.root / "warehouse"
        self.port = _free_port()
        self.url = f"sc://{HOST}:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self._log = self.root / "server.log"

    def launch(self) -> ConnectServer:
        """Start the server process (not waiting for it: :meth:`wait_ready`)."""
        home = _pyspark_home()
        conf = {
            "spark.master": "local[2]",
            "spark.connect.grpc.binding.address": HOST,
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.sql.warehouse.dir": str(self.warehouse),
            "spark.local.dir": str(self.root / "local"),
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.driver.host": HOST,
            "spark.driver.bindAddress": HOST,
            "spark.driver.extraJavaOptions": f"-Dderby.system.home={self.root / 'derby'}",
            **self.extra_conf,
        }
        command = [str(home / "bin" / "spark-submit"), "--class", SERVER_CLASS, "--name", "lineage-tests"]
        if self.jars:
            command += ["--jars", ",".join(str(jar) for jar in self.jars)]
        for key, value in conf.items():
            command += ["--conf", f"{key}={value}"]
        command.append("spark-internal")
        env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": HOST}
        env.pop("SPARK_REMOTE", None)
        env.pop("SPARK_CONNECT_MODE_ENABLED", None)
        with open(self._log, "wb") as log:
            self._process = subprocess.Popen(
                command,
                cwd=self.root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        atexit.register(self.stop)  # also when the run is interrupted before the fixture's teardown
        return self

    def start(self) -> ConnectServer:
        """Launch the server and wait until it listens."""
        self.launch().wait_ready()
        return self

    def wait_ready(self) -> None:
        """Wait until a launched server listens (other work can run while its JVM starts)."""

        def listens() -> bool:
            with socket.create_connection((HOST, self.port), timeout=1):
                return True

        try:
            wait_until_answering(
                self._process,
                listens,
                name="Spark Connect server",
                log=self._log,
                timeout=START_TIMEOUT,
                interval=0.5,
            )
        except RuntimeError:
            self.stop()
            raise

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self._log, lines)

    def stop(self) -> None:
        process, self._process = self._process, None
        stop_group(process)
        shutil.rmtree(self.root, ignore_errors=True)


def skip_without_connect() -> None:
    """Skip the test when this pyspark cannot run a Connect server or client."""
    if not any((_pyspark_home() / "jars").glob("spark-connect_*.jar")):
        pytest.skip("this pyspark's jars have no Spark Connect server (pyspark 3.5): Connect is 4.x only")
    pytest.importorskip(
        "pyspark.sql.connect.client", reason="the `connect` extra is not installed", exc_type=ImportError
    )


@pytest.fixture(scope="session")
def connect_server() -> Iterator[ConnectServer]:
    """A Spark Connect server shared by the whole test run, stopped at its end."""
    skip_without_connect()
    server = ConnectServer().start()
    try:
        yield server
    finally:
        server.stop()


def emit_in_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The provider's ``[openlineage] execute_in_thread``, as docs/spark-connect.md recommends for Connect
    tasks: by default the provider forks the task's process to send an event, and a fork of a process
    holding a Spark Connect (gRPC) channel can block for ever inside gRPC's fork handler (seen here:
    provider 2.20.0, grpcio 1.85.3, a ``dag.test()`` of Connect tasks stuck in ``os.fork()``)."""
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__EXECUTE_IN_THREAD", "true")
