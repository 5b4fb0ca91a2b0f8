"""From plain execution facts to named, de-duplicated :class:`LineageDataset` objects.

Pure Python (naming, redaction, facets): runs in ``snapshot()``/``stop()``, never on the
listener-bus thread.

Merging rules for one dataset seen by several executions of the task (in execution order):
schema = the last one known; symlinks = union; lifecycle = the last one set (a plain append
keeps an earlier CREATE/OVERWRITE; a nested "file source write" is followed by its CTAS' CREATE);
output statistics = summed over the writes, input statistics over the scans.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lineage_operators.model import DatasetName, LineageDataset
from lineage_operators.spark.plan import ExecutionFacts, RelationFacts

log = logging.getLogger(__name__)

_SESSION_CATALOG = "spark_catalog"


@dataclass(frozen=True)
class NamingContext:
    """What naming needs from the session: the warehouse and (Hive only) the metastore URIs."""

    warehouse: str | None = None
    metastore_uris: str | None = None


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


def _names(rel: RelationFacts) -> list[DatasetName]:
    from lineage_operators import naming

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
    from lineage_operators import naming

    table = rel.table
    if table is None or table.catalog not in (None, _SESSION_CATALOG):
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
    symlink = _symlink(rel, ctx) if names else None
    single = len(names) == 1
    for name in names:
        acc = accs.get(name)
        if acc is None:
            acc = accs[name] = _Acc(name)
        if rel.schema_text and single:
            acc.schema_text = rel.schema_text
        if symlink and symlink not in acc.symlinks:
            acc.symlinks.append(symlink)
        acc.provider = rel.provider or acc.provider
        acc.file_format = rel.file_format or acc.file_format
        if output and rel.lifecycle:
            acc.lifecycle = rel.lifecycle
            acc.previous = _previous(rel, name)
        if single and (rel.rows is not None or rel.size is not None or rel.files is not None):
            from lineage_operators.facets import add_counts

            acc.has_stats = True
            acc.rows = add_counts(acc.rows, rel.rows)
            acc.size = add_counts(acc.size, rel.size)
            acc.files = add_counts(acc.files, rel.files)


def _redact(text: str) -> str:
    try:
        from lineage_operators.redaction import redact_text

        return redact_text(text)
    except Exception:
        return "<unprintable>"


def _dataset(acc: _Acc, output: bool) -> LineageDataset:
    from lineage_operators import facets as f

    facets: dict[str, Any] = {}
    schema = None
    if acc.schema_text:
        try:
            schema = f.schema_facet(acc.schema_text)
        except ValueError:
            log.debug("lineage capture: unreadable schema for %s", acc.name.name)
    if schema is not None:
        facets["schema"] = schema
    facets["dataSource"] = f.datasource_facet(acc.name.namespace)
    symlinks = f.symlinks_facet(acc.symlinks)
    if symlinks is not None:
        facets["symlinks"] = symlinks
    storage = f.storage_facet(acc.provider, acc.file_format)
    if storage is not None:
        facets["storage"] = storage
    dataset = LineageDataset(acc.name.namespace, acc.name.name, facets)
    if output:
        lifecycle = f.lifecycle_facet(acc.lifecycle, acc.previous)
        if lifecycle is not None:
            dataset.facets["lifecycleStateChange"] = lifecycle
        stats = f.output_statistics_facet(acc.rows, acc.size, acc.files) if acc.has_stats else None
        if stats is not None:
            dataset.output_facets["outputStatistics"] = stats
    elif acc.has_stats:
        read = f.input_statistics_facet(acc.rows, acc.size, acc.files)
        if read is not None:
            dataset.input_facets["inputStatistics"] = read
    return dataset


def resolve(
    executions: Iterable[ExecutionFacts], ctx: NamingContext, column_lineage: Any = None
) -> tuple[list[LineageDataset], list[LineageDataset], list[str]]:
    """(inputs, outputs, redacted SQL statements) of the given executions, in execution order.

    ``column_lineage``: ColumnLineageSettings for the outputs' ``columnLineage`` facets.
    """
    from lineage_operators.column_lineage.datasets import attach_column_lineage

    executions = list(executions)
    inputs: dict[DatasetName, _Acc] = {}
    outputs: dict[DatasetName, _Acc] = {}
    statements: list[str] = []
    for execution in executions:
        for rel in execution.inputs:
            _accumulate(inputs, rel, ctx, output=False)
        for rel in execution.outputs:
            _accumulate(outputs, rel, ctx, output=True)
        if execution.sql:
            statement = _redact(execution.sql)
            if statement not in statements:
                statements.append(statement)
    resolved_outputs = [_dataset(acc, True) for _, acc in sorted(outputs.items())]
    attach_column_lineage(resolved_outputs, executions, _names, column_lineage)
    return [_dataset(acc, False) for _, acc in sorted(inputs.items())], resolved_outputs, statements
