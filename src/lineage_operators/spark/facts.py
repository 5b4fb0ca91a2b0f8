"""The contract between the two capture paths and the naming step: the task's capture result.

Why a module of its own: the classic capture (:mod:`.capture`, a Spark listener) and the Spark Connect
capture (:mod:`.connect.capture`, plans read on the client) both hand back a :class:`CaptureResult`
built by :func:`build_result` from their execution facts. Kept here, the Connect side no longer imports
the classic capture to borrow its result type: the two sit side by side above this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lineage_operators.model import LineageDataset


@dataclass
class CaptureResult:
    """What the task read and wrote, with the run and job facets Spark knows."""

    inputs: list[LineageDataset] = field(default_factory=list)
    outputs: list[LineageDataset] = field(default_factory=list)
    run_facets: dict[str, Any] = field(default_factory=dict)
    job_facets: dict[str, Any] = field(default_factory=dict)
    #: Executions attributed to the task.
    executions: int = 0
    #: Time spent reading plans in listener callbacks (ms, summed).
    capture_ms: float = 0.0
    #: False when some executions may be missing (listener-bus drain timed out, capture failed).
    complete: bool = True


def build_result(
    facts: list[Any], naming: Any, run_facets: dict[str, Any], *, complete: bool, column_lineage: Any = None
) -> CaptureResult:
    """Name and merge execution facts (any capture's) into the task's :class:`CaptureResult`."""
    from lineage_operators.facets import sql_job_facet
    from lineage_operators.spark.resolve import resolve

    inputs, outputs, statements = resolve(facts, naming, column_lineage)
    sql = sql_job_facet(statements)
    return CaptureResult(
        inputs=inputs,
        outputs=outputs,
        run_facets=run_facets,
        job_facets={"sql": sql} if sql is not None else {},
        executions=len(facts),
        capture_ms=sum(f.cost_ms for f in facts),
        complete=complete,
    )


__all__ = ["CaptureResult", "build_result"]
