"""A real Hive metastore on loopback for tests: the standalone metastore server over embedded Derby, and
the Spark conf of a session with Hive support that uses it.

The server (tests/support/hive_metastore_pins.py says which release and why) runs from its distribution
archive, pinned and unpacked once into the jar cache, with Hadoop's shaded client beside it. Each start
gets a directory of its own: the Derby database, the warehouse (the tables' folders), the server's
configuration and logs. The schema tool creates the metastore's tables first, as an operator does before a
first start (``-initSchema``); the server then checks that schema instead of letting DataNucleus improvise
one.

Derby rather than PostgreSQL (tests/support/postgres.py): one embedded database file that only the server
opens, nothing else to start, stop or clean up; the metastore's behaviour towards Spark (the Thrift API) is
the same whatever database holds its tables, and Spark never sees that database.

:func:`hive_spark_conf` is what a session needs to use the server: Hive as the session catalog, the
metastore's Thrift URI, and the server's warehouse as Spark's (a ``CREATE DATABASE`` from Spark places
the database under it, like the server's own ``default``).

A server given an S3 endpoint (``HiveMetastore(s3_endpoint=...)``) also serves databases and tables on S3: the
metastore makes a database's, a managed table's and a partition's folder itself, so it gets S3A (pinned
beside its distribution) and the same S3A conf as Spark's (tests/support/s3_server.py) in its site file.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from tests.support.iceberg_rest import java
from tests.support.ports import HOST, free_port
from tests.support.processes import ServerProcess, log_tail, started_or_failed

START_TIMEOUT = 120.0
SCHEMA_TOOL_TIMEOUT = 300.0
#: Short-lived JVMs on a busy 2-core machine: C1 only, the serial collector; the ``--add-opens`` are the
#: ones Spark's launcher gives its own JVMs on Java 17 (DataNucleus and Hadoop reach into these packages).
JVM_OPTIONS = (
    "-Xmx384m",
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    *(
        f"--add-opens=java.base/{package}=ALL-UNNAMED"
        for package in (
            "java.lang",
            "java.lang.invoke",
            "java.lang.reflect",
            "java.io",
            "java.net",
            "java.nio",
            "java.util",
            "java.util.concurrent",
            "sun.nio.ch",
            "sun.security.action",
        )
    ),
)
#: The server's log: INFO and up to its stdout (the log tail of a MetastoreUnavailable).
LOG4J2 = """status = WARN
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n
rootLogger.level = INFO
rootLogger.appenderRef.console.ref = console
logger.datanucleus.name = DataNucleus
logger.datanucleus.level = WARN
"""


class MetastoreUnavailable(RuntimeError):
    """The metastore's pinned files could not be had, its schema not created, or the server did not
    start; the message says why."""


def distribution(s3: bool = False) -> tuple[Path, list[Path]]:
    """(the unpacked distribution's folder, the server's classpath): the archive's ``lib/`` and the pinned
    Hadoop client and libraries, each fetched and verified (tests/support/maven_jars.py); with ``s3``, the
    pinned S3A jars ahead of them (their httpcore wins over ``lib/``'s older one)."""
    from tests.support.hive_metastore_pins import HIVE_METASTORE_DIST_ROOT
    from tests.support.maven_jars import (
        HIVE_METASTORE_NAMES,
        HIVE_METASTORE_S3A_NAMES,
        JarUnavailable,
        fetch_all,
    )

    try:
        archive, *extras = fetch_all(HIVE_METASTORE_NAMES)
        s3a = fetch_all(HIVE_METASTORE_S3A_NAMES) if s3 else []
    except JarUnavailable as error:
        raise MetastoreUnavailable(f"the Hive metastore's pinned files are unavailable: {error}") from None
    home = _unpacked(archive) / HIVE_METASTORE_DIST_ROOT
    lib = sorted((home / "lib").glob("*.jar"))
    if not any(jar.name.startswith("hive-standalone-metastore-") for jar in lib):
        raise MetastoreUnavailable(f"{home / 'lib'} holds no hive-standalone-metastore jar")
    return home, [*s3a, *lib, *extras]


def _unpacked(archive: Path) -> Path:
    """The verified ``archive`` unpacked beside it, once: into a staging folder renamed into place, so a
    run that stopped half-way leaves nothing that looks complete."""
    target = archive.with_name(archive.name.removesuffix(".tar.gz"))
    if (target / ".complete").is_file():
        return target
    with tempfile.TemporaryDirectory(dir=archive.parent, prefix=".unpack-") as staging:
        with tarfile.open(archive) as tar:
            tar.extractall(staging, filter="data")
        (Path(staging) / ".complete").write_text(archive.name)
        shutil.rmtree(target, ignore_errors=True)
        os.replace(staging, target)
        Path(staging).mkdir()  # TemporaryDirectory removes what it made
    return target


def _site_xml(settings: dict[str, str]) -> str:
    properties = "".join(
        f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n"
        for k, v in settings.items()
    )
    return f'<?xml version="1.0"?>\n<configuration>\n{properties}</configuration>\n'


class HiveMetastore(ServerProcess):
    """The standalone metastore on a free loopback port, its Derby database and warehouse in a temporary
    directory; with ``s3_endpoint``, S3A against that S3 API for databases and tables on S3."""

    def __init__(self, s3_endpoint: str | None = None) -> None:
        self.s3_endpoint = s3_endpoint
        self.port = 0
        self.root: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        """The Thrift URI clients use: ``thrift://127.0.0.1:<port>``."""
        return f"thrift://{HOST}:{self.port}"

    @property
    def namespace(self) -> str:
        """What openlineage-spark names the metastore's tables' symlinks by: ``hive://127.0.0.1:<port>``."""
        return f"hive://{HOST}:{self.port}"

    @property
    def warehouse(self) -> Path:
        assert self.root is not None, "HiveMetastore.start() first"
        return self.root / "warehouse"

    @property
    def log(self) -> Path:
        assert self.root is not None, "HiveMetastore.start() first"
        return self.root / "metastore.log"

    def settings(self) -> dict[str, str]:
        """The server's ``metastore-site.xml``: Derby, the warehouse, the port, few threads."""
        assert self.root is not None
        database = self.root / "metastore_db"
        return {
            "javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={database};create=true",
            "javax.jdo.option.ConnectionDriverName": "org.apache.derby.jdbc.EmbeddedDriver",
            "metastore.warehouse.dir": str(self.warehouse),
            "metastore.thrift.port": str(self.port),
            "metastore.schema.verification": "true",
            # the Thrift server keeps its minimum of worker threads alive: 200 by default
            "metastore.server.min.threads": "4",
            "metastore.server.max.threads": "64",
            "metastore.event.db.notification.api.auth": "false",
            # as the distribution's own metastore-site.xml: the defaults name classes of Hive's query engine
            # (hive-exec), which a standalone server does not have
            "metastore.expression.proxy": "org.apache.hadoop.hive.metastore.DefaultPartitionExpressionProxy",
            "metastore.task.threads.always": "org.apache.hadoop.hive.metastore.events.EventCleanerTask",
            **self._s3a_settings(),
        }

    def _s3a_settings(self) -> dict[str, str]:
        """Spark's S3A conf against the endpoint (tests/support/s3_server.py) as Hadoop keys; none without."""
        if self.s3_endpoint is None:
            return {}
        from tests.support.s3_server import s3a_conf

        return {k.removeprefix("spark.hadoop."): v for k, v in s3a_conf(self.s3_endpoint).items()}

    def start(self) -> HiveMetastore:
        home, classpath = distribution(s3=self.s3_endpoint is not None)
        try:
            runtime = java()
        except RuntimeError as error:
            raise MetastoreUnavailable(f"the Hive metastore cannot start: {error}") from None
        atexit.register(self.stop)  # a process that ends without stop(): no server outlives it
        self.root = Path(tempfile.mkdtemp(prefix="lineage-hive-"))
        self.warehouse.mkdir()
        self.port = free_port()
        conf = self.root / "conf"
        conf.mkdir()
        (conf / "metastore-site.xml").write_text(_site_xml(self.settings()))
        (conf / "metastore-log4j2.properties").write_text(LOG4J2)
        command = [
            runtime,
            *JVM_OPTIONS,
            f"-Dlog4j.configurationFile={conf / 'metastore-log4j2.properties'}",
            f"-Dderby.system.home={self.root}",  # derby.log here, not in the working directory
            "-cp",
            os.pathsep.join([str(conf), *(str(jar) for jar in classpath)]),
        ]
        env = {**os.environ, "METASTORE_HOME": str(home)}  # the schema tool's SQL scripts are under it
        try:
            self._init_schema(command, env)
            self._serve(command, env)
        except BaseException:
            self.stop()
            raise
        return self

    def _init_schema(self, command: list[str], env: dict[str, str]) -> None:
        from tests.support.hive_metastore_pins import HIVE_SCHEMA_TOOL_MAIN

        assert self.root is not None
        schema_log = self.root / "schematool.log"
        with schema_log.open("wb") as log:
            try:
                done = subprocess.run(
                    [*command, HIVE_SCHEMA_TOOL_MAIN, "-dbType", "derby", "-initSchema"],
                    cwd=self.root,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    timeout=SCHEMA_TOOL_TIMEOUT,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                raise MetastoreUnavailable(
                    f"the schema tool did not end within {SCHEMA_TOOL_TIMEOUT:.0f}s:\n{log_tail(schema_log)}"
                ) from None
        if done.returncode != 0:
            raise MetastoreUnavailable(
                f"the schema tool failed (exit {done.returncode}):\n{log_tail(schema_log)}"
            )

    def _serve(self, command: list[str], env: dict[str, str]) -> None:
        from tests.support.hive_metastore_pins import HIVE_METASTORE_MAIN

        assert self.root is not None
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                [*command, HIVE_METASTORE_MAIN, "-p", str(self.port)],
                cwd=self.root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise MetastoreUnavailable(f"the Hive metastore exited early:\n{self.log_tail()}")
            try:  # the Thrift port accepts connections once the server is ready to serve
                with socket.create_connection((HOST, self.port), timeout=2):
                    return
            except OSError:
                time.sleep(0.5)
        raise MetastoreUnavailable(
            f"the Hive metastore did not listen on {self.port} within {START_TIMEOUT:.0f}s:\n"
            + self.log_tail()
        )

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log, lines) if self.root is not None else "<not started>"


def hive_spark_conf(metastore: HiveMetastore) -> dict[str, str]:
    """Spark conf for a session with Hive support on ``metastore``: Hive as the session catalog, its
    Thrift URI (read by Spark's Hive client, and by openlineage-spark and our capture to name tables),
    the server's warehouse as Spark's, a client that gives up fast when the server went away."""
    return {
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.hive.metastore.uris": metastore.uri,
        "spark.sql.warehouse.dir": str(metastore.warehouse),
        "spark.hadoop.hive.metastore.client.socket.timeout": "60",
        "spark.hadoop.hive.metastore.connect.retries": "2",
        # INSERT OVERWRITE ... PARTITION (p) with a dynamic partition column
        "spark.hadoop.hive.exec.dynamic.partition.mode": "nonstrict",
    }


@pytest.fixture(scope="session")
def hive_metastore() -> Iterator[HiveMetastore]:
    """The Hive metastore for the whole session; one that cannot start fails the tests that need it (no
    skip)."""
    with started_or_failed(HiveMetastore(), MetastoreUnavailable) as server:
        yield server
