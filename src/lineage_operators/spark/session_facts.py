"""What the contract needs of the task's session, built once per capture by one function for both captures.

Why one function: naming (the warehouse, Hive's metastore, the session catalog, the ``subset`` bound) and the
run facets depend on the session's configuration only, and the classic and the Spark Connect capture read
that configuration from different places (a classic session's ``SparkConf`` through py4j; a Connect
session's ``spark.conf.getAll``, one config request). Each capture hands :func:`session_facts` a lookup of
configuration keys and what it knows of the application; what the keys mean is decided here, once, so a
setting documented for one capture holds for the other (before this module, Connect sessions had no Hive
catalog facet and ignored :data:`SUBSET_MAX_LOCATIONS_CONF`).

Pure: no Spark, no py4j, no gRPC. The facet objects are built with :mod:`lineage_operators.facets`, imported
inside the function (openlineage-python is an optional dependency of the package).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from openlineage.client.facet_v2 import RunFacet

from lineage_operators import facets as f
from lineage_operators._logging import get_logger
from lineage_operators.redaction import redact_url
from lineage_operators.spark.facts import SESSION_CATALOG, SPARK_ENGINE_FACET

log = get_logger(__name__)

#: This package's version (``spark_processingEngine.openlineageAdapterVersion`` is the client's).
LINEAGE_OPERATORS_FACET = "lineageOperators"
APPLICATION_DETAILS_FACET = "spark_applicationDetails"

#: Spark conf key bounding the locations listed by a ``subset`` facet.
SUBSET_MAX_LOCATIONS_CONF = "spark.lineage_operators.subset.maxLocations"
#: The default of :data:`SUBSET_MAX_LOCATIONS_CONF`: how many untrimmed locations a ``subset`` facet lists.
DEFAULT_SUBSET_LIMIT = 100
WAREHOUSE_CONF = "spark.sql.warehouse.dir"
CATALOG_IMPLEMENTATION_CONF = "spark.sql.catalogImplementation"
#: Where openlineage-spark's ``SparkConfUtils.getMetastoreUri`` looks for Hive's metastore, in its order.
METASTORE_URIS_CONFS = ("spark.sql.hive.metastore.uris", "spark.hadoop.hive.metastore.uris")
#: The class set as Spark's session catalog (Delta's ``DeltaCatalog``, Iceberg's ``SparkSessionCatalog``).
SESSION_CATALOG_CONF = f"spark.sql.catalog.{SESSION_CATALOG}"
#: Delta's session catalog class (as :data:`SESSION_CATALOG_CONF`, its tables get Delta's ``catalog`` facet).
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
#: Keys a task can set on its own session (``spark.conf.set``): a classic capture reads them from the
#: session's runtime conf, the others from the application's ``SparkConf``.
SESSION_KEYS = frozenset({WAREHOUSE_CONF, SUBSET_MAX_LOCATIONS_CONF})

#: A configuration lookup: the value of a key, or None when it is not set.
ConfLookup = Callable[[str], "str | None"]


@dataclass(frozen=True)
class NamingContext:
    """What naming needs from the session: the warehouse and (Hive only) the metastore URIs."""

    warehouse: str | None = None
    metastore_uris: str | None = None
    subset_limit: int = DEFAULT_SUBSET_LIMIT
    hive: bool = False  # Spark's session catalog is Hive's (spark.sql.catalogImplementation=hive)
    #: the class set as ``spark_catalog`` (``spark.sql.catalog.spark_catalog``), if any: Delta's or Iceberg's
    session_catalog: str | None = None


@dataclass(frozen=True)
class SparkApplication:
    """What a capture knows of the session's Spark application besides its configuration.

    A classic capture has the ``SparkContext`` (its master, name, id, user and UI address); a Connect
    capture has only the server's Spark version, and the rest comes from the configuration
    (``spark.master``, ``spark.app.name``, ``spark.app.id``). ``version`` None: the session could not be
    read, and the run facets are left out."""

    version: str | None
    master: str | None = None
    app_name: str | None = None
    app_id: str | None = None
    user: str | None = None
    ui_url: str | None = None


@dataclass(frozen=True)
class SessionFacts:
    """The session's part of the contract: how its datasets are named, and the run facets of the task."""

    naming: NamingContext = field(default_factory=NamingContext)
    #: facet name -> openlineage-python run facet (``spark_processingEngine``, ``spark_applicationDetails``,
    #: ``lineageOperators``); empty when the session could not be read
    run_facets: Mapping[str, RunFacet] = field(default_factory=dict)


def session_facts(conf: ConfLookup, app: SparkApplication) -> SessionFacts:
    """The session facts of a session whose configuration ``conf`` looks up; never raises for a bad value
    (a ``subset`` bound that is no number is the default, with a warning)."""
    return SessionFacts(naming=naming_context(conf), run_facets=run_facets(conf, app))


def naming_context(conf: ConfLookup) -> NamingContext:
    """Warehouse, Hive metastore (only for a Hive session catalog), session catalog class, subset bound."""
    hive = (conf(CATALOG_IMPLEMENTATION_CONF) or "in-memory") == "hive"
    metastore = None
    if hive:  # as openlineage-spark SparkConfUtils.getMetastoreUri: the first of its keys that is set
        metastore = next((value for value in map(conf, METASTORE_URIS_CONFS) if value), None)
    return NamingContext(
        warehouse=conf(WAREHOUSE_CONF),
        metastore_uris=metastore,
        subset_limit=subset_limit(conf(SUBSET_MAX_LOCATIONS_CONF)),
        hive=hive,
        session_catalog=conf(SESSION_CATALOG_CONF),
    )


def subset_limit(value: str | None) -> int:
    """The ``subset`` bound :data:`SUBSET_MAX_LOCATIONS_CONF` sets (at least 1; the default when unset)."""
    try:
        return max(int(value), 1) if value else DEFAULT_SUBSET_LIMIT
    except ValueError:
        log.warning(
            "lineage capture: %s=%r is not a number; using %d",
            SUBSET_MAX_LOCATIONS_CONF,
            value,
            DEFAULT_SUBSET_LIMIT,
        )
        return DEFAULT_SUBSET_LIMIT


def run_facets(conf: ConfLookup, app: SparkApplication) -> dict[str, RunFacet]:
    """The run facets of the Spark application: engine, this package and the application details (the
    master URL redacted: a Spark Connect or cluster URL can carry a token or a password)."""
    if app.version is None:
        return {}

    master = app.master if app.master is not None else conf("spark.master")
    return {
        SPARK_ENGINE_FACET: f.processing_engine_facet(app.version),
        LINEAGE_OPERATORS_FACET: f.lineage_operators_facet(),
        APPLICATION_DETAILS_FACET: f.spark_application_details_facet(
            master=redact_url(master) if master else None,
            appName=app.app_name if app.app_name is not None else conf("spark.app.name"),
            applicationId=app.app_id if app.app_id is not None else conf("spark.app.id"),
            deployMode=_or_default(conf("spark.submit.deployMode"), "client"),
            driverHost=conf("spark.driver.host"),
            userName=app.user,
            uiWebUrl=app.ui_url,
        ),
    }


def _or_default(value: str | None, default: str) -> str:
    return default if value is None else value


__all__ = [
    "APPLICATION_DETAILS_FACET",
    "DEFAULT_SUBSET_LIMIT",
    "DELTA_CATALOG",
    "LINEAGE_OPERATORS_FACET",
    "METASTORE_URIS_CONFS",
    "SESSION_KEYS",
    "SUBSET_MAX_LOCATIONS_CONF",
    "ConfLookup",
    "NamingContext",
    "SessionFacts",
    "SparkApplication",
    "naming_context",
    "run_facets",
    "session_facts",
    "subset_limit",
]
