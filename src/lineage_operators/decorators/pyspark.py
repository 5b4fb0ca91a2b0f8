"""``@task.lineage_pyspark``: ``@task.pyspark`` with the operator's automatic lineage.

Airflow finds it through this package's provider metadata (``task-decorators`` in
:func:`lineage_operators.provider_info.get_provider_info`), so ``from airflow.sdk import task``
offers ``task.lineage_pyspark`` once the package is installed. Nothing of Spark or OpenLineage is
imported here: the operator imports them when the task runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from airflow.sdk.bases.decorator import DecoratedOperator, task_decorator_factory

from lineage_operators.operators.pyspark import INJECTED_ARGUMENTS, LineageAwarePySparkOperator

if TYPE_CHECKING:
    from airflow.sdk.bases.decorator import TaskDecorator


class _LineageAwarePySparkDecoratedOperator(DecoratedOperator, LineageAwarePySparkOperator):
    """The operator behind ``@task.lineage_pyspark``; ``spark``, ``sc`` and ``lineage`` are injected."""

    custom_operator_name = "@task.lineage_pyspark"

    def __init__(
        self,
        *,
        python_callable: Callable[..., Any],
        op_args: Sequence[Any] | None = None,
        op_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        _make_injected_arguments_optional(python_callable)
        super().__init__(
            kwargs_to_upstream={
                "python_callable": python_callable,
                "op_args": op_args,
                "op_kwargs": op_kwargs,
            },
            python_callable=python_callable,
            op_args=op_args,
            op_kwargs=op_kwargs,
            **kwargs,
        )


def _make_injected_arguments_optional(python_callable: Callable[..., Any]) -> None:
    """The DAG author never passes ``spark``/``sc``/``lineage``: give them a default so that the
    decorator's argument check (run when the DAG is parsed) accepts calls without them."""
    signature = inspect.signature(python_callable)
    parameters = [
        parameter.replace(default=None) if parameter.name in INJECTED_ARGUMENTS else parameter
        for parameter in signature.parameters.values()
    ]
    python_callable.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]


def lineage_pyspark_task(
    python_callable: Callable[..., Any] | None = None,
    multiple_outputs: bool | None = None,
    **kwargs: Any,
) -> TaskDecorator:
    """Run the function with a SparkSession (``spark``, ``sc``) and report its lineage.

    Accepts the operator's arguments (``conn_id``, ``master``, ``config_kwargs``,
    ``capture_lineage``, ``asset_alias``, ``inputs``/``outputs``) besides any ``@task`` argument;
    a ``lineage`` parameter receives the task's :class:`~lineage_operators.LineageRecorder`.
    """
    return task_decorator_factory(
        python_callable=python_callable,
        multiple_outputs=multiple_outputs,
        decorated_operator_class=_LineageAwarePySparkDecoratedOperator,
        **kwargs,
    )
