"""Where the task's SparkSession comes from: master or Spark Connect URL, conf, ownership."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lineage_operators._logging import get_logger
from lineage_operators.redaction import SPARK_REDACTION_CONF
from lineage_operators.spark.session.arguments import check_connection
from lineage_operators.spark.session.fork_safety import protect_py4j_connections_from_forks
from lineage_operators.spark.session.log4j import with_masked_logging

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = get_logger(__name__)

DEFAULT_MASTER = "local[*]"
PARENT_JOB_PREFIX = "spark.openlineage.parent"


@dataclass
class SessionSpec:
    """What to connect to. ``remote`` set means Spark Connect (``sc://...``)."""

    master: str | None = DEFAULT_MASTER
    remote: str | None = None
    conf: dict[str, str] = field(default_factory=dict)

    @property
    def is_connect(self) -> bool:
        return self.remote is not None


def spec_from_master(master: str | None, conf: Mapping[str, Any] | None = None) -> SessionSpec:
    """``sc://`` URLs are Spark Connect; anything else is a classic master URL."""
    values = {str(k): str(v) for k, v in (conf or {}).items()}
    if master and master.startswith("sc://"):
        return SessionSpec(master=None, remote=master, conf=values)
    return SessionSpec(master=master or DEFAULT_MASTER, conf=values)


def spec_from_connection(conn_id: str, conf: Mapping[str, Any] | None = None) -> SessionSpec:
    """Read an Airflow ``spark`` or ``spark_connect`` connection as Airflow's Spark provider does."""
    from airflow.sdk import BaseHook

    connection = BaseHook.get_connection(conn_id)
    host = connection.host or ""
    master = f"{host}:{connection.port}" if host and connection.port else host
    check_connection(conn_id, connection.conn_type, master, connection.extra_dejson)
    if connection.conn_type == "spark_connect":
        url = host if host.startswith("sc://") else f"sc://{host}"
        if connection.port:
            url = f"{url}:{connection.port}"
        params = []
        extra = connection.extra_dejson or {}
        if connection.login:
            params.append(f"user_id={connection.login}")
        if token := (connection.password or extra.get("token")):
            params.append(f"token={token}")
        if extra.get("use_ssl"):
            params.append("use_ssl=true")
        if params:
            url = f"{url}/;{';'.join(params)}"
        return spec_from_master(url, conf)
    extra_conf = dict((connection.extra_dejson or {}).get("spark_conf", {}) or {})
    return spec_from_master(master or DEFAULT_MASTER, {**extra_conf, **(conf or {})})


def with_parent_job_information(conf: Mapping[str, str], context: Any) -> dict[str, str]:
    """Add the provider's ``spark.openlineage.parent*`` keys so a cluster-side Spark listener
    nests its runs under this task. Nothing is added when the user set any of them, or when
    the provider is not installed; never raises."""
    values = dict(conf)
    if any(key.startswith(PARENT_JOB_PREFIX) for key in values):
        return values
    try:
        from airflow.providers.openlineage.utils.spark import (
            inject_parent_job_information_into_spark_properties,
        )
    except ImportError:
        return values
    try:
        injected = inject_parent_job_information_into_spark_properties(values, context)
        return {str(k): str(v) for k, v in injected.items()}
    except Exception as error:
        log.warning("Could not add OpenLineage parent job information to Spark conf: %s", error)
        return values


def java_problem() -> str | None:
    """Why Java 17+ cannot run here, in one line; None when ``java -version`` says it can.

    Asked only after a session failed to start (a subprocess costs 70-110 ms on the task's
    thread), to replace a JVM launch stack trace with one clear line."""
    java = shutil.which("java")
    if java is None:
        return "Java 17 or newer is required to run Spark, and no `java` is on PATH."
    try:
        output = subprocess.run(
            [java, "-version"], check=False, capture_output=True, text=True, timeout=30
        ).stderr
    except (OSError, subprocess.SubprocessError) as error:
        return f"Java 17 or newer is required to run Spark; `java -version` failed: {error}"
    version = java_major_version(output)
    if version is not None and version < 17:
        return f"Java 17 or newer is required to run Spark; found Java {version}."
    return None


def java_major_version(version_output: str) -> int | None:
    """``openjdk version "17.0.15"`` -> 17; ``"1.8.0_392"`` -> 8."""
    for token in version_output.split('"')[1:2]:
        parts = token.split(".")
        try:
            major = int(parts[0])
            return int(parts[1]) if major == 1 and len(parts) > 1 else major
        except ValueError:
            return None
    return None


def open_session(spec: SessionSpec) -> tuple[SparkSession, bool]:
    """Return ``(session, owned)``; ``owned`` is False when an active session was reused,
    so the caller stops only what it created."""
    from pyspark.sql import SparkSession

    if not spec.is_connect:
        protect_py4j_connections_from_forks()
        active = SparkSession.getActiveSession()
        if active is not None:
            for key, value in spec.conf.items():
                _set_runtime_conf(active, key, value)
            return active, False
    builder = SparkSession.builder
    conf = spec.conf if spec.is_connect else classic_conf(spec)
    if spec.remote is not None:
        builder = builder.remote(spec.remote)
    elif spec.master:
        builder = builder.master(spec.master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    try:
        with _python_workers_env(conf.get(PYSPARK_PYTHON_CONF) if not spec.is_connect else None):
            return builder.getOrCreate(), True
    except Exception as error:
        problem = None if spec.is_connect else java_problem()
        if problem is not None:
            raise RuntimeError(problem) from error
        raise


PYSPARK_PYTHON_CONF = "spark.pyspark.python"


def classic_conf(spec: SessionSpec) -> dict[str, str]:
    """The conf of a classic session the operator creates: Spark's redaction, the task's
    interpreter for Python workers, masked log4j lines (:mod:`lineage_operators.spark.session.log4j`)."""
    import sys

    from pyspark import SparkContext

    conf = with_spark_redaction(spec.conf)
    conf = with_python_workers(conf, spec.master, os.environ, sys.executable)
    return with_masked_logging(conf, os.environ, launches_jvm=SparkContext._gateway is None)


def with_python_workers(
    conf: Mapping[str, str], master: str | None, environ: Mapping[str, str], executable: str
) -> dict[str, str]:
    """Pure: ``spark.pyspark.python`` set to the task's interpreter for local masters, unless the
    user set it or ``PYSPARK_PYTHON``. Spark would start UDF workers with ``python3`` from
    ``PATH``, which, for a task run from a virtualenv that is not activated, lacks its packages."""
    values = dict(conf)
    effective = values.get("spark.master", master or "")
    if PYSPARK_PYTHON_CONF in values or environ.get("PYSPARK_PYTHON") or not executable:
        return values
    if effective.startswith("local"):
        values[PYSPARK_PYTHON_CONF] = executable
    return values


@contextlib.contextmanager
def _python_workers_env(python: str | None) -> Iterator[None]:
    """pyspark reads the workers' interpreter from ``PYSPARK_PYTHON`` when it creates the context,
    not from ``spark.pyspark.python``: make the conf effective for the creation, then restore."""
    if not python or os.environ.get("PYSPARK_PYTHON"):
        yield
        return
    os.environ["PYSPARK_PYTHON"] = python
    try:
        yield
    finally:
        os.environ.pop("PYSPARK_PYTHON", None)


def with_spark_redaction(conf: Mapping[str, str]) -> dict[str, str]:
    """Spark's redaction settings covering this library's rules, unless the user set them."""
    return {**SPARK_REDACTION_CONF, **conf}


def _set_runtime_conf(spark: SparkSession, key: str, value: str) -> None:
    try:
        spark.conf.set(key, value)
    except Exception as error:
        log.info("Spark conf %s cannot be changed on the already running session: %s", key, error)


def stop_owned_session(spark: SparkSession) -> None:
    """Stop a session the operator opened; a Connect client stays closed after that.

    A Connect ``SparkSession.__del__`` closes its client a second time, and before SPARK-55406
    (4.0.0 has the bug, 4.3.0 the fix) closing any client shuts down the pool of release calls
    that every client of the process shares. In one process (``dag.test()``), the stopped session
    of one task, collected during the next, would shut down the pool under the next task's
    session: its actions then fail with "cannot schedule new futures after shutdown".
    """
    spark.stop()
    client = getattr(spark, "_client", None)
    if client is not None and getattr(client, "is_closed", False) is True:
        client.close = _already_closed  # an instance attribute: only this stopped client


def _already_closed() -> None:
    """The close of a Connect client that was closed already."""
