"""Pick the capture that fits a session: py4j listener (classic) or gRPC interceptor (Spark Connect).

:class:`LineageCapture` is what the operator, the recorder and the automatic capture may use of
either capture: the life cycle and the result. Both classes satisfy it structurally, neither
imports this module.
"""

from __future__ import annotations

from typing import Any, Protocol

from lineage_operators.column_lineage.settings import ColumnLineageSettings
from lineage_operators.spark.facts import CaptureResult


class LineageCapture(Protocol):
    """A capture of one session's executions for one task; no method raises.

    ``start()`` begins watching (executions that ended before are not the task's); ``snapshot()``
    is what was attributed so far, capture going on; ``stop()`` ends it and returns the task's
    result (again at every later call)."""

    @property
    def active(self) -> bool:
        """Started and not stopped."""
        ...

    def start(self) -> None: ...

    def snapshot(self) -> CaptureResult: ...

    def stop(self) -> CaptureResult: ...


def is_connect_session(spark: Any) -> bool:
    """A Spark Connect session (``pyspark.sql.connect.session.SparkSession``), without importing it."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def new_capture(
    spark: Any,
    *,
    timeout: float | None = None,
    column_lineage: ColumnLineageSettings | None = None,
    **options: Any,
) -> LineageCapture:
    """A not yet started capture for ``spark`` (a classic or a Spark Connect ``SparkSession``).

    ``timeout`` (``capture_timeout``) bounds what capture adds to the task after the job: draining
    Spark's listener bus (classic), waiting for the server lookups still pending (Connect).
    ``column_lineage``: classic sessions walk the written query's analyzed plan; over Connect,
    DataFrame writes the client's translated plan, SQL statements openlineage-sql's column lineage.
    Other ``options`` go to the capture's own constructor.
    """
    # Each capture is imported for its own kind of session only: the classic one loads py4j's
    # side of the package, the Connect one gRPC's.
    if is_connect_session(spark):
        from lineage_operators.spark.connect.capture import SparkConnectLineageCapture

        if timeout is not None:
            options["timeout"] = timeout
        return SparkConnectLineageCapture(spark, column_lineage=column_lineage, **options)
    from lineage_operators.spark.capture.classic import SparkLineageCapture

    if timeout is not None:
        options["drain_timeout"] = timeout
    return SparkLineageCapture(spark, column_lineage=column_lineage, **options)


__all__ = ["LineageCapture", "is_connect_session", "new_capture"]
