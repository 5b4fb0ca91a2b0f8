"""A real Kafka broker on loopback for tests: one KRaft node (broker and controller in one process).

Kafka's own server (``kafka.Kafka``, jars pinned in tests/support/kafka_pins.py) runs with its storage
formatted first in a temporary directory (``kafka.tools.StorageTool format``, the ``kafka-storage``
script's class), as an operator sets up a new node. It listens on two free loopback ports, both
plaintext: :attr:`KafkaBroker.bootstrap` and :attr:`KafkaBroker.second_bootstrap`. The second one is
there so that a job can list several bootstrap servers that all reach the same cluster (how
openlineage-spark picks the namespace out of such a list is what the tests show).

Topics are created by the tests through Kafka's admin client inside the Spark JVM
(:func:`create_topics`), where Spark's Kafka connector already put ``kafka-clients``: no second JVM.

:func:`spark_kafka_jars` are Spark's Kafka source and sink for this process's pyspark line, pinned.
"""

from __future__ import annotations

import atexit
import base64
import os
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.support.iceberg_rest import java
from tests.support.ports import HOST, free_port
from tests.support.processes import ServerProcess, log_tail, started_or_failed

START_TIMEOUT = 120.0
JVM_OPTIONS = ("-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djava.awt.headless=true")
BROKER_MAIN = "kafka.Kafka"
STORAGE_TOOL = "kafka.tools.StorageTool"
#: What Kafka's server logs once it serves clients (``KafkaRaftServer``).
STARTED = "Kafka Server started"
#: Kafka's log: INFO to stdout, one line each (the tail of a KafkaUnavailable; STARTED is an INFO line).
LOG4J2 = """status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = out
"""


class KafkaUnavailable(RuntimeError):
    """Kafka's jars could not be had, or the broker did not start; the message says why."""


def spark_kafka_jars() -> list[Path]:
    """The pinned jars of Spark's Kafka source and sink for this process's pyspark line."""
    import pyspark
    from tests.support.maven_jars import SPARK_KAFKA_NAMES, JarUnavailable, fetch_all, spark_line

    line = spark_line(pyspark.__version__)
    if line not in SPARK_KAFKA_NAMES:
        raise KafkaUnavailable(
            f"no Spark Kafka connector is pinned for pyspark {line} (pinned: {', '.join(SPARK_KAFKA_NAMES)}; "
            "tests/support/kafka_pins.py says why a line is missing)"
        )
    try:
        return fetch_all(SPARK_KAFKA_NAMES[line])
    except JarUnavailable as error:
        raise KafkaUnavailable(f"the pinned Spark Kafka jars for {line} are unavailable: {error}") from None


def cluster_id() -> str:
    """A new cluster id as Kafka writes one: 16 random bytes, URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


class KafkaBroker(ServerProcess):
    """One KRaft node on free loopback ports, its storage and log in a temporary directory."""

    def __init__(self) -> None:
        self.port = 0
        self.second_port = 0
        self.controller_port = 0
        self.root: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._command: list[str] = []

    @property
    def bootstrap(self) -> str:
        """``host:port`` of the main listener."""
        return f"{HOST}:{self.port}"

    @property
    def second_bootstrap(self) -> str:
        """``host:port`` of the second listener of the same broker."""
        return f"{HOST}:{self.second_port}"

    @property
    def log(self) -> Path:
        assert self.root is not None, "KafkaBroker.start() first"
        return self.root / "kafka.log"

    def _properties(self) -> str:
        assert self.root is not None
        settings = {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": f"1@{HOST}:{self.controller_port}",
            "controller.listener.names": "CONTROLLER",
            "listeners": (
                f"PLAINTEXT://{HOST}:{self.port},SECOND://{HOST}:{self.second_port},"
                f"CONTROLLER://{HOST}:{self.controller_port}"
            ),
            "advertised.listeners": f"PLAINTEXT://{HOST}:{self.port},SECOND://{HOST}:{self.second_port}",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SECOND:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "inter.broker.listener.name": "PLAINTEXT",
            "log.dirs": str(self.root / "data"),
            "num.partitions": "1",
            "auto.create.topics.enable": "true",
            # one node: every internal topic with one replica, consumer groups without the 3 s wait
            "offsets.topic.replication.factor": "1",
            "offsets.topic.num.partitions": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "log.flush.interval.messages": "10000",
        }
        return "".join(f"{key}={value}\n" for key, value in settings.items())

    def start(self) -> KafkaBroker:
        from tests.support.maven_jars import KAFKA_BROKER_NAMES, JarUnavailable, fetch_all

        try:
            jars = fetch_all(KAFKA_BROKER_NAMES)
        except JarUnavailable as error:
            raise KafkaUnavailable(f"Kafka's pinned jars are unavailable: {error}") from None
        try:
            runtime = java()
        except RuntimeError as error:
            raise KafkaUnavailable(f"Kafka cannot start: {error}") from None
        atexit.register(self.stop)  # a process that ends without stop(): no broker outlives it
        self.root = Path(tempfile.mkdtemp(prefix="lineage-kafka-"))
        self.port, self.second_port, self.controller_port = _distinct_free_ports(3)
        config = self.root / "server.properties"
        config.write_text(self._properties())
        logging = self.root / "log4j2.properties"
        logging.write_text(LOG4J2)
        base = [
            runtime,
            *JVM_OPTIONS,
            f"-Dlog4j2.configurationFile={logging}",
            "-cp",
            os.pathsep.join(str(jar) for jar in jars),
        ]
        self._format(base, config)
        self._command = [*base, BROKER_MAIN, str(config)]
        self._launch()
        return self

    def _launch(self) -> None:
        assert self.root is not None
        logged = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                self._command,
                cwd=self.root,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        try:
            self._wait_ready(logged)
        except BaseException:
            self.stop()
            raise

    def _format(self, base: Sequence[str], config: Path) -> None:
        """Format the node's storage (a new cluster id), as ``kafka-storage format`` does."""
        assert self.root is not None
        command = [*base, STORAGE_TOOL, "format", "-t", cluster_id(), "-c", str(config)]
        with self.log.open("wb") as log:
            done = subprocess.run(
                command, cwd=self.root, stdout=log, stderr=subprocess.STDOUT, timeout=120, check=False
            )
        if done.returncode != 0:
            raise KafkaUnavailable(
                f"formatting Kafka's storage failed ({done.returncode}):\n{self.log_tail()}"
            )

    def _wait_ready(self, logged: int = 0) -> None:
        """Until the log, past its first ``logged`` bytes, says the broker started and both ports answer."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise KafkaUnavailable(f"Kafka exited early:\n{self.log_tail()}")
            if STARTED in self.log.read_bytes()[logged:].decode(errors="replace") and all(
                _accepts(port) for port in (self.port, self.second_port)
            ):
                return
            time.sleep(0.3)
        raise KafkaUnavailable(f"Kafka did not start within {START_TIMEOUT:.0f}s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log, lines) if self.root is not None else "<not started>"


def _distinct_free_ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=1):
            return True
    except OSError:
        return False


def create_topics(spark: Any, bootstrap: str, topics: Sequence[str], partitions: int = 1) -> None:
    """Create ``topics`` (an existing one is kept) with Kafka's admin client in the Spark JVM, whose
    classpath has ``kafka-clients`` through Spark's Kafka connector."""
    jvm = spark.sparkContext._jvm
    properties = jvm.java.util.Properties()
    properties.setProperty("bootstrap.servers", bootstrap)
    properties.setProperty("request.timeout.ms", "20000")
    admin = jvm.org.apache.kafka.clients.admin.AdminClient.create(
        properties
    )  # a class: py4j finds its static
    try:
        existing = set(admin.listTopics().names().get())
        wanted = [name for name in topics if name not in existing]
        if not wanted:
            return
        optional = jvm.java.util.Optional
        topic_list = jvm.java.util.ArrayList()
        for name in wanted:
            topic_list.add(
                jvm.org.apache.kafka.clients.admin.NewTopic(name, optional.of(partitions), optional.empty())
            )
        admin.createTopics(topic_list).all().get()
    finally:
        admin.close()


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[KafkaBroker]:
    """Kafka for the whole session; one that cannot start fails the tests that need it (no skip)."""
    with started_or_failed(KafkaBroker(), KafkaUnavailable) as broker:
        yield broker
