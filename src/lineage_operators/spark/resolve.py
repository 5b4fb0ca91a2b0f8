"""From plain execution facts to named, de-duplicated :class:`LineageDataset` objects.

Pure Python (naming, redaction, facets): runs in ``snapshot()``/``stop()``, never on the
listener-bus thread.

Merging rules for one dataset seen by several executions of the task (in execution order):
schema = the last one known; symlinks = union; lifecycle = the last one set (a plain append
keeps an earlier CREATE/OVERWRITE; a nested "file source write" is followed by its CTAS' CREATE);
output statistics = summed over the writes; input statistics = what each location read is (the
last reading of it), summed over the distinct locations a trimmed name stands for. A trimmed name
keeps its untrimmed locations for the ``subset`` facet (bounded by ``NamingContext.subset_limit``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from openlineage.client.facet_v2 import BaseFacet, catalog_dataset, schema_dataset

from lineage_operators import facets as f
from lineage_operators import naming
from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.column_lineage.datasets import attach_column_lineage
from lineage_operators.column_lineage.settings import ColumnLineageSettings
from lineage_operators.facets import add_counts, sql_job_facet
from lineage_operators.model import DatasetName, LineageDataset
from lineage_operators.naming import hive_catalog_uris
from lineage_operators.quality.facets import metrics_facet
from lineage_operators.quality.metrics import observed_metrics
from lineage_operators.redaction import redact_text
from lineage_operators.spark.facts import (
    SESSION_CATALOG,
    CaptureResult,
    CatalogFacts,
    CommitReport,
    ExecutionFacts,
    RelationFacts,
    ScanReport,
)
from lineage_operators.spark.passes import prepare
from lineage_operators.spark.session_facts import NamingContext, SessionFacts
from lineage_operators.spark.table_facets import (
    DELTA_CATALOG_FACTS,
    FACET_NAME,
    SCAN_FACET_NAME,
    catalog_facet,
    commit_report_facet,
    in_delta_catalog,
    scan_report_facet,
)

log = get_logger(__name__)

_Facet = TypeVar("_Facet", bound=BaseFacet)


@dataclass
class _Acc:
    name: DatasetName
    schema_text: str | None = None
    symlinks: list[tuple[str, str, str]] = field(default_factory=list)
    provider: str | None = None
    file_format: str | None = None
    lifecycle: str | None = None
    previous: tuple[str, str] | None = None
    rows: int | None = None
    size: int | None = None
    files: int | None = None
    has_stats: bool = False
    #: inputs: statistics per location read (the last reading wins)
    parts: dict[str, tuple[int | None, int | None, int | None]] = field(default_factory=dict)
    #: untrimmed locations, in order; ``subset_seen`` counts them past the kept ones
    subset: list[str] = field(default_factory=list)
    subset_seen: set[str] = field(default_factory=set)
    #: a table of Spark's session catalog (``spark_catalog``), with or without a symlink
    session_table: bool = False
    version: str | None = None  # datasetVersion, the last one read or written
    catalog_facts: CatalogFacts | None = None  # an Iceberg table's catalog
    commit_report: CommitReport | None = None  # an Iceberg output's commit report
    scan_report: ScanReport | None = None  # an Iceberg input's scan report (the last scan's)
    #: the values of the observations made on it (``Dataset.observe``), by observation name (the last win)
    observed: dict[str, dict[str, Any]] = field(default_factory=dict)


def _names(rel: RelationFacts) -> list[DatasetName]:
    if rel.kafka:
        return [naming.name_kafka(*rel.kafka)]
    if rel.jdbc_url:
        table = rel.jdbc_table
        if table and not table.lstrip().startswith("("):
            return [naming.name_jdbc(rel.jdbc_url, table)]
        query = table or rel.jdbc_query
        return naming.name_jdbc_query(rel.jdbc_url, query) if query else []
    if rel.location:
        return [naming.name_location(rel.location)]
    return []


def _symlink(rel: RelationFacts, ctx: NamingContext) -> tuple[str, str, str] | None:
    table = rel.table
    if table is None or table.catalog not in (None, SESSION_CATALOG):
        return None
    link = naming.name_table_symlink(
        table.database or "",
        table.table,
        location=rel.location,
        metastore_uris=ctx.metastore_uris,
        warehouse=ctx.warehouse,
    )
    return (link.namespace, link.name, "TABLE") if link else None


def _previous(rel: RelationFacts, name: DatasetName) -> tuple[str, str] | None:
    """RENAME: openlineage-spark's previous name = the new name with the table name swapped."""
    if rel.previous_table is None or rel.table is None:
        return None
    return name.namespace, name.name.replace(rel.table.table, rel.previous_table.table)


def _accumulate(accs: dict[DatasetName, _Acc], rel: RelationFacts, ctx: NamingContext, output: bool) -> None:
    try:
        names = _names(rel)
    except ValueError as exc:
        log.info("lineage capture: cannot name a dataset: %s", _redact(str(exc)))
        return
    except Exception as exc:
        log.warning("lineage capture: cannot name a dataset: %s", describe(exc))
        return
    symlink = _symlink(rel, ctx) if names else None
    if names and rel.symlink:  # the symlink the table's catalog names
        symlink = (*rel.symlink, "TABLE")
    single = len(names) == 1
    untrimmed = _untrimmed(rel) if single else None
    for name in names:
        acc = accs.get(name)
        if acc is None:
            acc = accs[name] = _Acc(name)
        if untrimmed is not None and untrimmed != name.name and untrimmed not in acc.subset_seen:
            acc.subset_seen.add(untrimmed)
            if len(acc.subset) < ctx.subset_limit:
                acc.subset.append(untrimmed)
        if rel.schema_text and single and not (acc.schema_text and _no_fields(rel.schema_text)):
            acc.schema_text = rel.schema_text
        if symlink and symlink not in acc.symlinks:
            acc.symlinks.append(symlink)
        if rel.table is not None and rel.table.catalog in (None, SESSION_CATALOG):
            acc.session_table = True
        acc.provider = rel.provider or acc.provider
        acc.version = rel.version or acc.version
        acc.catalog_facts = rel.catalog_facts or acc.catalog_facts
        if output:
            acc.commit_report = rel.commit_report or acc.commit_report
        else:
            acc.scan_report = rel.scan_report or acc.scan_report
        acc.file_format = rel.file_format or acc.file_format
        if rel.observed:
            acc.observed.update(rel.observed)
        if output and rel.lifecycle:
            acc.lifecycle = rel.lifecycle
            acc.previous = _previous(rel, name)
        if single and (rel.rows is not None or rel.size is not None or rel.files is not None):
            acc.has_stats = True
            if output:
                acc.rows = add_counts(acc.rows, rel.rows)
                acc.size = add_counts(acc.size, rel.size)
                acc.files = add_counts(acc.files, rel.files)
            else:  # summed once per dataset in _dataset: a read of 100,000 locations stays linear
                acc.parts[untrimmed or name.name] = (rel.rows, rel.size, rel.files)


def _no_fields(schema_text: str) -> bool:
    """Whether a schema names no column: ``CREATE TABLE ... USING parquet LOCATION`` over files a task just
    wrote (the table's schema is read from the files later) must not erase the schema the write gave."""
    try:
        return json.loads(schema_text).get("fields") == []
    except (ValueError, AttributeError):
        return False


def _untrimmed(rel: RelationFacts) -> str | None:
    """The name of a file location before partition trimming (None for JDBC or without location)."""
    if rel.jdbc_url or not rel.location:
        return None
    try:
        return naming.name_location(rel.location, trim=False).name
    except ValueError:
        return None


def _accumulate_safely(
    accs: dict[DatasetName, _Acc], rel: RelationFacts, ctx: NamingContext, output: bool
) -> None:
    try:
        _accumulate(accs, rel, ctx, output)
    except Exception as exc:
        log.warning("lineage capture: dropped a relation of the plan: %s", describe(exc))


def _redact(text: str) -> str:
    try:
        return redact_text(text)
    except Exception:
        return "<unprintable>"


def _facet(acc: _Acc, name: str, build: Callable[[], _Facet | None]) -> _Facet | None:
    """One facet; an error loses that facet only, with a warning."""
    try:
        return build()
    except Exception as exc:
        log.warning("lineage capture: dropped the %s facet of %s: %s", name, acc.name.name, describe(exc))
        return None


def _hive_catalog(ctx: NamingContext) -> catalog_dataset.CatalogDatasetFacet | None:
    return f.hive_catalog_facet(*hive_catalog_uris(ctx.warehouse, ctx.metastore_uris))


def _catalog(acc: _Acc, ctx: NamingContext) -> catalog_dataset.CatalogDatasetFacet | None:
    """An Iceberg catalog's facet (its table in ``spark_catalog`` too), Delta's for a Delta table of
    ``DeltaCatalog`` as ``spark_catalog`` (symlink or not: one located outside the warehouse has none), else
    the Hive catalog's."""
    if acc.catalog_facts is not None:
        return catalog_facet(acc.catalog_facts)
    if acc.session_table and in_delta_catalog(acc.provider, ctx.session_catalog):
        return catalog_facet(DELTA_CATALOG_FACTS)
    return _hive_catalog(ctx) if ctx.hive and acc.session_table else None


def _commit_report(acc: _Acc, report: CommitReport, dataset: LineageDataset) -> None:
    """An Iceberg output's ``icebergCommitReport``, when it is the report of the version written."""
    if acc.version != str(report.snapshot_id):
        return
    facet = _facet(acc, FACET_NAME, lambda: commit_report_facet(report))
    if facet is not None:
        dataset.output_facets[FACET_NAME] = facet


def _scan_report(acc: _Acc, report: ScanReport, dataset: LineageDataset) -> None:
    """An Iceberg input's ``icebergScanReport`` (the report of the scan that read it)."""
    facet = _facet(acc, SCAN_FACET_NAME, lambda: scan_report_facet(report))
    if facet is not None:
        dataset.input_facets[SCAN_FACET_NAME] = facet


def _dataset(acc: _Acc, output: bool, ctx: NamingContext) -> LineageDataset:
    def schema() -> schema_dataset.SchemaDatasetFacet | None:
        try:
            return f.schema_facet(acc.schema_text) if acc.schema_text else None
        except ValueError:
            log.debug("lineage capture: unreadable schema for %s", acc.name.name)
            return None

    built: dict[str, BaseFacet | None] = {
        "schema": _facet(acc, "schema", schema),
        "dataSource": _facet(acc, "dataSource", lambda: f.datasource_facet(acc.name.namespace)),
        "symlinks": _facet(acc, "symlinks", lambda: f.symlinks_facet(acc.symlinks)),
        "catalog": _facet(acc, "catalog", lambda: _catalog(acc, ctx)),
        "storage": _facet(acc, "storage", lambda: f.storage_facet(acc.provider, acc.file_format)),
        "version": _facet(acc, "version", lambda: f.dataset_version_facet(acc.version)),
    }
    dataset = LineageDataset(
        acc.name.namespace, acc.name.name, {k: v for k, v in built.items() if v is not None}
    )
    if acc.subset:
        omitted = len(acc.subset_seen) - len(acc.subset)
        subset = _facet(
            acc,
            "subset",
            lambda: f.subset_facet(acc.subset, output=output, limit=ctx.subset_limit, omitted=omitted),
        )
        if subset is not None:
            (dataset.output_facets if output else dataset.input_facets)["subset"] = subset
    if output:
        lifecycle = _facet(
            acc, "lifecycleStateChange", lambda: f.lifecycle_facet(acc.lifecycle, acc.previous)
        )
        if lifecycle is not None:
            dataset.facets["lifecycleStateChange"] = lifecycle
        if acc.has_stats:
            stats = _facet(
                acc, "outputStatistics", lambda: f.output_statistics_facet(acc.rows, acc.size, acc.files)
            )
            if stats is not None:
                dataset.output_facets["outputStatistics"] = stats
        if acc.commit_report is not None:
            _commit_report(acc, acc.commit_report, dataset)
    elif acc.has_stats:
        totals: tuple[int | None, ...] = (None, None, None)
        for part in acc.parts.values():  # what each distinct location read is, summed
            totals = tuple(f.add_counts(a, b) for a, b in zip(totals, part, strict=True))
        read = _facet(acc, "inputStatistics", lambda: f.input_statistics_facet(*totals))
        if read is not None:
            dataset.input_facets["inputStatistics"] = read
    if not output and acc.scan_report is not None:
        _scan_report(acc, acc.scan_report, dataset)
    if acc.observed:
        observed = _facet(acc, "dataQualityMetrics", lambda: _observed_metrics(acc, output))
        if observed is not None:  # a dataset facet of an output, an input facet of an input
            (dataset.facets if output else dataset.input_facets)["dataQualityMetrics"] = observed
    return dataset


def _observed_metrics(acc: _Acc, output: bool) -> BaseFacet | None:
    """The ``dataQualityMetrics`` facet of the task's own observations of a dataset, or None."""
    metrics, dropped = observed_metrics(acc.observed)
    if dropped:
        log.debug("lineage capture: observed metrics with no facet field: %s", ", ".join(sorted(dropped)))
    return metrics_facet(metrics, as_input=not output) if metrics else None


def _datasets(accs: dict[DatasetName, _Acc], output: bool, ctx: NamingContext) -> list[LineageDataset]:
    """Every dataset; one that cannot be built at all is dropped alone, with a warning."""
    built: list[LineageDataset] = []
    for _, acc in sorted(accs.items()):
        try:
            built.append(_dataset(acc, output, ctx))
        except Exception as exc:
            log.warning("lineage capture: dropped dataset %s: %s", acc.name.name, describe(exc))
    return built


def _fold_nested(accs: dict[DatasetName, _Acc]) -> None:
    """Drop inputs that lie inside another input of the task (a file of a directory read too).

    Spark's own helper queries read single files of a directory the task reads (CSV header and
    schema inference scans the first file): by the single-file rule such a read would name the
    file, a second node for data that is part of the directory's dataset.
    """
    by_namespace: dict[str, list[str]] = {}
    for name in accs:
        by_namespace.setdefault(name.namespace, []).append(name.name.rstrip("/"))
    for name in list(accs):
        inner = name.name.rstrip("/")
        if any(inner.startswith(outer + "/") for outer in by_namespace[name.namespace] if outer):
            del accs[name]


def resolve(
    executions: Iterable[ExecutionFacts],
    ctx: NamingContext,
    column_lineage: ColumnLineageSettings | None = None,
) -> tuple[list[LineageDataset], list[LineageDataset], list[str]]:
    """(inputs, outputs, redacted SQL statements) of the given executions, in execution order.

    ``column_lineage``: ColumnLineageSettings for the outputs' ``columnLineage`` facets.
    """
    executions = prepare(list(executions))
    inputs: dict[DatasetName, _Acc] = {}
    outputs: dict[DatasetName, _Acc] = {}
    statements: list[str] = []
    for execution in executions:
        for rel in execution.inputs:
            _accumulate_safely(inputs, rel, ctx, output=False)
        for rel in execution.outputs:
            _accumulate_safely(outputs, rel, ctx, output=True)
        if execution.sql:
            statement = _redact(execution.sql)
            if statement not in statements:
                statements.append(statement)
    _fold_nested(inputs)
    resolved_outputs = _datasets(outputs, True, ctx)
    attach_column_lineage(resolved_outputs, executions, _names, column_lineage)
    return _datasets(inputs, False, ctx), resolved_outputs, statements


def build_result(
    facts: list[ExecutionFacts],
    session: SessionFacts,
    *,
    complete: bool,
    column_lineage: ColumnLineageSettings | None = None,
) -> CaptureResult:
    """Name and merge execution facts (any capture's) into the task's
    :class:`~lineage_operators.spark.facts.CaptureResult`, with the session's run facets."""
    inputs, outputs, statements = resolve(facts, session.naming, column_lineage)
    sql = sql_job_facet(statements)
    return CaptureResult(
        inputs=inputs,
        outputs=outputs,
        run_facets=dict(session.run_facets),
        job_facets={"sql": sql} if sql is not None else {},
        executions=len(facts),
        capture_ms=sum(f.cost_ms for f in facts),
        complete=complete,
    )
