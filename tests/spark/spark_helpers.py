"""Helpers shared by the Spark capture tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from lineage_operators.model import LineageDataset
from lineage_operators.spark.capture.chooser import LineageCapture, new_capture
from lineage_operators.spark.facts import CaptureResult


def captured(spark: Any, body: Callable[[], Any]) -> CaptureResult:
    """Run ``body`` between start() and stop() of a fresh capture."""
    return run_captured(spark, body)[1]


#: capture_timeout for Spark Connect tests: they check what is captured, not how fast, and a loaded
#: machine's server can take more than the default 5 s to answer the lookups left at stop().
PATIENT = 60.0


def run_captured(spark: Any, body: Callable[[], Any], **options: Any) -> tuple[LineageCapture, CaptureResult]:
    """The capture that fits ``spark`` (classic or Spark Connect), around ``body``."""
    capture = new_capture(spark, **options)
    capture.start()
    try:
        body()
    finally:
        result = capture.stop()
    return capture, result


def names(datasets: Iterable[LineageDataset]) -> set[tuple[str, str]]:
    return {(d.namespace, d.name) for d in datasets}


def local(path: Any) -> tuple[str, str]:
    """The ``file`` dataset name of a local path."""
    return ("file", str(path).rstrip("/"))


def get(datasets: Iterable[LineageDataset], path: Any) -> LineageDataset:
    key = local(path)
    for dataset in datasets:
        if (dataset.namespace, dataset.name) == key:
            return dataset
    raise AssertionError(f"{key} not in {sorted(names(datasets))}")


def schema(dataset: LineageDataset) -> list[tuple[str, str | None]]:
    return [(f.name, f.type) for f in dataset.facets["schema"].fields]


def lifecycle(dataset: LineageDataset) -> str | None:
    facet = dataset.facets.get("lifecycleStateChange")
    return facet.lifecycleStateChange.value if facet else None


def stats(dataset: LineageDataset) -> tuple[int | None, int | None, int | None]:
    facet = dataset.output_facets["outputStatistics"]
    return facet.rowCount, facet.size, facet.fileCount


def listener_queues(spark: Any) -> set[str]:
    """The names of the queues of the context's listener bus (each one a thread Spark wakes for
    every event)."""
    return set(str(spark.sparkContext._jsc.sc().listenerBus().activeQueues().mkString(",")).split(","))
