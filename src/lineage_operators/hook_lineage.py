"""Fallback where no extractor is configured: captured datasets go to Airflow's hook-lineage
collector, which the OpenLineage provider reads for any task (datasets only, no facets)."""

from __future__ import annotations

from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.assets import asset_uri

log = get_logger(__name__)


def report_to_hook_lineage(result: Any, context: Any, task_label: str) -> None:
    """Add the captured inputs and outputs to the collector; never raises."""
    try:
        from airflow.sdk.lineage import get_hook_lineage_collector

        collector = get_hook_lineage_collector()
        for datasets, add in (
            (result.inputs, collector.add_input_asset),
            (result.outputs, collector.add_output_asset),
        ):
            for dataset in datasets:
                uri = asset_uri(dataset.namespace, dataset.name)
                if uri is not None:
                    add(context=context, uri=uri)
    except Exception as error:
        log.warning("Task %s: hook lineage from Spark capture failed: %s", task_label, error)
