"""Airflow Assets from the datasets Spark wrote, so Airflow's graph and OpenLineage's agree.

An OpenLineage dataset (namespace, name) becomes the Asset URI that the Airflow provider for
that scheme translates back to the same namespace and name (``translate_airflow_asset``):
paths join the namespace (``file:///data/x``, ``s3://bucket/key``), table names become path
segments (``postgres://host:5432/db/schema/table``). What Airflow cannot hold is skipped with one
log line naming the task.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from lineage_operators._logging import get_logger
from lineage_operators.model import LineageDataset
from lineage_operators.redaction import redact_url

log = get_logger(__name__)

#: Namespaces whose dataset names are dotted table names (``db.schema.table``), not paths.
TABLE_SCHEMES = frozenset(
    {
        "postgres",
        "postgresql",
        "mysql",
        "mariadb",
        "trino",
        "hive",
        "redshift",
        "sqlserver",
        "mssql",
        "oracle",
        "db2",
        "teradata",
        "bigquery",
        "snowflake",
        "clickhouse",
        "awsathena",
    }
)


def asset_uri(namespace: str, name: str) -> str | None:
    """The Asset URI of an OpenLineage dataset, or ``None`` when there is none."""
    if not namespace or not name:
        return None
    if namespace == "file" or namespace.startswith("file://"):
        return f"file://{name}" if name.startswith("/") else None
    scheme = urlsplit(namespace).scheme
    if not scheme or "://" not in namespace:
        return None
    base = namespace.rstrip("/")
    if scheme in TABLE_SCHEMES:
        parts = name.split(".")
        if any(not part for part in parts):
            return None
        return f"{base}/{'/'.join(parts)}"
    return f"{base}/{name.lstrip('/')}"


def to_asset(dataset: LineageDataset, task_label: str) -> Any:
    """An ``airflow.sdk.Asset`` for ``dataset``, or ``None`` (logged once per dataset)."""
    from airflow.sdk import Asset

    uri = asset_uri(dataset.namespace, dataset.name)
    if uri is None:
        log.info(
            "Task %s: dataset %s has no Airflow Asset URI; no asset event for it",
            task_label,
            _shown(dataset),
        )
        return None
    try:
        return Asset(uri=uri)
    except Exception as error:
        log.info("Task %s: Airflow cannot hold asset %s (%s); skipped", task_label, _shown(dataset), error)
        return None


def add_asset_events(
    outlet_events: Any, aliases: Iterable[Any], datasets: Iterable[LineageDataset], task_label: str
) -> int:
    """Add one asset event per dataset to each alias; returns how many assets were added."""
    assets = [asset for dataset in datasets if (asset := to_asset(dataset, task_label)) is not None]
    for alias in aliases:
        for asset in assets:
            outlet_events[alias].add(asset)
    return len(assets)


def asset_aliases(outlets: Iterable[Any] | None) -> list[Any]:
    from airflow.sdk import AssetAlias

    return [outlet for outlet in outlets or () if isinstance(outlet, AssetAlias)]


def emit_output_assets(operator: Any, context: Any) -> None:
    """For an operator with a recorder: its written datasets become events on its AssetAlias outlets.
    Never raises."""
    label = f"{getattr(operator, 'dag_id', '?')}.{getattr(operator, 'task_id', '?')}"
    try:
        aliases = asset_aliases(getattr(operator, "outlets", None))
        if not aliases:
            return
        add_asset_events(context["outlet_events"], aliases, operator.lineage.outputs, label)
    except Exception as error:
        log.warning("Task %s: asset events from lineage failed: %s", label, error)


def _shown(dataset: LineageDataset) -> str:
    return redact_url(f"{dataset.namespace}/{dataset.name}")
