"""Iceberg catalogs as openlineage-spark names them (lineage_operators.spark.tables.iceberg_catalogs), per
catalog type, without Spark: which handler, the ``TABLE`` symlink, the ``catalog`` facet.

Expectations derived from openlineage-spark's ``IcebergHandler`` and its catalog-type handlers
(``spark3/.../catalog/iceberg/*CatalogTypeHandler.java``). Only hadoop and hive (a Hadoop catalog
and ``SparkSessionCatalog`` on a local warehouse) also run end to end, in tests/iceberg.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from openlineage.client.serde import Serde

from lineage_operators.spark.facts import CatalogFacts, ExecutionFacts, RelationFacts, TableRef
from lineage_operators.spark.resolve import resolve
from lineage_operators.spark.session_facts import NamingContext
from lineage_operators.spark.table_facets import catalog_facet
from lineage_operators.spark.tables.iceberg_catalogs import (
    IcebergCatalog,
    catalog_facts,
    glue_arn,
    handler,
    snowflake_account,
    symlink,
)

REST = "org.apache.iceberg.rest.RESTCatalog"
GLUE = "org.apache.iceberg.aws.glue.GlueCatalog"
BQ = "org.apache.iceberg.gcp.bigquery.BigQueryMetastoreCatalog"
S3T = "software.amazon.s3tables.iceberg.S3TablesCatalog"
ARN = "arn:aws:glue:eu-west-1:123456789012"


def cat(
    name: str = "ice", metastore: str | None = None, arn: str | None = None, **settings: str
) -> IcebergCatalog:
    return IcebergCatalog(name, {k.replace("_", "-"): v for k, v in settings.items()}, metastore, arn)


def raw(name: str = "ice", **settings: str) -> IcebergCatalog:
    """Settings whose keys have dots or underscores (``glue.id``, ``gcp_project``)."""
    return IcebergCatalog(name, settings)


@pytest.mark.parametrize(
    ("catalog", "expected"),
    [
        pytest.param(cat(type="hadoop"), "hadoop", id="hadoop"),
        pytest.param(cat(type="HIVE"), "hive", id="hive, any case"),
        pytest.param(cat(), "hive", id="no type: Iceberg's default, hive"),
        pytest.param(
            cat(type="jdbc", uri="jdbc:postgresql://db:5432/ice"), "hive", id="jdbc: no handler, hive's"
        ),
        pytest.param(cat(catalog_impl="com.example.MyCatalog"), "hive", id="unknown catalog-impl: hive's"),
        pytest.param(cat(type="rest", uri="http://rest:8181"), "rest", id="rest by type"),
        pytest.param(cat(catalog_impl=REST, uri="http://rest:8181"), "rest", id="rest by catalog-impl"),
        pytest.param(
            cat(type="rest", uri="https://biglake.googleapis.com/iceberg/v1/restcatalog"),
            "lakehouse",
            id="BigLake REST",
        ),
        pytest.param(
            cat(type="rest", uri="https://org-acct.snowflakecomputing.com/polaris/api/catalog"),
            "snowflake",
            id="Snowflake REST",
        ),
        pytest.param(cat(type="nessie", uri="http://nessie:19120/api/v2"), "nessie", id="nessie"),
        pytest.param(cat(catalog_impl=GLUE), "glue", id="glue"),
        pytest.param(cat(catalog_impl=BQ, warehouse="gs://b/wh"), "bigquery", id="BigQuery metastore"),
        pytest.param(cat(catalog_impl=S3T), "s3tables", id="S3 Tables catalog"),
        pytest.param(
            cat(type="rest", warehouse="arn:aws:s3tables:us-east-1:1:bucket/b"),
            "s3tables",
            id="S3 Tables ARN",
        ),
        pytest.param(
            IcebergCatalog("ice", {"catalog-impl": GLUE, "glue.id": "111:s3tablescatalog/b"}),
            "s3tables",
            id="Glue federated to S3 Tables: S3 Tables first",
        ),
        pytest.param(
            cat(type="rest", uri="https://s3tables.us-east-1.amazonaws.com/iceberg"),
            "s3tables",
            id="S3 Tables host",
        ),
        pytest.param(
            IcebergCatalog("ice", {"type": "rest", "uri": "http://x", "rest.signing-name": "s3tables"}),
            "s3tables",
            id="S3 Tables signing name",
        ),
    ],
)
def test_handler(catalog: IcebergCatalog, expected: str) -> None:
    assert handler(catalog) == expected


@pytest.mark.parametrize(
    ("catalog", "namespace", "expected"),
    [
        pytest.param(cat(type="hadoop", warehouse="/data/wh"), "db", ("file:/data/wh", "db.t"), id="hadoop"),
        pytest.param(
            cat(type="hadoop", warehouse="file:/data/wh/"),
            "db",
            ("file:/data/wh", "db.t"),
            id="hadoop file: URI",
        ),
        pytest.param(
            cat(type="hadoop", warehouse="s3a://bucket/wh"),
            "a.b",
            ("s3://bucket/wh", "a.b.t"),
            id="hadoop on S3",
        ),
        pytest.param(cat(type="hadoop"), "db", None, id="hadoop without a warehouse"),
        pytest.param(
            cat(catalog_impl=BQ, warehouse="gs://b/wh"),
            "db",
            ("gs://b/wh", "db.t"),
            id="BigQuery metastore: warehouse",
        ),
        pytest.param(
            cat(type="hive", uri="thrift://ms:9083"), "db", ("hive://ms:9083", "db.t"), id="hive: catalog uri"
        ),
        pytest.param(
            cat(metastore="thrift://a:9083,thrift://b:9083"),
            "db",
            ("hive://a:9083", "db.t"),
            id="hive: Spark's",
        ),
        pytest.param(cat(type="hive"), "db", None, id="hive without any metastore URI"),
        pytest.param(
            cat(type="jdbc", uri="jdbc:postgresql://db:5432/ice"),
            "db",
            None,
            id="jdbc: a URI without authority",
        ),
        pytest.param(
            cat(type="rest", uri="http://rest:8181/api"), "db", ("http://rest:8181/api", "db.t"), id="rest"
        ),
        pytest.param(
            cat(type="rest", uri="https://biglake.googleapis.com/iceberg/v1/restcatalog"),
            "db",
            ("https://biglake.googleapis.com/iceberg/v1/restcatalog", "db.t"),
            id="BigLake REST: as rest",
        ),
        pytest.param(
            cat(type="nessie", uri="http://nessie:19120/api/v2"),
            "a.b",
            ("http://nessie:19120/api/v2", "a.b.t"),
            id="nessie",
        ),
        pytest.param(cat(type="rest"), "db", None, id="rest without uri"),
        pytest.param(cat(catalog_impl=GLUE, arn=ARN), "db", (ARN, "table/db/t"), id="glue"),
        pytest.param(cat(catalog_impl=GLUE), "db", None, id="glue without region or account"),
        pytest.param(
            cat(type="rest", uri="https://org-acct.snowflakecomputing.com/polaris"),
            "db",
            None,
            id="snowflake",
        ),
        pytest.param(
            cat(catalog_impl=S3T, warehouse="arn:aws:s3tables:r:1:bucket/b"), "db", None, id="s3tables"
        ),
    ],
)
def test_symlink(catalog: IcebergCatalog, namespace: str, expected: Any) -> None:
    assert symlink(catalog, namespace, "t") == expected


def test_symlink_name_is_sparks_identifier_string() -> None:
    rest = cat(type="rest", uri="http://rest:8181")
    assert symlink(rest, "db", "my-table") == ("http://rest:8181", "db.`my-table`")
    assert symlink(rest, "db", "2024") == ("http://rest:8181", "db.`2024`")
    assert symlink(cat(catalog_impl=GLUE, arn=ARN), "db", "t") == (ARN, "table/db/t")


def test_glue_arn() -> None:
    assert glue_arn("eu-west-1", "123456789012") == ARN
    assert glue_arn(None, "123") is None
    assert glue_arn("eu-west-1", None) is None


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("https://orgname-acct.snowflakecomputing.com/polaris/api/catalog", "orgname-acct"),
        ("https://xy12345.snowflakecomputing.com", "xy12345.us-west-1.aws"),
        ("https://xy12345.us-east-1.snowflakecomputing.com", "xy12345.us-east-1.aws"),
        ("https://xy12345.east-us-2.azure.snowflakecomputing.com", "xy12345.east-us-2.azure"),
    ],
)
def test_snowflake_account(uri: str, expected: str) -> None:
    assert snowflake_account(uri) == expected


@pytest.mark.parametrize(
    ("catalog", "expected"),
    [
        pytest.param(
            cat("spark_catalog", type="hadoop", warehouse="/tmp/iceberg"),
            CatalogFacts("spark_catalog", "hadoop", warehouse_uri="/tmp/iceberg"),
            id="hadoop: the warehouse as set (openlineage-spark's pysparkV2AppendData event)",
        ),
        pytest.param(
            cat(uri="thrift://ms:9083", warehouse="s3://b/wh"),
            CatalogFacts("ice", "hive", warehouse_uri="s3://b/wh", metadata_uri="thrift://ms:9083"),
            id="hive, the default type",
        ),
        pytest.param(
            cat(type="jdbc", uri="jdbc:postgresql://db:5432/ice?user=u&password=secret"),
            CatalogFacts("ice", "jdbc", metadata_uri="jdbc:postgresql://db:5432/ice?user=u"),
            id="jdbc: the type as set, the password redacted",
        ),
        pytest.param(
            cat(type="rest", uri="https://org-acct.snowflakecomputing.com/polaris", warehouse="WH"),
            CatalogFacts(
                "ice",
                "rest",
                warehouse_uri="WH",
                metadata_uri="https://org-acct.snowflakecomputing.com/polaris",
                properties=(("account_identifier", "org-acct"),),
            ),
            id="snowflake: account identifier",
        ),
        pytest.param(
            raw(**{"catalog-impl": BQ, "gcp_project": "p", "gcp.bigquery.location": "eu"}),
            CatalogFacts(
                "ice", "bigquerymetastore", properties=(("gcp_project_id", "p"), ("gcp_location", "eu"))
            ),
            id="BigQuery metastore: project and location (legacy and current keys)",
        ),
        pytest.param(
            raw(type="rest", uri="https://biglake.googleapis.com/x", **{"header.x-goog-user-project": "p"}),
            CatalogFacts(
                "ice",
                "rest",
                metadata_uri="https://biglake.googleapis.com/x",
                properties=(("gcp_project_id", "p"),),
            ),
            id="BigLake REST: project",
        ),
        pytest.param(
            cat(type="rest", catalog_impl=S3T),
            CatalogFacts("ice", "s3tables"),
            id="s3tables: always its own type",
        ),
        pytest.param(cat(catalog_impl=GLUE), CatalogFacts("ice", "glue"), id="glue"),
        pytest.param(cat(type="nessie", warehouse="  "), CatalogFacts("ice", "nessie"), id="blank warehouse"),
    ],
)
def test_catalog_facts(catalog: IcebergCatalog, expected: CatalogFacts) -> None:
    assert catalog_facts(catalog) == expected


def _spec_schema() -> dict[str, Any] | None:
    spec = os.environ.get("OPENLINEAGE_SPEC_DIR")
    path = Path(spec) / "facets" / "CatalogDatasetFacet.json" if spec else None
    return json.loads(path.read_text()) if path and path.exists() else None


def test_catalog_facet_as_openlineage_spark_writes_it() -> None:
    facts = CatalogFacts("spark_catalog", "hadoop", warehouse_uri="/tmp/iceberg")
    body = json.loads(Serde.to_json(catalog_facet(facts)))
    body.pop("_producer")
    assert body.pop("_schemaURL").endswith("CatalogDatasetFacet.json#/$defs/CatalogDatasetFacet")
    # the very values of openlineage-spark's expected event (pysparkV2AppendDataCompleteEvent.json)
    assert body == {
        "framework": "iceberg",
        "type": "hadoop",
        "name": "spark_catalog",
        "warehouseUri": "/tmp/iceberg",
        "source": "spark",
    }


def test_catalog_facet_validates_against_the_spec() -> None:
    schema = _spec_schema()
    if schema is None:
        pytest.skip("OPENLINEAGE_SPEC_DIR is not set")
    import jsonschema

    facet = catalog_facet(CatalogFacts("c", "rest", "s3://b/wh", "http://rest:8181", (("k", "v"),)))
    definition = schema["$defs"]["CatalogDatasetFacet"]["allOf"][1]
    jsonschema.validate(json.loads(Serde.to_json(facet)), definition)


def _resolve(*rels: RelationFacts, hive: bool = False) -> Any:
    facts = ExecutionFacts(func_name="x", succeeded=True, outputs=list(rels))
    ctx = NamingContext(warehouse="/spark/wh", metastore_uris="thrift://ms:9083" if hive else None, hive=hive)
    return resolve([facts], ctx)[1]


def test_resolve_puts_the_iceberg_catalog_facet_on_the_dataset() -> None:
    facts = CatalogFacts("spark_catalog", "hive", warehouse_uri="s3://b/wh", metadata_uri="thrift://ms:9083")
    rel = RelationFacts(
        location="/wh/db/t",
        table=TableRef("db", "t", "spark_catalog"),
        provider="iceberg",
        catalog_facts=facts,
    )
    # a table of Iceberg's SparkSessionCatalog in a Hive session: Iceberg's facet, not Hive's
    (dataset,) = _resolve(rel, hive=True)
    facet = dataset.facets["catalog"]
    assert (facet.framework, facet.type, facet.name) == ("iceberg", "hive", "spark_catalog")
    assert (facet.warehouseUri, facet.metadataUri) == ("s3://b/wh", "thrift://ms:9083")
    # a plain Hive table keeps the Hive catalog's
    (hive_table,) = _resolve(RelationFacts(location="/spark/wh/h", table=TableRef("db", "h")), hive=True)
    assert hive_table.facets["catalog"].framework == "hive"
