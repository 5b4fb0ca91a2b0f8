"""OpenLineage facet builders: plain data in, ``openlineage.client.facet_v2`` objects out.

Pure functions (no Spark, no Airflow) so every rule is table-tested without a JVM. They follow
what openlineage-spark emits so that our datasets carry the same facets as its listener's:

* ``schema``: Spark ``DataType.typeName`` per field (``long``, ``integer``, ``decimal(10,2)``,
  ``timestamp``...), the field comment as ``description``, nested fields as children: struct
  members, an array's element as ``_element``, a map's ``key`` and ``value``
  (openlineage-spark ``PlanUtils.schemaFacet``, PR OpenLineage#2689).
* ``dataSource``: name and uri = the namespace (``PlanUtils.datasourceFacet``).
* ``storage``: the table format (delta, iceberg, hive) where there is one, else ``file`` with the
  file format Spark read or wrote (parquet, csv, json, orc, text, ...); the facet requires a layer.

Imports openlineage-python at module level: import only from run-time code paths.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attr
from openlineage.client.facet_v2 import (
    RunFacet,
    base_subset_dataset,
    catalog_dataset,
    dataset_version_dataset,
    datasource_dataset,
    input_statistics_input_dataset,
    lifecycle_state_change_dataset,
    output_statistics_output_dataset,
    processing_engine_run,
    schema_dataset,
    sql_job,
    storage_dataset,
    symlinks_dataset,
)

from lineage_operators._version import __version__

#: Where the package's own facet schemas are published: the files of ``lineage_operators/schemas``
#: (package data) at their path in the source repository; ``1-0-0`` changes only with the schema.
SCHEMA_BASE_URL = "https://raw.githubusercontent.com/lineage-operators/lineage-operators/main/src/lineage_operators/schemas/"
SCHEMA_VERSION = "1-0-0"


def custom_schema_url(facet: str) -> str:
    """The ``_schemaURL`` of one of this package's facets (``lineage_operators/schemas/<v>/<facet>.json``)."""
    return f"{SCHEMA_BASE_URL}{SCHEMA_VERSION}/{facet}.json#/$defs/{facet}"


#: Where the JSON schema of :class:`SparkApplicationDetailsRunFacet` is published.
SPARK_APPLICATION_DETAILS_SCHEMA_URL = custom_schema_url("SparkApplicationDetailsRunFacet")
#: Where the JSON schema of :class:`LineageOperatorsRunFacet` is published.
LINEAGE_OPERATORS_SCHEMA_URL = custom_schema_url("LineageOperatorsRunFacet")
#: Storage layers openlineage-spark reports, with the file format their data files use.
STORAGE_LAYERS = {"delta": "parquet", "iceberg": None}
FILE_FORMATS = ("parquet", "orc", "avro", "json", "csv", "xml", "text")
LIFECYCLE_STATES = frozenset(s.value for s in lifecycle_state_change_dataset.LifecycleStateChange)


@attr.define
class SparkApplicationDetailsRunFacet(RunFacet):
    """The Spark application that ran the task (the fields of openlineage-spark's facet of that name)."""

    master: str | None = attr.field(default=None)
    appName: str | None = attr.field(default=None)
    applicationId: str | None = attr.field(default=None)
    deployMode: str | None = attr.field(default=None)
    driverHost: str | None = attr.field(default=None)
    userName: str | None = attr.field(default=None)
    uiWebUrl: str | None = attr.field(default=None)

    @staticmethod
    def _get_schema() -> str:
        return SPARK_APPLICATION_DETAILS_SCHEMA_URL


@attr.define
class LineageOperatorsRunFacet(RunFacet):
    """This package's version: ``spark_processingEngine.openlineageAdapterVersion`` is the client's."""

    version: str = attr.field(default=__version__)

    @staticmethod
    def _get_schema() -> str:
        return LINEAGE_OPERATORS_SCHEMA_URL


# --------------------------------------------------------------------------------------------
# schema
# --------------------------------------------------------------------------------------------


def _udt_name(spec: Mapping[str, Any]) -> str:
    """Spark's ``UserDefinedType.typeName``: the class' simple name without Type/UDT, lower-cased."""
    simple = str(spec.get("class") or spec.get("pyClass") or "udt").rsplit(".", 1)[-1].rstrip("$")
    for suffix in ("Type", "UDT"):
        simple = simple.removesuffix(suffix)
    return simple.lower() or "udt"


def _field(name: str, spec: Any, description: str | None = None) -> schema_dataset.SchemaDatasetFacetFields:
    children: list[schema_dataset.SchemaDatasetFacetFields] | None = None
    if isinstance(spec, str):
        type_name = spec
    elif isinstance(spec, Mapping):
        type_name = str(spec.get("type", "unknown"))
        if type_name == "struct":
            children = _fields(spec.get("fields") or [])
        elif type_name == "array":
            children = [_field("_element", spec.get("elementType"))]
        elif type_name == "map":
            children = [_field("key", spec.get("keyType")), _field("value", spec.get("valueType"))]
        elif type_name == "udt":
            type_name = _udt_name(spec)
    else:
        type_name = "unknown"
    return schema_dataset.SchemaDatasetFacetFields(
        name=name, type=type_name, description=description, fields=children
    )


def _fields(specs: Iterable[Mapping[str, Any]]) -> list[schema_dataset.SchemaDatasetFacetFields]:
    result = []
    for spec in specs:
        metadata = spec.get("metadata") or {}
        comment = metadata.get("comment") if isinstance(metadata, Mapping) else None
        result.append(_field(str(spec.get("name", "")), spec.get("type"), comment if comment else None))
    return result


def schema_facet(schema: str | Mapping[str, Any] | None) -> schema_dataset.SchemaDatasetFacet | None:
    """A schema facet from Spark's ``StructType.json`` (text or parsed); None without fields."""
    if schema is None:
        return None
    spec = json.loads(schema) if isinstance(schema, str) else schema
    if not isinstance(spec, Mapping) or spec.get("type") != "struct" or not spec.get("fields"):
        return None
    return schema_dataset.SchemaDatasetFacet(fields=_fields(spec["fields"]))


# --------------------------------------------------------------------------------------------
# dataset facets
# --------------------------------------------------------------------------------------------


def datasource_facet(namespace: str) -> datasource_dataset.DatasourceDatasetFacet:
    """Name and uri are the dataset's namespace, as openlineage-spark sets them."""
    return datasource_dataset.DatasourceDatasetFacet(name=namespace, uri=namespace)


def symlinks_facet(
    identifiers: Iterable[tuple[str, str, str]],
) -> symlinks_dataset.SymlinksDatasetFacet | None:
    """``(namespace, name, type)`` triples, de-duplicated in order; None when there are none."""
    seen: list[tuple[str, str, str]] = []
    for ident in identifiers:
        if ident not in seen:
            seen.append(ident)
    if not seen:
        return None
    return symlinks_dataset.SymlinksDatasetFacet(
        identifiers=[symlinks_dataset.Identifier(namespace=ns, name=n, type=t) for ns, n, t in seen]
    )


def storage_facet(
    storage_layer: str | None, file_format: str | None = None
) -> storage_dataset.StorageDatasetFacet | None:
    """The table format where there is one (delta, iceberg, hive), else ``file`` for plain files
    whose format Spark knows: the facet requires a storage layer, and plain files have one too."""
    layer = (storage_layer or "").lower()
    fmt = normalize_file_format(file_format)
    if layer in STORAGE_LAYERS:
        fmt = fmt or STORAGE_LAYERS[layer]
        return storage_dataset.StorageDatasetFacet(storageLayer=layer, fileFormat=fmt)
    if fmt is None:
        return None
    return storage_dataset.StorageDatasetFacet(
        storageLayer="hive" if layer == "hive" else "file", fileFormat=fmt
    )


def normalize_file_format(value: str | None) -> str | None:
    """``ParquetFileFormat``, ``org.apache...csv.CSVFileFormat``, ``parquet`` -> the spec's short names."""
    if not value:
        return None
    last = value.replace("/", ".").rsplit(".", 1)[-1].lower()
    return next((name for name in FILE_FORMATS if last.startswith(name)), None)


def lifecycle_facet(
    state: str | None, previous: tuple[str, str] | None = None
) -> lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet | None:
    """CREATE/OVERWRITE/DROP/TRUNCATE/RENAME/ALTER; ``previous`` = (namespace, name) for RENAME."""
    if not state:
        return None
    value = state.upper()
    if value not in LIFECYCLE_STATES:
        raise ValueError(f"unknown lifecycle state change {state!r}")
    previous_identifier = None
    if previous is not None:
        previous_identifier = lifecycle_state_change_dataset.PreviousIdentifier(
            namespace=previous[0], name=previous[1]
        )
    return lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet(
        lifecycleStateChange=lifecycle_state_change_dataset.LifecycleStateChange(value),
        previousIdentifier=previous_identifier,
    )


def hive_catalog_facet(
    warehouse_uri: str | None, metadata_uri: str | None = None
) -> catalog_dataset.CatalogDatasetFacet | None:
    """The ``catalog`` facet of a table of Spark's Hive session catalog, as openlineage-spark
    ``CatalogDatasetFacetUtils`` writes it; None without a warehouse (it skips the facet too).

    No ``catalogProperties``: the jar writes none for a Hive catalog, and some openlineage-python releases
    default the field to an empty object that they serialize (``None`` is left out by all)."""
    if not warehouse_uri:
        return None
    return catalog_dataset.CatalogDatasetFacet(
        framework="hive",
        type="hive",
        name="default",
        metadataUri=metadata_uri,
        warehouseUri=warehouse_uri,
        source="spark",
        catalogProperties=None,
    )


def dataset_version_facet(version: str | None) -> dataset_version_dataset.DatasetVersionDatasetFacet | None:
    """``version``: the dataset's version read or written (an Iceberg snapshot id); None when unknown."""
    return dataset_version_dataset.DatasetVersionDatasetFacet(datasetVersion=version) if version else None


def _non_negative(value: int | None) -> int | None:
    return value if value is not None and value >= 0 else None


def output_statistics_facet(
    rows: int | None = None, size: int | None = None, files: int | None = None
) -> output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet | None:
    """Rows, bytes and files written; None when nothing is known."""
    rows, size, files = _non_negative(rows), _non_negative(size), _non_negative(files)
    if rows is None and size is None and files is None:
        return None
    return output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
        rowCount=rows, size=size, fileCount=files
    )


def input_statistics_facet(
    rows: int | None = None, size: int | None = None, files: int | None = None
) -> input_statistics_input_dataset.InputStatisticsInputDatasetFacet | None:
    """Rows, bytes and files read; None when nothing is known."""
    rows, size, files = _non_negative(rows), _non_negative(size), _non_negative(files)
    if rows is None and size is None and files is None:
        return None
    return input_statistics_input_dataset.InputStatisticsInputDatasetFacet(
        rowCount=rows, size=size, fileCount=files
    )


@attr.define
class BoundedLocationSubsetCondition(base_subset_dataset.LocationSubsetCondition):
    """A ``location`` subset condition whose list was cut: ``omittedLocations`` says how many are left out."""

    omittedLocations: int | None = attr.field(default=None)


def subset_facet(
    locations: Sequence[str],
    *,
    output: bool,
    limit: int,
    omitted: int = 0,
) -> (
    base_subset_dataset.InputSubsetInputDatasetFacet
    | base_subset_dataset.OutputSubsetOutputDatasetFacet
    | None
):
    """The ``subset`` facet of a dataset whose name was trimmed: the untrimmed locations, as
    openlineage-java's ``DatasetReducer`` keeps them; at most ``limit`` of them (the first ones),
    plus ``omitted`` already left out by the caller. The session sets ``limit``
    (``spark.lineage_operators.subset.maxLocations``: :mod:`lineage_operators.spark.session_facts`)."""
    if not locations:
        return None
    limit = max(limit, 1)
    kept = list(locations[:limit])
    omitted += len(locations) - len(kept)
    condition = (
        BoundedLocationSubsetCondition(locations=kept, omittedLocations=omitted)
        if omitted
        else base_subset_dataset.LocationSubsetCondition(locations=kept)
    )
    if output:
        return base_subset_dataset.OutputSubsetOutputDatasetFacet(outputCondition=condition)
    return base_subset_dataset.InputSubsetInputDatasetFacet(inputCondition=condition)


def add_counts(a: int | None, b: int | None) -> int | None:
    """Sum of two optional counters (None only when both are unknown)."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


# --------------------------------------------------------------------------------------------
# run and job facets
# --------------------------------------------------------------------------------------------


def openlineage_client_version() -> str | None:
    """Version of the openlineage-python client that builds the facets (None if unknown)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openlineage-python")
    except PackageNotFoundError:
        return None


def processing_engine_facet(spark_version: str) -> processing_engine_run.ProcessingEngineRunFacet:
    """Spark's version, and the OpenLineage client's as ``openlineageAdapterVersion`` (as openlineage-spark
    reports the OpenLineage Java client it was built with)."""
    return processing_engine_run.ProcessingEngineRunFacet(
        version=spark_version, name="spark", openlineageAdapterVersion=openlineage_client_version()
    )


def lineage_operators_facet() -> LineageOperatorsRunFacet:
    """The ``lineageOperators`` run facet: this package's version."""
    return LineageOperatorsRunFacet(version=__version__)


def spark_application_details_facet(**details: str | None) -> SparkApplicationDetailsRunFacet:
    """The ``spark_applicationDetails`` run facet; unknown keys are ignored, empty values dropped."""
    known = {f.name for f in attr.fields(SparkApplicationDetailsRunFacet) if not f.name.startswith("_")}
    return SparkApplicationDetailsRunFacet(**{k: v for k, v in details.items() if k in known and v})


def sql_job_facet(statements: Sequence[str]) -> sql_job.SQLJobFacet | None:
    """The ``sql`` job facet: statements in execution order, de-duplicated, joined with ``;\\n``.

    The statements must already be redacted.
    """
    unique: list[str] = []
    for statement in statements:
        text = statement.strip().rstrip(";").strip()
        if text and text not in unique:
            unique.append(text)
    if not unique:
        return None
    return sql_job.SQLJobFacet(query=";\n".join(unique), dialect="spark")


__all__ = [
    "LINEAGE_OPERATORS_SCHEMA_URL",
    "SPARK_APPLICATION_DETAILS_SCHEMA_URL",
    "BoundedLocationSubsetCondition",
    "LineageOperatorsRunFacet",
    "SparkApplicationDetailsRunFacet",
    "add_counts",
    "custom_schema_url",
    "dataset_version_facet",
    "datasource_facet",
    "hive_catalog_facet",
    "input_statistics_facet",
    "lifecycle_facet",
    "lineage_operators_facet",
    "openlineage_client_version",
    "output_statistics_facet",
    "processing_engine_facet",
    "schema_facet",
    "spark_application_details_facet",
    "sql_job_facet",
    "storage_facet",
    "subset_facet",
    "symlinks_facet",
]
