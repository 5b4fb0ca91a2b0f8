"""``LineageAwarePySparkOperator``: Airflow's PySpark operator, with lineage it finds by itself.

Size: the operator is one class whose argument checks, session life cycle and lineage hooks
read best together; its pieces with their own job already live in spark/session/ and mixin.py.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from airflow.providers.standard.operators.python import PythonOperator

from lineage_operators.mixin import OpenLineageMixin

# Only the mixin at the top: what runs in a task (the session, the capture, assets, the redacting
# logger) is imported in the methods that run it, the argument checks where a value is given. With all
# of it at the top a DAG file loaded 28 modules of this package instead of 3 and the parse benchmark
# missed its target (parse_time_ratio 1.63 cold, 1.77 preimported; target 1.10). pyspark, py4j and
# OpenLineage never load at parse (tests/unit/test_lazy_imports.py).
if TYPE_CHECKING:
    import logging

    from pyspark.sql import SparkSession

    from lineage_operators.spark.capture import LineageCapture
    from lineage_operators.spark.session import SessionSpec

SPARK_ARGUMENTS = ("spark", "sc")
#: Values the operator injects into ``python_callable`` when its signature names them.
INJECTED_ARGUMENTS = (*SPARK_ARGUMENTS, "lineage")
# Set by pyspark's ``SparkSession.builder.remote(...)`` for the whole process, never unset.
_CONNECT_MODE = "SPARK_CONNECT_MODE_ENABLED"


def _use_run_spark() -> None:
    """Stands in for ``python_callable`` when a subclass overrides ``run_spark``."""


class SparkJobError(RuntimeError):
    """Raised instead of an error whose message held a secret, so logs and events stay clean."""


class LineageAwarePySparkOperator(OpenLineageMixin, PythonOperator):
    """Run PySpark code and report, through OpenLineage, every dataset it read and wrote.

    A drop-in for Airflow's ``PySparkOperator``: ``python_callable`` receives ``spark`` (and ``sc``)
    when its signature asks for them, plus ``op_args`` / ``op_kwargs`` and context values, and
    ``lineage`` (the task's :class:`LineageRecorder`) to add what Spark cannot see.
    Internal operators subclass it and override :meth:`run_spark` instead of passing a callable.

    :param conn_id: an Airflow ``spark`` (master URL in host/port) or ``spark_connect`` connection.
    :param master: a Spark master or ``sc://`` Spark Connect URL, when no ``conn_id`` is given.
    :param config_kwargs: Spark conf for the session this operator creates.
    :param capture_lineage: read the Spark plans of every execution to find datasets (default on).
    :param column_lineage: emit the ``columnLineage`` facet on outputs; ``None``: the
        ``[lineage_operators] column_lineage`` Airflow config (default on).
    :param column_lineage_dataset_dependencies: ``"dataset"`` (filters, join keys... in the facet's
        ``dataset`` list) or ``"fields"`` (copied into every field); ``None``: config, else "dataset".
    :param column_lineage_max_columns: outputs with more columns get no facet; ``None``: config, else 1000.
    :param column_lineage_descriptions: fill each transformation's ``description`` with the expression's
        text as Spark prints it (``sum(amount)``; secrets redacted, long texts cut); ``None``: the
        ``[lineage_operators] column_lineage_descriptions`` config, else off.
    :param inputs: / :param outputs: datasets known before the run (paths or URIs), templated.
    :param data_quality: checks evaluated while the task writes (:mod:`lineage_operators.quality`):
        ``{"path or table": [not_null("id"), ...]}`` or a ``DataQuality(..., on_failure="fail")``.
    :param asset_alias: name of an Airflow ``AssetAlias`` added to ``outlets``. On success, every
        dataset written becomes an asset event on each ``AssetAlias`` outlet (see ``assets.py``).

    After (and during) ``execute``, ``resolved_inputs`` / ``resolved_outputs`` list the datasets
    the job touched, named as the OpenLineage Spark integration names them.
    """

    # the mixin appends its ``inputs`` and ``outputs``
    template_fields: Sequence[str] = (*PythonOperator.template_fields, "conn_id", "master", "config_kwargs")
    ui_color = "#e3f1f8"

    conn_id: str | None
    master: str | None
    config_kwargs: Mapping[str, Any] | None
    capture_lineage: bool
    column_lineage: bool | None
    column_lineage_dataset_dependencies: str | None
    column_lineage_max_columns: int | None
    column_lineage_descriptions: bool | None

    def __init__(
        self,
        *,
        python_callable: Callable[..., Any] | None = None,
        conn_id: str | None = None,
        master: str | None = None,
        config_kwargs: Mapping[str, Any] | None = None,
        capture_lineage: bool = True,
        asset_alias: str | None = None,
        column_lineage: bool | None = None,
        column_lineage_dataset_dependencies: str | None = None,
        column_lineage_max_columns: int | None = None,
        column_lineage_descriptions: bool | None = None,
        op_args: Sequence[Any] | None = None,
        op_kwargs: Mapping[str, Any] | None = None,
        templates_dict: dict[str, Any] | None = None,
        templates_exts: Sequence[str] | None = None,
        show_return_value_in_logs: bool = True,
        inputs: Any = None,
        outputs: Any = None,
        data_quality: Any = None,
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
        # A value left at its default needs no check, and the checks' modules load only for a value
        # given: importing them in every parse cost 7.9 M instructions per 50-task DAG (callgrind:
        # parse ratio 1.108 -> 1.078 cold, against the 1.10 target of benchmarks/parse_cost.py).
        if master is not None or capture_lineage is not True:
            from lineage_operators.spark.session.arguments import check_capture_lineage, check_master

            check_master(master)
            check_capture_lineage(capture_lineage)
        if asset_alias is not None:
            from airflow.sdk import AssetAlias

            kwargs["outlets"] = [*_as_outlets(kwargs.get("outlets")), AssetAlias(asset_alias)]
        column_settings = (
            column_lineage,
            column_lineage_dataset_dependencies,
            column_lineage_max_columns,
            column_lineage_descriptions,
        )
        if any(value is not None for value in column_settings):
            from lineage_operators.column_lineage.settings import validate

            validate(*column_settings, owner=type(self).__name__)
        # Airflow's ``apply_defaults`` runs at each class level as usual; the mixin checks
        # ``inputs`` / ``outputs`` / ``data_quality`` once, on its way to ``PythonOperator``.
        super().__init__(
            python_callable=python_callable,
            op_args=op_args,
            op_kwargs=op_kwargs,
            templates_dict=templates_dict,
            templates_exts=templates_exts,
            show_return_value_in_logs=show_return_value_in_logs,
            inputs=inputs,
            outputs=outputs,
            data_quality=data_quality,
            **kwargs,
        )
        self.conn_id = conn_id
        self.master = master
        self.config_kwargs = config_kwargs
        self.capture_lineage = capture_lineage
        self.column_lineage = column_lineage
        self.column_lineage_dataset_dependencies = column_lineage_dataset_dependencies
        self.column_lineage_max_columns = column_lineage_max_columns
        self.column_lineage_descriptions = column_lineage_descriptions

    def run_spark(self, spark: SparkSession, context: Any) -> Any:
        """Override in an internal operator to run its job; the return value goes to XCom."""
        raise NotImplementedError

    def record_lineage(self, spark: SparkSession, context: Any) -> None:
        """Override to add what Spark cannot see (an API call, a file moved by hand) with
        ``self.lineage``. Runs after the job, also when it failed; an error here is logged as a
        warning and never fails the task."""

    def execute(self, context: Any) -> Any:
        from lineage_operators._logging import task_scope

        self.reset_lineage()
        self._context = context
        with task_scope(self._lineage_label()):
            result = super().execute(context)
            from lineage_operators.assets import emit_output_assets

            emit_output_assets(self, context)
            return result

    def execute_callable(self) -> Any:
        from lineage_operators.spark.session import open_session

        context = self._context
        spec = self._session_spec(context)
        connect_mode_before = _CONNECT_MODE in os.environ
        try:
            spark, owned = open_session(spec)  # its errors may quote the Connect URL and its token
        except Exception as error:
            if not connect_mode_before:  # the builder switches the process before it connects
                os.environ.pop(_CONNECT_MODE, None)
            if _holds_secret(error):
                raise _without_secrets(error) from None
            raise
        capture = self._start_capture(spark, spec)
        try:
            with self.checking_data_quality(context):
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
                # here, on the task's thread: the next task of the process (dag.test()) must find no
                # half-stopped context; capture never blocks the listener bus that stop() joins
                _stop_quietly(spark)
                if not connect_mode_before:  # pyspark switched the whole process to Connect mode
                    os.environ.pop(_CONNECT_MODE, None)

    def _session_spec(self, context: Any) -> SessionSpec:
        from lineage_operators.spark.session import (
            spec_from_connection,
            spec_from_master,
            with_parent_job_information,
        )

        if not self.conn_id:
            from lineage_operators.spark.session.arguments import check_master

            check_master(self.master)  # templated values are known only now
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
        if takes_any or "lineage" in parameters:
            values["lineage"] = self.lineage
        return values

    def _start_capture(self, spark: SparkSession, spec: SessionSpec) -> LineageCapture | None:
        if not self.capture_lineage:
            return None
        from lineage_operators._optional import openlineage_client_available
        from lineage_operators.capture_settings import capture_timeout

        if not openlineage_client_available():
            _log().info(
                "Task %s: lineage is off because the OpenLineage provider is not installed; to report "
                "lineage: pip install 'lineage-operators[openlineage]'.",
                self._lineage_label(),
            )
            return None
        if not lineage_wanted(self):
            return None
        try:
            from lineage_operators.column_lineage.settings import resolve_settings
            from lineage_operators.spark.capture import new_capture

            settings = resolve_settings(
                self.column_lineage,
                self.column_lineage_dataset_dependencies,
                self.column_lineage_max_columns,
                self.column_lineage_descriptions,
            )
            capture = new_capture(spark, timeout=capture_timeout(), column_lineage=settings)
            capture.start()
            return capture
        except Exception as error:
            _log().warning(
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
            _log().warning("Task %s: record_lineage failed: %s", self._lineage_label(), _redacted_text(error))

    def _finish_capture(self, capture: LineageCapture | None) -> None:
        if capture is not None:
            self.lineage.add_capture(capture)


def _log() -> logging.Logger:
    from lineage_operators._logging import get_logger

    return get_logger(__name__)


def _as_outlets(outlets: Any) -> list[Any]:
    if outlets is None:
        return []
    return list(outlets) if isinstance(outlets, (list, tuple)) else [outlets]


def _is_connect(spark: Any) -> bool:
    return not hasattr(spark, "_jsparkSession")


def lineage_wanted(task: Any) -> bool:
    """Whether the provider will report this task's datasets, decided by the provider's own
    helpers: OpenLineage disabled, selective enable without the task opted in, the operator in
    ``disabled_for_operators`` or an ``emission_policy`` that skips the task -> no capture."""
    try:
        from airflow.providers.openlineage.conf import is_disabled
    except ImportError:
        return True
    try:
        if is_disabled():
            return False
        try:
            from airflow.providers.openlineage.utils.emission_policy import resolve_task_emission_policy
        except ImportError:  # providers before emission policies
            from airflow.providers.openlineage.utils.utils import (
                is_operator_disabled,
                is_selective_lineage_enabled,
            )

            return is_selective_lineage_enabled(task) and not is_operator_disabled(task)
        controls = resolve_task_emission_policy(task, task.dag_id, task.task_id)
        return bool(controls.emit and controls.extract_operator_metadata)
    except Exception:
        return True


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
    from lineage_operators.spark.session import stop_owned_session

    try:
        stop_owned_session(spark)
    except Exception as error:
        _log().warning("Stopping the Spark session failed: %s", error)
