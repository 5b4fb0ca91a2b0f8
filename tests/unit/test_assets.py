"""Asset URIs from OpenLineage datasets, and their round trip through the provider's translation."""

from __future__ import annotations

import logging

import pytest

from lineage_operators.assets import add_asset_events, asset_uri, to_asset
from lineage_operators.model import LineageDataset


@pytest.mark.parametrize(
    ("namespace", "name", "uri"),
    [
        ("file", "/data/raw/orders", "file:///data/raw/orders"),
        ("s3://bucket", "warehouse/orders", "s3://bucket/warehouse/orders"),
        ("gs://bucket", "/x/y", "gs://bucket/x/y"),
        ("hdfs://namenode:8020", "/user/x", "hdfs://namenode:8020/user/x"),
        ("postgres://db.example:5432", "shop.public.orders", "postgres://db.example:5432/shop/public/orders"),
        ("mysql://h:3306", "shop.orders", "mysql://h:3306/shop/orders"),
        # no URI: relative file name, bare namespace, empty table part
        ("file", "relative/path", None),
        ("spark_catalog", "db.table", None),
        ("postgres://h:5432", "shop..orders", None),
        ("", "/x", None),
    ],
)
def test_asset_uri(namespace, name, uri):
    assert asset_uri(namespace, name) == uri


@pytest.mark.parametrize(
    ("namespace", "name"),
    [
        ("file", "/data/marts/customer_totals"),
        ("file", "/data/with space/orders"),
        ("postgres://127.0.0.1:5432", "lineage.public.customers"),
    ],
)
def test_assets_translate_back_to_the_same_dataset(airflow_db, namespace, name):
    """The provider turns our Asset back into the captured dataset: both graphs agree."""
    from airflow.providers.openlineage.utils.utils import translate_airflow_asset

    asset = to_asset(LineageDataset(namespace, name), "dag.task")
    assert asset is not None
    translated = translate_airflow_asset(asset, None)
    assert translated is not None, asset.uri
    assert (translated.namespace, translated.name) == (namespace, name)


def test_unrepresentable_datasets_are_skipped_with_one_line(caplog):
    events: dict[str, list[str]] = {}

    class Accessor:
        def __init__(self, key: str) -> None:
            self.key = key

        def add(self, asset) -> None:
            events.setdefault(self.key, []).append(asset.uri)

    class Events(dict):
        def __missing__(self, key):
            return Accessor(key)

    datasets = [LineageDataset("file", "/out/a"), LineageDataset("spark_catalog", "db.t")]
    with caplog.at_level(logging.INFO, logger="lineage_operators.assets"):
        added = add_asset_events(Events(), ["alias"], datasets, "dag.task")
    assert added == 1
    assert events == {"alias": ["file:///out/a"]}
    skipped = [r for r in caplog.records if "spark_catalog" in r.getMessage()]
    assert len(skipped) == 1
    assert "dag.task" in skipped[0].getMessage()
