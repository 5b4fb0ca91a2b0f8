"""Spark Connect on the real Hive metastore: a Connect server whose session catalog is the metastore's
(``spark.sql.catalogImplementation=hive``, its Thrift URI), and our Connect capture on a client of it.

The capture reads the server's configuration in one config request and builds the same session facts a
classic capture builds from its ``SparkConf`` (spark/session_facts.py): a table of the metastore is named by
its location, with the metastore's ``hive://`` symlink and the Hive ``catalog`` facet, as a classic Hive
session names it (tests/unit/test_resolve_hive.py holds the rule; test_hive_capture.py shows it on the
classic session of this directory). Spark 4 only (a Connect server); one more server JVM, started once for
the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.connect_server import ConnectServer, skip_without_connect
from tests.support.hive_metastore import HiveMetastore, hive_spark_conf

#: Seconds the capture may wait for its server lookups (a Hive session's first calls are slow).
PATIENT = 120.0


@pytest.fixture(scope="module")
def hive_connect(hive_metastore: HiveMetastore) -> Iterator[Any]:
    """A Connect session on a Connect server whose session catalog is the metastore's."""
    skip_without_connect()
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    server = ConnectServer(conf=hive_spark_conf(hive_metastore)).start()
    try:
        session = RemoteSparkSession.builder.remote(server.url).create()
        try:
            session.sql("CREATE DATABASE IF NOT EXISTS connect_db")
            yield session
        finally:
            session.stop()
    finally:
        server.stop()


def test_a_metastore_table_written_and_read_over_connect_has_the_hive_symlink_and_catalog_facet(
    hive_connect: Any, hive_metastore: HiveMetastore
) -> None:
    from lineage_operators.spark import new_capture

    spark = hive_connect
    capture = new_capture(spark, timeout=PATIENT)
    capture.start()
    spark.range(3).write.mode("overwrite").saveAsTable("connect_db.numbers")
    spark.table("connect_db.numbers").collect()
    result = capture.stop()

    assert result.complete
    location = f"{hive_metastore.warehouse}/connect_db.db/numbers"
    for datasets in (result.outputs, result.inputs):
        (dataset,) = datasets
        assert (dataset.namespace, dataset.name) == ("file", location)
        (link,) = dataset.facets["symlinks"].identifiers
        assert (link.namespace, link.name, link.type) == (
            hive_metastore.namespace,
            "connect_db.numbers",
            "TABLE",
        )
        catalog = dataset.facets["catalog"]
        assert (catalog.framework, catalog.type, catalog.name, catalog.source) == (
            "hive",
            "hive",
            "default",
            "spark",
        )
        assert (catalog.metadataUri, catalog.warehouseUri) == (
            hive_metastore.namespace,
            f"file:{hive_metastore.warehouse}",
        )
