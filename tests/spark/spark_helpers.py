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


def comparable_column_lineage(
    datasets: Iterable[LineageDataset], norm: Callable[[str], str], descriptions: bool = False
) -> dict[str, Any]:
    """Output name (``norm``-ed) -> its ``columnLineage`` as plain sets, to compare two sessions'
    facets: fields and dataset-wide entries, per input (namespace, name, field) its transformations'
    type, subtype, masking (and description, if asked); None where the output has no facet."""

    def inputs(fields: Any) -> dict[tuple[str, str, str], set[tuple[Any, ...]]]:
        return {
            (i.namespace, norm(i.name), i.field): {
                (t.type, t.subtype, bool(t.masking), *((t.description,) if descriptions else ()))
                for t in i.transformations
            }
            for i in fields or []
        }

    found = {}
    for dataset in datasets:
        facet = dataset.facets.get("columnLineage")
        found[norm(dataset.name)] = facet and {
            "fields": {column: inputs(f.inputFields) for column, f in facet.fields.items()},
            "dataset": inputs(facet.dataset),
        }
    return found


def listener_queues(spark: Any) -> set[str]:
    """The names of the queues of the context's listener bus (each one a thread Spark wakes for
    every event)."""
    return set(str(spark.sparkContext._jsc.sc().listenerBus().activeQueues().mkString(",")).split(","))
