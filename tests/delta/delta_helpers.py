"""What the Delta tests read back from Delta itself (its history) to check the events against."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def captured(spark: Any, body: Callable[[], Any]) -> Any:
    """``body`` under a fresh capture that waits for Spark's listener as long as it takes: these tests
    check what is captured, not how fast, and a loaded machine's Delta commands take seconds."""
    from tests.spark.spark_helpers import PATIENT, run_captured

    return run_captured(spark, body, timeout=PATIENT)[1]


def history(spark: Any, table: str) -> int:
    """The newest version Delta's history lists for ``table`` (a name or ``delta.`path```)."""
    return int(spark.sql(f"DESCRIBE HISTORY {table}").agg({"version": "max"}).collect()[0][0])


def commit_metrics(spark: Any, table: str, version: int | None = None) -> dict[str, int]:
    """The ``operationMetrics`` Delta's history lists for a version of ``table`` (the newest by default)."""
    version = history(spark, table) if version is None else version
    (row,) = spark.sql(f"DESCRIBE HISTORY {table}").where(f"version = {version}").collect()
    return {key: int(value) for key, value in (row.operationMetrics or {}).items()}


def dataset_dependencies(dataset: Any) -> set[tuple[str, str, str]]:
    """{(input's last path element, field, subtype)} of the ``columnLineage`` facet's dataset-wide part."""
    facet = dataset.facets["columnLineage"]
    return {
        (item.name.rstrip("/").rsplit("/", 1)[-1], item.field, t.subtype)
        for item in facet.dataset or []
        for t in item.transformations
    }


def delta_python(jars: list[Any]) -> None:
    """Delta's Python API (``delta.tables``) from the delta-spark jar itself, as ``addPyFile`` would."""
    import sys

    path = str(jars[0])
    if path not in sys.path:
        sys.path.append(path)
