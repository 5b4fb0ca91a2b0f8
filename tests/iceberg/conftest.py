"""One Spark session with Apache Iceberg for the tests of this directory (own pytest process).

Iceberg's official Spark runtime of the session's Spark line (3.5, 4.0, 4.1: tests/support/maven_jars.py
fetches it, pinned and verified) must be on the classpath when the JVM starts, and the Spark tests'
shared session (tests/spark/conftest.py) starts it without it: run this directory in a pytest process
of its own per line (``make test-iceberg``). Skips, with the reason, on a Spark line Iceberg publishes no
runtime for, or when a session without the jar started the JVM first; a jar that cannot be fetched or
does not verify fails the tests (no silent skip in CI). The system test (test_airflow_dag.py) runs
first: its operator starts the JVM with the jar of its own conf.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from iceberg_helpers import REST_CATALOG
from tests.support.iceberg_rest import RestCatalog
from tests.support.table_format_session import jvm_lacks, open_session

pytest.importorskip("pyspark")

#: The catalogs of the session: a Hadoop catalog, and Iceberg's SparkSessionCatalog as spark_catalog;
#: a REST catalog joins them when a test asks for ``rest_catalog``.
CATALOG = "ice"
ICEBERG_CATALOG = "org.apache.iceberg.spark.SparkCatalog"


@pytest.fixture(scope="session")
def iceberg_warehouses(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the Hadoop catalog's warehouse, the session catalog's Iceberg warehouse)."""
    root = tmp_path_factory.mktemp("iceberg")
    return root / "hadoop", root / "session"


@pytest.fixture(scope="session")
def iceberg_jars() -> list[Path]:
    """[the Iceberg runtime of this Spark line]; skips on a line Iceberg publishes no runtime for."""
    import pyspark
    from tests.support.maven_jars import JarUnavailable, fetch, iceberg_runtime_name

    name = iceberg_runtime_name(pyspark.__version__)
    if name is None:
        pytest.skip(f"Apache Iceberg publishes no Spark runtime for pyspark {pyspark.__version__}")
    try:
        return [fetch(name)]
    except JarUnavailable as exc:
        pytest.fail(f"the pinned Iceberg runtime is unavailable: {exc}")


def _jvm_lacks_iceberg() -> bool:
    return jvm_lacks(ICEBERG_CATALOG)


@pytest.fixture
def iceberg_jvm(iceberg_jars: list[Path]) -> list[Path]:
    """The jars, when this process's JVM is not running yet or was started with them."""
    if _jvm_lacks_iceberg():
        pytest.skip("the Iceberg jars must be on the JVM's classpath from its start: run tests/iceberg alone")
    return iceberg_jars


@pytest.fixture(scope="session")
def spark(
    iceberg_jars: list[Path], iceberg_warehouses: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    if _jvm_lacks_iceberg():
        pytest.skip("the Iceberg jars must be on the JVM's classpath from its start: run tests/iceberg alone")
    hadoop, session_wh = iceberg_warehouses
    conf = {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        f"spark.sql.catalog.{CATALOG}": ICEBERG_CATALOG,
        f"spark.sql.catalog.{CATALOG}.type": "hadoop",
        f"spark.sql.catalog.{CATALOG}.warehouse": str(hadoop),
        "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
        "spark.sql.catalog.spark_catalog.type": "hadoop",
        "spark.sql.catalog.spark_catalog.warehouse": str(session_wh),
    }
    session = open_session(
        "lineage-operators-iceberg-tests", iceberg_jars, conf, tmp_path_factory.mktemp("spark")
    )
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(scope="session")
def rest_catalog(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RestCatalog]:
    """Iceberg's REST catalog test server (one per pytest process), registered in the session as the
    catalog ``rest`` (``type=rest``, ``uri``): Spark loads a catalog at its first use, so it can be added
    to the running session. A jar that cannot be fetched fails the tests."""
    from tests.support.iceberg_rest import hadoop_jars
    from tests.support.maven_jars import REST_SERVER_NAMES, JarUnavailable, fetch_all

    try:
        jars = fetch_all(REST_SERVER_NAMES)
    except JarUnavailable as exc:
        pytest.fail(f"the pinned Iceberg REST catalog server is unavailable: {exc}")
    server = RestCatalog([*jars, *hadoop_jars()], tmp_path_factory.mktemp("iceberg-rest")).start()
    prefix = f"spark.sql.catalog.{REST_CATALOG}"
    spark.conf.set(prefix, ICEBERG_CATALOG)
    spark.conf.set(f"{prefix}.type", "rest")
    spark.conf.set(f"{prefix}.uri", server.uri)
    try:
        yield server
    finally:
        server.stop()
