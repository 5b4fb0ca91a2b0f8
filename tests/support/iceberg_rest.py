"""A real Iceberg REST catalog for tests: Iceberg's own REST catalog test server as a separate ``java``.

``org.apache.iceberg.rest.RESTCatalogServer`` (iceberg-open-api's test fixtures) serves the REST catalog
protocol over a JDBC catalog (SQLite, one file here) whose tables live under a local warehouse. It reads
its settings from ``CATALOG_*`` environment variables (``CATALOG_REST_PORT`` -> ``rest.port``,
``CATALOG_WAREHOUSE`` -> ``warehouse``, ``CATALOG_URI`` -> the JDBC URI). Its jars are pinned in
:mod:`tests.support.maven_jars`; Hadoop's client jars come from the pyspark of the test process (the
server only builds a Hadoop ``Configuration`` and writes metadata through Hadoop's local file system).
The port is a free one, readiness is its ``GET /v1/config`` answering, and :meth:`RestCatalog.stop`
ends the process group it started.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.ports import HOST, free_port
from tests.support.processes import log_tail, stop_group, wait_until_answering

SERVER_CLASS = "org.apache.iceberg.rest.RESTCatalogServer"
START_TIMEOUT = 90.0


def hadoop_jars() -> list[Path]:
    """The hadoop-client jars of this process's pyspark (the server's ``Configuration`` and file system),
    with the commons-logging API Hadoop logs through (pyspark 3.5: commons-logging; 4.x: jcl-over-slf4j)."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    found = sorted(jars.glob("hadoop-client-api-*.jar")) + sorted(jars.glob("hadoop-client-runtime-*.jar"))
    if len(found) != 2:
        raise RuntimeError(f"pyspark's jars ({jars}) lack hadoop-client-api/-runtime: found {found}")
    logging = sorted(jars.glob("commons-logging-*.jar")) or sorted(jars.glob("jcl-over-slf4j-*.jar"))
    if not logging:
        raise RuntimeError(f"pyspark's jars ({jars}) have no commons-logging API for Hadoop")
    return [*found, logging[0]]


def java() -> str:
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not found:
        raise RuntimeError("no `java` (JAVA_HOME or PATH): the REST catalog server needs Java 17")
    return found


@dataclass
class RestCatalog:
    """One running REST catalog server: its ``uri`` and the warehouse its tables live under."""

    classpath: list[Path]
    root: Path
    port: int = field(default_factory=free_port)
    _process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    def start(self) -> RestCatalog:
        self.warehouse.mkdir(parents=True, exist_ok=True)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("CATALOG_")},
            "CATALOG_REST_PORT": str(self.port),
            "CATALOG_WAREHOUSE": str(self.warehouse),
            "CATALOG_URI": f"jdbc:sqlite:{self.root / 'catalog.db'}",
        }
        command = [java(), "-Xmx256m", "-cp", os.pathsep.join(str(j) for j in self.classpath), SERVER_CLASS]
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                command,
                cwd=self.root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        def answers() -> bool:
            with urllib.request.urlopen(f"{self.uri}/v1/config", timeout=2) as answer:
                return bool(answer.status == 200)

        try:
            wait_until_answering(
                self._process,
                answers,
                name="the Iceberg REST catalog server",
                log=self.log,
                timeout=START_TIMEOUT,
            )
        except RuntimeError:
            self.stop()
            raise

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log, lines)

    def stop(self) -> None:
        process, self._process = self._process, None
        stop_group(process)
