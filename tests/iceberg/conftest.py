"""One pyspark 3.5 session with Apache Iceberg for the tests of this directory (own pytest process).

The Iceberg jars must be on the classpath when the JVM starts, and the Spark tests' shared session
(tests/spark/conftest.py) starts it without them: run this directory in a pytest process of its
own, e.g. ``python -m pytest tests/iceberg`` in the pyspark 3.5 environment (``make test-iceberg``).
Skips, with the reason, on a Spark line without an Iceberg runtime here (4.x), when a session
without the jars started the JVM first, or when the jars cannot be fetched. The system test
(test_airflow_dag.py) runs first: its operator starts the JVM with the jars of its own conf.
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


def iceberg_jars_for(spark_version: str) -> bool:
    """Whether an Iceberg Spark runtime for this Spark line is available to the tests (3.5 only)."""
    return spark_version.split(".")[:2] == ["3", "5"]


@pytest.fixture(scope="session")
def iceberg_warehouses(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the Hadoop catalog's warehouse, the session catalog's Iceberg warehouse)."""
    root = tmp_path_factory.mktemp("iceberg")
    return root / "hadoop", root / "session"


@pytest.fixture(scope="session")
def iceberg_jars() -> list[Path]:
    """[runtime jar, relocated Jackson jar]; skips on a Spark line without an Iceberg runtime here."""
    import pyspark

    if not iceberg_jars_for(pyspark.__version__):
        pytest.skip(f"no Apache Iceberg Spark runtime for pyspark {pyspark.__version__} here (3.5 only)")
    from tests.support.iceberg_jars import ensure_jars

    try:
        return ensure_jars()
    except Exception as exc:  # offline, registry unreachable
        pytest.skip(f"Iceberg jars unavailable: {exc}")


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
