"""A task's checked writes into its lineage, and the error that fails it when asked.

The checked dataset is found among the task's recorded outputs: a path by the name the capture
gives it, a table by its ``symlinks`` (``db.orders``) or by its own name. It gets the
``dataQualityMetrics`` facet; the run gets the ``test`` facet listing every check with its status.
A written dataset the capture did not report (capture off, say) is added under its path; a write
that did not finish is not (its checks, all ``skip``, still name it).

The facets and the naming rules are imported where a task uses them: both import openlineage-python,
and the mixin, which a DAG file loads, imports this module.
"""

from __future__ import annotations

from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.model import LineageDataset
from lineage_operators.quality.checks import Verdict
from lineage_operators.quality.metrics import dataset_metrics
from lineage_operators.quality.observe import CheckedWrite, QualityRun, normalized_path, same_target

log = get_logger(__name__)


class DataQualityError(Exception):
    """A task with ``on_failure="fail"`` wrote data that failed checks: the message lists them."""

    def __init__(self, failed: list[tuple[str, Verdict]]) -> None:
        self.failed = failed
        listed = "\n".join(
            f"  {dataset}: {v.check.name} (expected {v.check.expected}, got {v.actual})"
            for dataset, v in failed
        )
        super().__init__(f"{len(failed)} data-quality check(s) failed:\n{listed}")


def record_quality(recorder: Any, run: QualityRun | None) -> None:
    """Add the run's results to a :class:`~lineage_operators.recorder.LineageRecorder`; never raises."""
    if run is None or not run.writes:
        return
    try:
        from lineage_operators.quality.facets import METRICS_FACET, TEST_FACET, metrics_facet, test_facet

        results: list[tuple[tuple[str, str], Verdict]] = []
        for write in run.writes:
            metrics, dropped = dataset_metrics(write.observed)
            if dropped:
                log.debug("data quality: no facet field for %s", ", ".join(sorted(dropped)))
            facets = {METRICS_FACET: metrics_facet(metrics, as_input=False)} if metrics else {}
            key = _add_output_facets(recorder, write, facets)
            results += [(key, v) for v in write.verdicts]
        recorder.add_run_facet(TEST_FACET, test_facet(results, run.spec.severity))
    except Exception as error:
        log.warning("data quality: results not recorded in the lineage: %s", error)


def _add_output_facets(recorder: Any, write: CheckedWrite, facets: dict[str, Any]) -> tuple[str, str]:
    """Add ``facets`` to the recorded output the write made (added under its path when the capture
    did not report it); returns its (namespace, name)."""
    kind = "table" if "/" not in write.target and ":" not in write.target else "path"
    for dataset in recorder.outputs:
        if _is_written(dataset, kind, write.target):
            if facets:
                recorder.add_output(LineageDataset(dataset.namespace, dataset.name, facets))
            return dataset.namespace, dataset.name
    if kind == "table":  # not captured (capture off): no location to name it by
        return "", write.target
    from lineage_operators.naming import parse_dataset

    named = parse_dataset(normalized_path(write.target))
    if write.finished:  # one that raised may have written nothing: named by its checks only
        recorder.add_output(LineageDataset(named.namespace, named.name, facets))
    return named.namespace, named.name


def _is_written(dataset: LineageDataset, kind: str, target: str) -> bool:
    if kind == "path":
        from lineage_operators.naming import parse_dataset

        return tuple(dataset.key) == tuple(parse_dataset(normalized_path(target)))
    if same_target("table", dataset.name.replace("/", "."), target):
        return True
    symlinks = dataset.facets.get("symlinks")
    return any(same_target("table", i.name, target) for i in getattr(symlinks, "identifiers", None) or [])


def raise_if_failed(run: QualityRun | None) -> None:
    """Fail the task (``on_failure="fail"``) when one of its checks failed."""
    if run is not None and run.spec.on_failure == "fail" and run.failed:
        raise DataQualityError(run.failed)


__all__ = ["DataQualityError", "raise_if_failed", "record_quality"]
