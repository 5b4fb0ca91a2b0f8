"""Hive session catalog: ``hive://host:port`` symlinks and the ``catalog`` facet (no JVM needed)."""

from __future__ import annotations

import pytest

pytest.importorskip("openlineage.client")

from lineage_operators.spark.facts import ExecutionFacts, RelationFacts, TableRef
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import NamingContext


def _written(ctx: NamingContext, catalog: str | None = None) -> dict:
    rel = RelationFacts(location="file:/data/wh/sales.db/orders", table=TableRef("sales", "orders", catalog))
    _, outputs, _ = resolve([ExecutionFacts("command", True, outputs=[rel])], ctx)
    (dataset,) = outputs
    assert (dataset.namespace, dataset.name) == ("file", "/data/wh/sales.db/orders")
    return dataset.facets


def test_metastore_uris_give_a_hive_symlink_and_catalog_facet() -> None:
    ctx = NamingContext(
        warehouse="file:/data/wh", metastore_uris="thrift://meta:9083,thrift://b:9083", hive=True
    )
    facets = _written(ctx)
    link = facets["symlinks"].identifiers[0]
    assert (link.namespace, link.name, link.type) == ("hive://meta:9083", "sales.orders", "TABLE")
    catalog = facets["catalog"]
    assert (catalog.framework, catalog.type, catalog.name, catalog.source) == (
        "hive",
        "hive",
        "default",
        "spark",
    )
    assert (catalog.metadataUri, catalog.warehouseUri) == ("hive://meta:9083", "file:/data/wh")


def test_embedded_metastore_catalog_facet_has_no_metadata_uri() -> None:
    facets = _written(NamingContext(warehouse="/data/wh", hive=True))
    link = facets["symlinks"].identifiers[0]
    assert (link.namespace, link.name) == ("file:/data/wh", "sales.orders")
    assert (facets["catalog"].warehouseUri, facets["catalog"].metadataUri) == ("file:/data/wh", None)


def test_no_catalog_facet_without_hive_or_for_other_catalogs() -> None:
    assert "catalog" not in _written(NamingContext(warehouse="/data/wh"))
    assert "catalog" not in _written(NamingContext(warehouse="/data/wh", hive=True), catalog="iceberg")


DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"


@pytest.mark.parametrize("hive", [False, True])
def test_a_delta_table_of_deltas_session_catalog_gets_deltas_catalog_facet(hive: bool) -> None:
    """As openlineage-spark's DeltaHandler: framework and type ``delta``, name ``spark_catalog``."""
    table = TableRef("sales", "orders")
    rel = RelationFacts(location="file:/data/wh/sales.db/orders", table=table, provider="delta")
    path = RelationFacts(location="file:/lake/t", provider="delta")  # by path: no catalog table
    ctx = NamingContext(warehouse="file:/data/wh", hive=hive, session_catalog=DELTA_CATALOG)
    _, outputs, _ = resolve([ExecutionFacts("command", True, outputs=[rel, path])], ctx)
    by_name = {d.name: d.facets for d in outputs}
    catalog = by_name["/data/wh/sales.db/orders"]["catalog"]
    assert (catalog.framework, catalog.type, catalog.name, catalog.source) == (
        "delta",
        "delta",
        "spark_catalog",
        "spark",
    )
    assert (catalog.metadataUri, catalog.warehouseUri) == (None, None)
    assert "catalog" not in by_name["/lake/t"]
    # a dropped table this capture never saw: no provider known, Delta's catalog is the one it was in
    dropped = RelationFacts(
        location="file:/data/wh/sales.db/gone", table=TableRef("sales", "gone"), lifecycle="DROP"
    )
    _, outputs, _ = resolve([ExecutionFacts("command", True, outputs=[dropped])], ctx)
    assert outputs[0].facets["catalog"].framework == "delta"
    # not Delta's catalog, or not a Delta table: no Delta catalog facet
    plain = NamingContext(warehouse="file:/data/wh")
    _, outputs, _ = resolve([ExecutionFacts("command", True, outputs=[rel])], plain)
    assert "catalog" not in outputs[0].facets
    parquet = RelationFacts(
        location="file:/data/wh/sales.db/p", table=TableRef("sales", "p"), provider="parquet"
    )
    _, outputs, _ = resolve([ExecutionFacts("command", True, outputs=[parquet])], ctx)
    assert outputs[0].facets.get("catalog") is None or outputs[0].facets["catalog"].framework == "hive"


def test_a_delta_table_located_outside_the_warehouse_still_gets_deltas_catalog_facet() -> None:
    """``saveAsTable`` with an ``s3a://`` path, CTAS with ``LOCATION``: named by the location, no symlink (the
    warehouse cannot reach it, openlineage-spark's rule), and the catalog facet of the catalog it is in."""
    rel = RelationFacts(location="s3a://lake/tables/t", table=TableRef("default", "t"), provider="delta")
    ctx = NamingContext(warehouse="file:/data/wh", session_catalog=DELTA_CATALOG)
    _, outputs, _ = resolve([ExecutionFacts("command", True, outputs=[rel])], ctx)
    (dataset,) = outputs
    assert (dataset.namespace, dataset.name) == ("s3://lake", "tables/t")
    assert "symlinks" not in dataset.facets
    assert (dataset.facets["catalog"].framework, dataset.facets["catalog"].name) == ("delta", "spark_catalog")
    plain = NamingContext(warehouse="file:/data/wh")  # not Delta's catalog: nothing
    _, outputs, _ = resolve([ExecutionFacts("command", True, outputs=[rel])], plain)
    assert "catalog" not in outputs[0].facets
