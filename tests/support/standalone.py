"""A Spark standalone cluster on loopback: one master and one small worker, from pyspark's own jars.

pyspark's package has no ``start-master.sh``; the daemons are started the way those scripts do,
``java -cp "<pyspark>/jars/*" org.apache.spark.deploy.master.Master`` (and ``worker.Worker``), bound
to 127.0.0.1, with ``SPARK_HOME`` = the pyspark package (the worker builds its executors' class path
from ``$SPARK_HOME/jars``). Every port is 0 and the master's real ports are read from its log: a port
picked beforehand can be taken by another process before the JVM binds it (Spark then silently moves
to the next port, and the test talked to someone else's web page). The master's REST server, which
always wants port 6066, is off. The worker has 1 core and 1 GiB. ``stop()`` terminates both
processes; everything they write stays in a temporary directory.

Use from a conftest or test module::

    from tests.support.standalone import standalone_cluster  # noqa: F401  (module-scoped fixture)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

HOST = "127.0.0.1"


class StandaloneCluster:
    """Master + one worker; ``master_url`` is ``spark://127.0.0.1:<port>``."""

    def __init__(self, start_timeout: float = 180.0) -> None:
        import pyspark

        self.spark_home = Path(pyspark.__file__).parent
        self.start_timeout = start_timeout
        self.work = Path(tempfile.mkdtemp(prefix="lineage-standalone-"))
        self.master_url = ""
        self.ui_port = 0
        self._processes: list[subprocess.Popen[bytes]] = []

    def _java(self) -> str:
        home = os.environ.get("JAVA_HOME")
        found = Path(home) / "bin" / "java" if home else None
        return str(found) if found and found.exists() else (shutil.which("java") or "java")

    def _scala_version(self) -> str:
        """``2.13`` from ``jars/scala-library-2.13.x.jar``."""
        for jar in (self.spark_home / "jars").glob("scala-library-*.jar"):
            return ".".join(jar.stem.removeprefix("scala-library-").split(".")[:2])
        return "2.13"

    def _launch(self, name: str, main_class: str, *args: str, java_options: tuple[str, ...] = ()) -> None:
        env = {
            **os.environ,
            "SPARK_HOME": str(self.spark_home),
            "SPARK_LOCAL_IP": HOST,
            "SPARK_LOCAL_DIRS": str(self.work / "local"),
            "PYSPARK_PYTHON": sys.executable,
            # the worker's launcher looks for build directories unless told the Scala version
            "SPARK_SCALA_VERSION": self._scala_version(),
        }
        log = (self.work / f"{name}.log").open("wb")
        classpath = f"{self.spark_home / 'jars'}/*"
        command = [self._java(), "-Xmx256m", *java_options, "-cp", classpath, main_class, *args]
        self._processes.append(
            subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.work)
        )

    def start(self) -> StandaloneCluster:
        self._launch(
            "master",
            "org.apache.spark.deploy.master.Master",
            *("--host", HOST, "--port", "0", "--webui-port", "0"),
            java_options=("-Dspark.master.rest.enabled=false",),
        )
        deadline = time.monotonic() + self.start_timeout
        self.master_url = self._wait_for_log("master", r"Starting Spark master at (spark://\S+)", deadline)
        ui_port = self._wait_for_log("master", r"started service 'MasterUI' on port (\d+)", deadline)
        self.ui_port = int(ui_port)
        (self.work / "worker").mkdir()
        self._launch(
            "worker",
            "org.apache.spark.deploy.worker.Worker",
            *("--host", HOST, "--port", "0", "--webui-port", "0"),
            *("--cores", "1", "--memory", "1g", "--work-dir", str(self.work / "worker")),
            self.master_url,
        )
        self._wait_for_worker(deadline)
        return self

    def _check_alive(self) -> None:
        for process in self._processes:
            if process.poll() is not None:
                raise RuntimeError(f"standalone daemon exited early: {self.logs()}")

    def _wait_for_log(self, name: str, pattern: str, deadline: float) -> str:
        """The first group of ``pattern`` once the daemon's log has it."""
        log = self.work / f"{name}.log"
        while time.monotonic() < deadline:
            self._check_alive()
            found = re.search(pattern, log.read_text(errors="replace"))
            if found:
                return found.group(1)
            time.sleep(0.2)
        raise RuntimeError(f"{name} did not log {pattern!r} within {self.start_timeout:.0f}s: {self.logs()}")

    def _wait_for_worker(self, deadline: float) -> None:
        url = f"http://{HOST}:{self.ui_port}/json/"
        while time.monotonic() < deadline:
            self._check_alive()
            try:
                with urllib.request.urlopen(url, timeout=2) as reply:
                    state = json.load(reply)
                if int(state.get("aliveworkers", 0)) >= 1:
                    return
            except (OSError, ValueError):
                pass
            time.sleep(0.5)
        raise RuntimeError(f"no worker registered within {self.start_timeout:.0f}s: {self.logs()}")

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}" for p in sorted(self.work.glob("*.log"))
        )

    def stop(self) -> None:
        for process in reversed(self._processes):
            if process.poll() is None:
                process.terminate()
        for process in self._processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._processes.clear()
        shutil.rmtree(self.work, ignore_errors=True)


@pytest.fixture(scope="module")
def standalone_cluster() -> Iterator[StandaloneCluster]:
    cluster = StandaloneCluster()
    try:
        yield cluster.start()
    finally:
        cluster.stop()
