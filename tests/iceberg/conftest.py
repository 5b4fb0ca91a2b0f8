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

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

#: The catalogs of the session: a Hadoop catalog, and Iceberg's SparkSessionCatalog as spark_catalog.
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
    """A JVM started by an earlier session of this process without the Iceberg jars."""
    from pyspark import SparkContext

    if SparkContext._jvm is None:
        return False
    return not SparkContext._jvm.org.apache.spark.util.Utils.classIsLoadable(ICEBERG_CATALOG)


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
    from pyspark.sql import SparkSession

    if _jvm_lacks_iceberg():
        pytest.skip("the Iceberg jars must be on the JVM's classpath from its start: run tests/iceberg alone")
    hadoop, session_wh = iceberg_warehouses
    work = tmp_path_factory.mktemp("spark")
    # tests/conftest.py's ``--jars <JDBC driver>`` in PYSPARK_SUBMIT_ARGS would replace spark.jars
    submit_args = os.environ.pop("PYSPARK_SUBMIT_ARGS", None)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("lineage-operators-iceberg-tests")
        .config("spark.jars", ",".join(str(j) for j in iceberg_jars))
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(f"spark.sql.catalog.{CATALOG}", ICEBERG_CATALOG)
        .config(f"spark.sql.catalog.{CATALOG}.type", "hadoop")
        .config(f"spark.sql.catalog.{CATALOG}.warehouse", str(hadoop))
        .config("spark.sql.catalog.spark_catalog", "org.apache.iceberg.spark.SparkSessionCatalog")
        .config("spark.sql.catalog.spark_catalog.type", "hadoop")
        .config("spark.sql.catalog.spark_catalog.warehouse", str(session_wh))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.local.dir", str(work / "local"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={work / 'derby'}")
        .getOrCreate()
    )
    if submit_args is not None:
        os.environ["PYSPARK_SUBMIT_ARGS"] = submit_args
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
