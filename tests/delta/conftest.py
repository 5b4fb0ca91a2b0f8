"""One Spark session with Delta Lake for the tests of this directory (own pytest process per line).

Delta's jars of the session's Spark line (delta-spark and delta-storage: 3.3 for Spark 3.5, 4.0 for
4.0, 4.1 for 4.1; tests/support/maven_jars.py fetches them, pinned and verified) must be on the
classpath when the JVM starts: run this directory in a pytest process of its own per line
(``make test-delta``). On a Spark line Delta publishes no release for (4.2 and newer today) the tests
skip with that reason; a jar that cannot be fetched or does not verify fails them (no silent skip in CI).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.table_format_session import jvm_lacks, open_session

pytest.importorskip("pyspark")

DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"


@pytest.fixture(scope="session")
def delta_jars() -> list[Path]:
    import pyspark
    from tests.support.maven_jars import JarUnavailable, delta_jar_names, fetch

    names = delta_jar_names(pyspark.__version__)
    if not names:
        pytest.skip(f"Delta Lake publishes no release for pyspark {pyspark.__version__}")
    try:
        return [fetch(name) for name in names]
    except JarUnavailable as exc:
        pytest.fail(f"the pinned Delta jars are unavailable: {exc}")


def _jvm_lacks_delta() -> bool:
    return jvm_lacks(DELTA_CATALOG)


@pytest.fixture
def delta_jvm(delta_jars: list[Path]) -> list[Path]:
    """The jars, when this process's JVM is not running yet or was started with them."""
    if _jvm_lacks_delta():
        pytest.skip("the Delta jars must be on the JVM's classpath from its start: run tests/delta alone")
    return delta_jars


@pytest.fixture(scope="session")
def spark(delta_jars: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if _jvm_lacks_delta():
        pytest.skip("the Delta jars must be on the JVM's classpath from its start: run tests/delta alone")
    conf = {
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": DELTA_CATALOG,
        # Delta computes a snapshot's state in 50 partitions by default: seconds of tiny tasks per table
        "spark.databricks.delta.snapshotPartitions": "1",
        # Delta 3.x and 4.0 list a table's files for VACUUM in this many tasks (Spark's default 10,000):
        # 170,000 tasks and ~55 s per VACUUM of a three-file table on 2 cores, ~5 s with 2
        "spark.sql.sources.parallelPartitionDiscovery.parallelism": "2",
    }
    session = open_session(
        "lineage-operators-delta-tests", delta_jars, conf, tmp_path_factory.mktemp("spark")
    )
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(scope="session")
def warehouse(spark: Any) -> Path:
    return Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:"))
