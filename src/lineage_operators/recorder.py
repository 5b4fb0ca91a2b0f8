"""The recording API an operator uses during ``execute`` to say what it read and wrote.

Every public method here is lineage code running inside a production task: it never raises.
Bad input becomes a logged warning naming the task, and the rest of the record is kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators._optional import openlineage_client_available
from lineage_operators.capture_settings import capture_timeout
from lineage_operators.model import LineageDataset, sorted_datasets
from lineage_operators.redaction import redact_url

if TYPE_CHECKING:
    from lineage_operators.spark.capture.chooser import LineageCapture

log = get_logger(__name__)

DatasetLike = Any
"""A path or URI string, a :class:`LineageDataset`, or any object with ``namespace`` and ``name``
(an OpenLineage ``Dataset``). Kept as ``Any`` so that no OpenLineage type is needed to call in."""


class LineageRecorder:
    """Collects inputs, outputs and facets for one task run.

    Datasets are merged by (namespace, name) as they arrive, so callers may record the
    same dataset many times (once per Spark action, say) at no cost to the final event.
    """

    def __init__(self, task_label: str) -> None:
        self.task_label = task_label
        self._inputs: dict[tuple[str, str], LineageDataset] = {}
        self._outputs: dict[tuple[str, str], LineageDataset] = {}
        self.run_facets: dict[str, Any] = {}
        self.job_facets: dict[str, Any] = {}
        self._warned_unavailable = False

    @property
    def inputs(self) -> list[LineageDataset]:
        return sorted_datasets(self._inputs.values())

    @property
    def outputs(self) -> list[LineageDataset]:
        return sorted_datasets(self._outputs.values())

    def add_input(
        self, dataset: DatasetLike, *, namespace: str | None = None, facets: Mapping[str, Any] | None = None
    ) -> None:
        """Record a dataset the task read. ``namespace`` qualifies a bare table name."""
        self._add(self._inputs, dataset, namespace, facets)

    def add_output(
        self, dataset: DatasetLike, *, namespace: str | None = None, facets: Mapping[str, Any] | None = None
    ) -> None:
        """Record a dataset the task wrote. ``namespace`` qualifies a bare table name."""
        self._add(self._outputs, dataset, namespace, facets)

    def add_inputs(self, datasets: Iterable[DatasetLike]) -> None:
        for dataset in datasets:
            self.add_input(dataset)

    def add_outputs(self, datasets: Iterable[DatasetLike]) -> None:
        for dataset in datasets:
            self.add_output(dataset)

    @contextlib.contextmanager
    def capturing(self, spark: Any) -> Iterator[None]:
        """Record what ``spark`` (a classic or a Spark Connect session) reads and writes in the block.

        For operators built on the mixin: ``with self.lineage.capturing(spark): ...``. Capture
        problems are logged warnings; the block's own exceptions pass through unchanged.
        """
        capture = None
        try:
            # the capture's side of the package loads when a task first captures, not at DAG parse
            from lineage_operators.spark.capture import new_capture

            capture = new_capture(spark, timeout=capture_timeout())
            capture.start()
        except Exception as error:
            log.warning("Task %s: lineage capture did not start: %s", self.task_label, _describe(error))
        try:
            yield
        finally:
            if capture is not None:
                self.add_capture(capture)

    def add_capture(self, capture: LineageCapture) -> None:
        """Stop a started capture and record its datasets and facets; never raises."""
        try:
            result = capture.stop()
            self.add_inputs(result.inputs)
            self.add_outputs(result.outputs)
            for name, run_facet in result.run_facets.items():
                self.add_run_facet(name, run_facet)
            for name, job_facet in result.job_facets.items():
                self.add_job_facet(name, job_facet)
        except Exception as error:
            log.warning("Task %s: lineage capture failed: %s", self.task_label, _describe(error))

    def add_run_facet(self, name: str, facet: Any) -> None:
        self.run_facets[name] = facet

    def add_job_facet(self, name: str, facet: Any) -> None:
        self.job_facets[name] = facet

    def _add(
        self,
        target: dict[tuple[str, str], LineageDataset],
        dataset: DatasetLike,
        namespace: str | None,
        facets: Mapping[str, Any] | None,
    ) -> None:
        try:
            resolved = self._resolve(dataset, namespace)
            if resolved is None:
                return
            if facets:
                resolved = resolved.merged_with(
                    LineageDataset(resolved.namespace, resolved.name, dict(facets))
                )
            key = (resolved.namespace, resolved.name)
            known = target.get(key)
            target[key] = known.merged_with(resolved) if known else resolved
        except Exception as error:
            log.warning(
                "Lineage of task %s: could not record dataset %r: %s",
                self.task_label,
                dataset,
                error or type(error).__name__,
            )

    def _resolve(self, dataset: DatasetLike, namespace: str | None) -> LineageDataset | None:
        if isinstance(dataset, LineageDataset):
            return dataset
        if isinstance(dataset, str):
            if not openlineage_client_available():
                if not self._warned_unavailable:
                    log.info(
                        "Lineage of task %s is not recorded: openlineage-python is not installed.",
                        self.task_label,
                    )
                    self._warned_unavailable = True
                return None
            from lineage_operators.naming import parse_dataset  # imports openlineage-python

            # a URL's credentials are never part of a dataset's name
            name = parse_dataset(redact_url(dataset) if ":" in dataset else dataset, namespace=namespace)
            return LineageDataset(name.namespace, name.name)
        return from_openlineage_dataset(dataset)


def _describe(error: BaseException) -> str:
    return describe(error)


def from_openlineage_dataset(dataset: Any) -> LineageDataset:
    """Adopt an OpenLineage ``Dataset`` (or anything shaped like one) with its facets."""
    namespace, name = dataset.namespace, dataset.name
    if not isinstance(namespace, str) or not isinstance(name, str) or not namespace or not name:
        raise ValueError(f"a dataset needs a non-empty namespace and name, got {namespace!r}, {name!r}")
    return LineageDataset(
        namespace,
        name,
        dict(getattr(dataset, "facets", None) or {}),
        dict(getattr(dataset, "inputFacets", None) or {}),
        dict(getattr(dataset, "outputFacets", None) or {}),
    )
