"""Iceberg catalogs as openlineage-spark names them: the ``TABLE`` symlink and the ``catalog`` facet.

openlineage-spark's ``IcebergHandler`` picks one catalog-type handler from the catalog's settings
(``spark.sql.catalog.<name>.*``), the first that matches, in this order:

============  ================================================================  =================
handler       matches                                                           facet ``type``
============  ================================================================  =================
s3tables      ``catalog-impl`` ending ``S3TablesCatalog``; a warehouse that is   ``s3tables``
              an S3 Tables ARN or federation id; GlueCatalog with such a
              ``glue.id``; a ``uri`` host ``s3tables.<region>.amazonaws.com``;
              signing name ``s3tables``
nessie        ``type`` nessie                                                   ``type``
glue          ``catalog-impl`` ending ``GlueCatalog``                           ``type`` or glue
snowflake     a REST catalog whose ``uri`` is on ``.snowflakecomputing.com``    ``type`` or rest
lakehouse     a REST catalog whose ``uri`` starts with Google's BigLake URI     ``type`` or rest
rest          ``type`` rest or ``catalog-impl`` ending ``RESTCatalog``          ``type`` or rest
bigquery      ``catalog-impl`` ending ``BigQueryMetastoreCatalog``              ``type`` or
                                                                                ``bigquerymetastore``
hadoop        ``type`` hadoop                                                   hadoop
hive          ``type`` hive, and anything else (the default)                    ``type`` or hive
============  ================================================================  =================

The ``TABLE`` symlink each handler gives (``table``: Spark's identifier, ``db.table``):

* hadoop, bigquery: (the warehouse as a location namespace, ``db.table``);
* hive (and the default for any other type, e.g. jdbc): (``hive://<authority>`` of the catalog's
  ``uri``, else of Spark's metastore URI, ``db.table``). openlineage-spark fails to name the dataset
  when there is neither, or when the URI has no authority (a ``jdbc:`` URI): we keep the dataset,
  without a symlink;
* rest, lakehouse, nessie: (the catalog's ``uri``, ``db.table``);
* glue: (``arn:aws:glue:<region>:<catalog id>``, ``table/db/table``), the region from
  ``AWS_DEFAULT_REGION``/``AWS_REGION`` and the catalog id from ``hive.metastore.glue.catalogid`` (Spark,
  then Hadoop setting) or ``spark.glue.accountId``. openlineage-spark also asks the EC2 metadata service
  and AWS STS; we do not call out of the process: without those settings there is no symlink;
* snowflake, s3tables: none here. openlineage-spark names those datasets by the catalog itself
  (``snowflake://<account>`` / an S3 Tables ARN) with the location as symlink; we name them by their
  location, without a symlink.

The ``catalog`` facet: ``framework`` iceberg, ``source`` spark, ``name`` the Spark catalog's name,
``type`` as above, ``warehouseUri`` and ``metadataUri`` the catalog's ``warehouse`` and ``uri`` as set
(blank ones left out; credentials in them redacted), and ``catalogProperties`` where the handler has
some (snowflake: ``account_identifier``; lakehouse: ``gcp_project_id``; bigquery: ``gcp_project_id``,
``gcp_location``). Its values are the contract's :class:`~lineage_operators.spark.facts.CatalogFacts`; the
facet is built from them when datasets resolve (:mod:`lineage_operators.spark.table_facets`).

Pure functions of the settings (no Spark): the JVM reading is :func:`..iceberg.catalog_conf`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lineage_operators import naming
from lineage_operators.redaction import redact_url
from lineage_operators.spark.facts import CatalogFacts

#: The settings (``spark.sql.catalog.<name>.<key>``) naming reads: only these are read from Spark,
#: never the whole catalog configuration (which can hold credentials).
KEYS = (
    "type",
    "catalog-impl",
    "warehouse",
    "uri",
    "glue.id",
    "signing-name",
    "rest.signing-name",
    "header.x-goog-user-project",
    "gcp.bigquery.project-id",
    "gcp_project",
    "gcp.bigquery.location",
    "gcp_location",
)
BIGLAKE_URI = "https://biglake.googleapis.com/"
SNOWFLAKE_DOMAIN = ".snowflakecomputing.com"
_FEDERATION_ID = re.compile(r"^(\d+):s3tablescatalog/(.+)$")
_PLAIN = re.compile(r"[A-Za-z0-9_]+")
_S3TABLES_HOST = re.compile(r"^s3tables\.[^.]+\.amazonaws\.com$")
#: handler -> its own facet type (used when the catalog sets no ``type``)
_TYPES = {
    "s3tables": "s3tables",
    "nessie": "nessie",
    "glue": "glue",
    "snowflake": "rest",
    "lakehouse": "rest",
    "rest": "rest",
    "bigquery": "bigquerymetastore",
    "hadoop": "hadoop",
    "hive": "hive",
}


@dataclass(frozen=True)
class IcebergCatalog:
    """One Iceberg catalog of the session: its name, its settings (keys of :data:`KEYS`), and what
    naming needs from outside them (Spark's metastore URI, the Glue catalog's ARN)."""

    name: str
    settings: Mapping[str, str] = field(default_factory=dict)
    metastore: str | None = None
    glue_arn: str | None = None

    def get(self, key: str) -> str:
        return self.settings.get(key) or ""


# --------------------------------------------------------------------------------------------
# which handler
# --------------------------------------------------------------------------------------------


def _is_rest(c: IcebergCatalog) -> bool:
    return c.get("type").lower() == "rest" or c.get("catalog-impl").endswith("RESTCatalog")


def _is_s3tables(c: IcebergCatalog) -> bool:
    impl, warehouse = c.get("catalog-impl"), c.get("warehouse")
    if impl.endswith("S3TablesCatalog"):
        return True
    if warehouse.startswith("arn:aws:s3tables:") or _FEDERATION_ID.match(warehouse):
        return True
    if impl.endswith("GlueCatalog") and _FEDERATION_ID.match(c.get("glue.id")):
        return True
    host = re.match(r"^[a-zA-Z][\w+.-]*://([^/:?#@]*@)?([^/:?#]+)", c.get("uri"))
    if host and _S3TABLES_HOST.match(host.group(2)):
        return True
    signing = c.settings.get("rest.signing-name") or c.get("signing-name")
    return signing.lower() == "s3tables"


def handler(c: IcebergCatalog) -> str:
    """The openlineage-spark catalog-type handler for these settings (see the module's table)."""
    kind, impl, uri = c.get("type").lower(), c.get("catalog-impl"), c.get("uri")
    if _is_s3tables(c):
        return "s3tables"
    if kind == "nessie":
        return "nessie"
    if impl.endswith("GlueCatalog"):
        return "glue"
    if _is_rest(c) and SNOWFLAKE_DOMAIN in uri:
        return "snowflake"
    if _is_rest(c):
        return "lakehouse" if uri.startswith(BIGLAKE_URI) else "rest"
    if impl.endswith("BigQueryMetastoreCatalog"):
        return "bigquery"
    return "hadoop" if kind == "hadoop" else "hive"


# --------------------------------------------------------------------------------------------
# symlink
# --------------------------------------------------------------------------------------------


def _identifier(namespace: str | None, table: str) -> str:
    """Spark's ``Identifier.toString``: parts joined by dots, quoted unless plain (``quoteIfNeeded``)."""
    parts = [*(namespace.split(".") if namespace else []), table]
    return ".".join(
        p if _PLAIN.fullmatch(p) and not p.isdigit() else "`" + p.replace("`", "``") + "`" for p in parts
    )


def symlink(c: IcebergCatalog, namespace: str | None, table: str) -> tuple[str, str] | None:
    """(namespace, name) of the table's ``TABLE`` symlink, as the catalog's handler names it;
    None where it names none or a setting it needs is missing (see the module docstring)."""
    kind, ident = handler(c), _identifier(namespace, table)
    if kind in ("hadoop", "bigquery"):
        warehouse = c.get("warehouse")
        if not warehouse.strip():
            return None
        found = naming.name_table_symlink(namespace or "", table, location=warehouse, warehouse=warehouse)
        return (found.namespace, ident) if found else None
    if kind == "hive":
        uri = c.get("uri") or c.metastore or ""
        authority = re.match(r"^[a-zA-Z][\w+.-]*://([^/?#,]+)", uri.split(",")[0].strip())
        if not authority:
            return None  # no authority (jdbc:..., a bare path): openlineage-spark cannot name it
        return "hive://" + authority.group(1).rpartition("@")[2], ident
    if kind in ("rest", "lakehouse", "nessie"):
        uri = c.get("uri")
        return (redact_url(uri), ident) if uri.strip() else None
    if kind == "glue" and c.glue_arn:
        return c.glue_arn, "table/" + ident.replace(".", "/")
    return None


def glue_arn(region: str | None, catalog_id: str | None) -> str | None:
    """``arn:aws:glue:<region>:<catalog id>``; None without either."""
    return f"arn:aws:glue:{region}:{catalog_id}" if region and catalog_id else None


# --------------------------------------------------------------------------------------------
# catalog facet
# --------------------------------------------------------------------------------------------


def snowflake_account(uri: str) -> str:
    """The account identifier of a Snowflake URL, as OpenLineage's Snowflake naming writes it:
    ``org-account`` as is, an account locator with region and cloud (defaults: us-west-1, aws)."""
    host = re.sub(r"^https?://", "", uri)
    cut = host.find(SNOWFLAKE_DOMAIN)
    if cut > 0:
        host = host[:cut]
    parts = host.split(".")
    if len(parts) == 1:
        return parts[0] if "-" in parts[0] else parts[0] + ".us-west-1.aws"
    if len(parts) == 2:
        return f"{parts[0]}.{parts[1]}.aws"
    return host


def _properties(c: IcebergCatalog, kind: str) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str | None]] = []
    if kind == "snowflake" and c.get("uri"):
        found.append(("account_identifier", snowflake_account(c.get("uri"))))
    elif kind == "lakehouse":
        found.append(("gcp_project_id", c.settings.get("header.x-goog-user-project")))
    elif kind == "bigquery":
        s = c.settings
        found.append(("gcp_project_id", s.get("gcp.bigquery.project-id") or s.get("gcp_project")))
        found.append(("gcp_location", s.get("gcp.bigquery.location") or s.get("gcp_location")))
    return tuple((k, v) for k, v in found if v)


def catalog_facts(c: IcebergCatalog) -> CatalogFacts:
    """The ``catalog`` facet's values for a table of this catalog."""
    kind = handler(c)
    facet_type = _TYPES[kind] if kind == "s3tables" else c.get("type") or _TYPES[kind]
    warehouse, uri = c.get("warehouse"), c.get("uri")
    return CatalogFacts(
        name=c.name,
        type=facet_type,
        warehouse_uri=redact_url(warehouse) if warehouse.strip() else None,
        metadata_uri=redact_url(uri) if uri.strip() else None,
        properties=_properties(c, kind),
    )


__all__ = [
    "KEYS",
    "IcebergCatalog",
    "catalog_facts",
    "glue_arn",
    "handler",
    "snowflake_account",
    "symlink",
]
