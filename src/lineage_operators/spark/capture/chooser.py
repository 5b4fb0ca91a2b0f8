"""Pick the capture that fits a session: py4j listener (classic) or gRPC interceptor (Spark Connect)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from lineage_operators.spark.capture.classic import SparkLineageCapture
    from lineage_operators.spark.connect.capture import SparkConnectLineageCapture


LineageCapture = Union["SparkLineageCapture", "SparkConnectLineageCapture"]


def is_connect_session(spark: Any) -> bool:
    """A Spark Connect session (``pyspark.sql.connect.session.SparkSession``), without importing it."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def new_capture(
    spark: Any, *, timeout: float | None = None, column_lineage: Any = None, **options: Any
) -> LineageCapture:
    """A not yet started capture for ``spark``; both kinds share start/snapshot/stop and the result.

    ``timeout`` (``capture_timeout``) bounds what capture adds to the task after the job: draining
    Spark's listener bus (classic), waiting for the server lookups still pending (Connect).
    ``column_lineage`` (``ColumnLineageSettings``): classic sessions walk the written query's
    analyzed plan; over Connect, DataFrame writes the client's translated plan, SQL statements
    openlineage-sql's column lineage. Other
    ``options`` go to the capture's own constructor.
    """
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
