"""``LineageAwarePySparkOperator``: Airflow's PySpark operator, with lineage it finds by itself."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from airflow.providers.standard.operators.python import PythonOperator

from lineage_operators._optional import openlineage_client_available
from lineage_operators.mixin import OpenLineageMixin

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from lineage_operators.spark.capture import SparkLineageCapture
    from lineage_operators.spark.session import SessionSpec

log = logging.getLogger(__name__)

SPARK_ARGUMENTS = ("spark", "sc")


def _use_run_spark() -> None:
    """Stands in for ``python_callable`` when a subclass overrides ``run_spark``."""


class SparkJobError(RuntimeError):
    """Raised instead of an error whose message held a secret, so logs and events stay clean."""


class LineageAwarePySparkOperator(OpenLineageMixin, PythonOperator):
    """Run PySpark code and report, through OpenLineage, every dataset it read and wrote.

    A drop-in for Airflow's ``PySparkOperator``: ``python_callable`` receives ``spark`` (and ``sc``)
    when its signature asks for them, plus ``op_args`` / ``op_kwargs`` and context values.
    Internal operators subclass it and override :meth:`run_spark` instead of passing a callable.

    :param conn_id: an Airflow ``spark`` (master URL in host/port) or ``spark_connect`` connection.
    :param master: a Spark master or ``sc://`` Spark Connect URL, when no ``conn_id`` is given.
    :param config_kwargs: Spark conf for the session this operator creates.
    :param capture_lineage: read the Spark plans of every execution to find datasets (default on).
    :param inputs: / :param outputs: datasets known before the run (paths or URIs), templated.

    After (and during) ``execute``, ``resolved_inputs`` / ``resolved_outputs`` list the datasets
    the job touched, named as the OpenLineage Spark integration names them.
    """

    template_fields: Sequence[str] = (*PythonOperator.template_fields, "conn_id", "master", "config_kwargs")
    ui_color = "#e3f1f8"

    def __init__(
        self,
        *,
        python_callable: Callable[..., Any] | None = None,
        conn_id: str | None = None,
        master: str | None = None,
        config_kwargs: Mapping[str, Any] | None = None,
        capture_lineage: bool = True,
        op_args: Sequence[Any] | None = None,
        op_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if python_callable is None:
            if type(self).run_spark is LineageAwarePySparkOperator.run_spark:
                raise ValueError(
                    f"{type(self).__name__}: pass python_callable=... or subclass and override run_spark()"
                )
            python_callable = _use_run_spark
        if conn_id is not None and master is not None:
            raise ValueError(f"{type(self).__name__}: give conn_id or master, not both")
        if config_kwargs is not None and not isinstance(config_kwargs, Mapping):
            raise TypeError(
                f"config_kwargs must be a mapping of Spark conf, got {type(config_kwargs).__name__}"
            )
        super().__init__(python_callable=python_callable, op_args=op_args, op_kwargs=op_kwargs, **kwargs)
        self.conn_id = conn_id
        self.master = master
        self.config_kwargs = config_kwargs
        self.capture_lineage = capture_lineage

    def run_spark(self, spark: SparkSession, context: Any) -> Any:
        """Override in an internal operator to run its job; the return value goes to XCom."""
        raise NotImplementedError

    def record_lineage(self, spark: SparkSession, context: Any) -> None:
        """Override to add what Spark cannot see (an API call, a file moved by hand) with
        ``self.lineage``. Runs after the job, also when it failed; an error here is logged as a
        warning and never fails the task."""

    def execute(self, context: Any) -> Any:
        self.reset_lineage()
        self._context = context
        return super().execute(context)

    def execute_callable(self) -> Any:
        from lineage_operators.spark.session import open_session

        context = self._context
        spec = self._session_spec(context)
        spark, owned = open_session(spec)
        capture = self._start_capture(spark, spec)
        try:
            if self.python_callable is _use_run_spark:
                return self.run_spark(spark, context)
            self.op_kwargs = {**self.op_kwargs, **self._spark_arguments(spark)}
            return super().execute_callable()
        except Exception as error:
            if _holds_secret(error):
                raise _without_secrets(error) from None
            raise
        finally:
            self._finish_capture(capture)
            self._record_lineage_safely(spark, context)
            if owned:
                _stop_quietly(spark)

    def _session_spec(self, context: Any) -> SessionSpec:
        from lineage_operators.spark.session import (
            spec_from_connection,
            spec_from_master,
            with_parent_job_information,
        )

        conf = {"spark.app.name": f"{self.dag_id}.{self.task_id}", **(self.config_kwargs or {})}
        spec = (
            spec_from_connection(self.conn_id, conf) if self.conn_id else spec_from_master(self.master, conf)
        )
        spec.conf = with_parent_job_information(spec.conf, context)
        return spec

    def _spark_arguments(self, spark: SparkSession) -> dict[str, Any]:
        parameters = inspect.signature(self.python_callable).parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        values: dict[str, Any] = {}
        if takes_any or "spark" in parameters:
            values["spark"] = spark
        if (takes_any or "sc" in parameters) and not _is_connect(spark):
            values["sc"] = spark.sparkContext
        return values

    def _start_capture(self, spark: SparkSession, spec: SessionSpec) -> SparkLineageCapture | None:
        if not self.capture_lineage:
            return None
        if spec.is_connect or _is_connect(spark):
            log.info(
                "Task %s runs over Spark Connect, where its datasets cannot be seen automatically: declare "
                "them with inputs=/outputs= on the operator, or call lineage.add_input/add_output (a "
                "`lineage` argument of your python_callable, like `spark`; self.lineage in a subclass).",
                self._lineage_label(),
            )
            return None
        if not openlineage_client_available():
            log.info(
                "Task %s: lineage is off because the OpenLineage provider is not installed; to report "
                "lineage: pip install 'lineage-operators[openlineage]'.",
                self._lineage_label(),
            )
            return None
        if _openlineage_disabled():
            return None  # the user turned OpenLineage off in Airflow's config: nothing to say
        try:
            from lineage_operators.spark.capture import SparkLineageCapture

            capture = SparkLineageCapture(spark)
            capture.start()
            return capture
        except Exception as error:
            log.warning(
                "Task %s: lineage capture did not start (%s); the task runs normally, but its datasets "
                "are reported only if declared with inputs=/outputs=.",
                self._lineage_label(),
                _redacted_text(error),
            )
            return None

    def _record_lineage_safely(self, spark: SparkSession, context: Any) -> None:
        try:
            self.record_lineage(spark, context)
        except Exception as error:
            log.warning("Task %s: record_lineage failed: %s", self._lineage_label(), _redacted_text(error))

    def _finish_capture(self, capture: SparkLineageCapture | None) -> None:
        if capture is None:
            return
        try:
            result = capture.stop()
            self.lineage.add_inputs(result.inputs)
            self.lineage.add_outputs(result.outputs)
            for name, facet in result.run_facets.items():
                self.lineage.add_run_facet(name, facet)
            for name, facet in result.job_facets.items():
                self.lineage.add_job_facet(name, facet)
        except Exception as error:
            log.warning("Task %s: lineage capture failed: %s", self._lineage_label(), _redacted_text(error))


def _is_connect(spark: Any) -> bool:
    return not hasattr(spark, "_jsparkSession")


def _openlineage_disabled() -> bool:
    try:
        from airflow.providers.openlineage.conf import is_disabled
    except ImportError:
        return False
    try:
        return bool(is_disabled())
    except Exception:
        return False


def _redacted_text(error: BaseException) -> str:
    from lineage_operators.redaction import redact_text

    return redact_text(f"{type(error).__name__}: {error}")


def _holds_secret(error: BaseException) -> bool:
    try:
        return _redacted_text(error) != f"{type(error).__name__}: {error}"
    except Exception:
        return False


def _without_secrets(error: BaseException) -> SparkJobError:
    return SparkJobError(_redacted_text(error))


def _stop_quietly(spark: SparkSession) -> None:
    try:
        spark.stop()
    except Exception as error:
        log.warning("Stopping the Spark session failed: %s", error)
