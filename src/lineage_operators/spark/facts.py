"""The contract between the readers of Spark's executions and the naming step: plain facts.

Why a module of its own: the classic capture (a Spark listener reading plans in the JVM) and the Spark
Connect capture (plans read on the client) both produce :class:`ExecutionFacts` of
:class:`RelationFacts`, and :mod:`lineage_operators.spark.resolve` turns them into the task's
:class:`CaptureResult`. Plain data (no py4j, nothing of Spark): a capture keeps them after the
listener's callback returned, and the two readers sit side by side above this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lineage_operators.model import LineageDataset

if TYPE_CHECKING:  # types only: this module imports neither openlineage-python nor the plan engine
    from openlineage.client.facet_v2 import JobFacet, RunFacet

    from lineage_operators.column_lineage.lineage import PlanColumnLineage

# The provider sets ``processing_engine`` (Airflow) on every task event after our facets, so the
# Spark engine that ran the task is reported under its own key, with the same standard facet.
SPARK_ENGINE_FACET = "spark_processingEngine"
#: The name of Spark's session catalog (``TableRef.catalog`` None stands for it).
SESSION_CATALOG = "spark_catalog"


@dataclass(frozen=True)
class TableRef:
    """A catalog table identity; ``catalog`` None means Spark's session catalog."""

    database: str | None
    table: str
    catalog: str | None = None


#: ``RelationFacts.provider`` of a Delta table.
DELTA_PROVIDER = "delta"
#: ``ExecutionFacts.func_name`` of a job of RDDs only (:mod:`~lineage_operators.spark.rdd.jobs`).
RDD_JOB = "rddJob"


@dataclass(frozen=True)
class CatalogFacts:
    """The ``catalog`` facet's values of a table, plain strings (an Iceberg catalog's:
    :mod:`~lineage_operators.spark.tables.iceberg_catalogs`; Delta's session catalog); built into the facet
    when datasets resolve (:mod:`~lineage_operators.spark.table_facets`)."""

    name: str
    type: str
    warehouse_uri: str | None = None
    metadata_uri: str | None = None
    properties: tuple[tuple[str, str], ...] = ()
    framework: str = "iceberg"


@dataclass(frozen=True)
class CommitReport:
    """The values of one ``icebergCommitReport`` facet: what Iceberg reported for the commit that made a
    snapshot (read from the snapshot: :mod:`~lineage_operators.spark.tables.iceberg_reports`)."""

    snapshot_id: int
    sequence_number: int | None = None
    operation: str | None = None
    metrics: tuple[tuple[str, int], ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ScanReport:
    """The values of one ``icebergScanReport`` facet: what Iceberg reported for the scan that read an input
    (:mod:`~lineage_operators.spark.tables.iceberg_scans`)."""

    snapshot_id: int
    filter_description: str = ""
    projected_field_names: tuple[str, ...] = ()
    metrics: tuple[tuple[str, int], ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()


@dataclass
class RelationFacts:
    """One dataset touched by an execution, as plain strings (named later)."""

    location: str | None = None  # physical location URI or path
    table: TableRef | None = None  # catalog identity (symlink) when the dataset is a table
    jdbc_url: str | None = None  # redacted
    jdbc_table: str | None = None
    jdbc_query: str | None = None
    kafka: tuple[str, str] | None = None  # (kafka.bootstrap.servers, topic): a Kafka topic
    schema_text: str | None = None  # StructType.json
    file_format: str | None = None
    provider: str | None = None  # table provider: parquet, delta, iceberg, hive, jdbc...
    lifecycle: str | None = None  # CREATE / OVERWRITE / DROP / TRUNCATE / RENAME
    previous_table: TableRef | None = None  # RENAME: the old identity
    relation_id: str | None = None  # identity of the JVM relation, to join scan statistics
    rows: int | None = None
    size: int | None = None
    files: int | None = None
    expr_ids: tuple[int, ...] = ()  # the leaf's output attributes, to join column lineage
    version: str | None = None  # datasetVersion (an Iceberg snapshot id: spark/tables/iceberg.py)
    symlink: tuple[str, str] | None = None  # TABLE symlink named by the table's catalog (Iceberg)
    catalog_facts: CatalogFacts | None = None  # the table's catalog facet values (Iceberg)
    #: rows, bytes, files the table's current snapshot added (Iceberg): its statistics as an output
    written: tuple[int | None, int | None, int | None] | None = None
    written_version: str | None = None  # the table's current snapshot: the version it has as an output
    written_commit: CommitReport | None = None  # that snapshot's commit report (Iceberg)
    #: an output's commit report: ``written_commit`` of the table it wrote
    commit_report: CommitReport | None = None
    scan_report: ScanReport | None = None  # an Iceberg input's scan report
    #: the values of the writing execution's observations (``Dataset.observe``), by observation name
    observed: dict[str, dict[str, Any]] | None = None


@dataclass
class ExecutionFacts:
    """What one finished (or failed) execution read and wrote."""

    func_name: str
    succeeded: bool
    qe_id: int | None = None
    query_id: str | None = None
    root: str | None = None  # class name of the analyzed plan's root
    inputs: list[RelationFacts] = field(default_factory=list)
    outputs: list[RelationFacts] = field(default_factory=list)
    sql: str | None = None
    cost_ms: float = 0.0
    column_lineage: PlanColumnLineage | None = None  # of the written query (column_lineage package)
    tags: frozenset[str] | None = None  # an RDD job's job tags (SQL executions: from the status store)


@dataclass
class CaptureResult:
    """What the task read and wrote, with the run and job facets Spark knows."""

    inputs: list[LineageDataset] = field(default_factory=list)
    outputs: list[LineageDataset] = field(default_factory=list)
    run_facets: dict[str, RunFacet] = field(default_factory=dict)
    job_facets: dict[str, JobFacet] = field(default_factory=dict)
    #: Executions attributed to the task.
    executions: int = 0
    #: Time spent reading plans in listener callbacks (ms, summed).
    capture_ms: float = 0.0
    #: False when some executions may be missing (listener-bus drain timed out, capture failed).
    complete: bool = True


__all__ = [
    "DELTA_PROVIDER",
    "RDD_JOB",
    "SESSION_CATALOG",
    "SPARK_ENGINE_FACET",
    "CaptureResult",
    "CatalogFacts",
    "CommitReport",
    "ExecutionFacts",
    "RelationFacts",
    "ScanReport",
    "TableRef",
]
