"""Capture of the tables of a real Iceberg REST catalog (Iceberg's REST catalog test server, a separate
``java`` process: tests/support/iceberg_rest.py), on every line with an Iceberg runtime.

openlineage-spark names a REST catalog's table by its location (chosen by the server), with a ``TABLE``
symlink ``(<the catalog's uri>, <db.table>)`` and the ``catalog`` facet ``type`` rest, ``metadataUri``
the ``uri``, no ``warehouseUri`` (none is set on the Spark side): what
``tables/iceberg_catalogs.py`` derives from the settings, here end to end on a catalog that answers.
"""

from __future__ import annotations

from typing import Any

from iceberg_helpers import (
    REST_CATALOG,
    added,
    catalog,
    commit_report,
    latest,
    statistics,
    storage,
    symlinks,
    version,
)
from tests.spark.spark_helpers import captured, lifecycle, local, schema
from tests.support.iceberg_rest import RestCatalog


def _table(dataset: Any, server: RestCatalog, ident: str, snapshot: str | None) -> None:
    assert (dataset.namespace, dataset.name) == local(server.warehouse / ident.replace(".", "/"))
    assert symlinks(dataset) == [(server.uri, ident, "TABLE")]
    assert catalog(dataset) == ("iceberg", "rest", REST_CATALOG, None, server.uri, "spark")
    assert storage(dataset) == ("iceberg", "parquet")
    assert version(dataset) == snapshot


def test_rest_catalog_create_insert_ctas_read(spark: Any, rest_catalog: RestCatalog) -> None:
    orders, copy = f"{REST_CATALOG}.shop.orders", f"{REST_CATALOG}.shop.orders_copy"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {REST_CATALOG}.shop")

    (created,) = captured(spark, lambda: spark.sql(f"CREATE TABLE {orders} (id BIGINT, v STRING)")).outputs
    assert lifecycle(created) == "CREATE"
    _table(created, rest_catalog, "shop.orders", None)

    (inserted,) = captured(
        spark, lambda: spark.sql(f"INSERT INTO {orders} VALUES (1, 'a'), (2, 'b')")
    ).outputs
    assert schema(inserted) == [("id", "long"), ("v", "string")]
    _table(inserted, rest_catalog, "shop.orders", latest(spark, orders))
    assert statistics(inserted) == added(spark, orders)
    assert commit_report(inserted)["snapshotId"] == int(latest(spark, orders))

    ctas = captured(spark, lambda: spark.sql(f"CREATE TABLE {copy} AS SELECT id FROM {orders} WHERE id > 1"))
    (written,) = ctas.outputs
    assert lifecycle(written) == "CREATE"
    _table(written, rest_catalog, "shop.orders_copy", latest(spark, copy))
    # its write runs as a nested append, which carries the statistics and the commit report
    assert statistics(written) == added(spark, copy)
    assert commit_report(written)["commitMetrics"]["addedRecords"] == 1
    (source,) = ctas.inputs
    _table(source, rest_catalog, "shop.orders", latest(spark, orders))

    (read,) = captured(spark, lambda: spark.sql(f"SELECT * FROM {copy}").collect()).inputs
    _table(read, rest_catalog, "shop.orders_copy", latest(spark, copy))
