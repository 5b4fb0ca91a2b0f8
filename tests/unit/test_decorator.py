"""``@task.lineage_pyspark`` as Airflow finds it, and the injected ``lineage`` recorder."""

from __future__ import annotations

import inspect

from tests.unit.test_operator import opened, run  # noqa: F401  (fixture)

from lineage_operators import LineageAwarePySparkOperator, LineageRecorder, lineage_pyspark_task
from lineage_operators.decorators.pyspark import _LineageAwarePySparkDecoratedOperator


def test_airflow_task_finds_the_decorator_through_provider_info():
    from airflow.providers_manager import ProvidersManager
    from airflow.sdk import task

    assert task.lineage_pyspark is lineage_pyspark_task
    assert "lineage-operators" in ProvidersManager().providers


def test_decorated_task_is_the_operator_and_needs_no_injected_arguments():
    from airflow.sdk import DAG

    with DAG("d", schedule=None):

        @lineage_pyspark_task(master="local[1]", capture_lineage=False)
        def job(part: int, spark, sc, lineage) -> int:
            return part

        mapped = job.partial().expand(part=[1, 2])
        single = job(3)

    assert isinstance(single.operator, _LineageAwarePySparkDecoratedOperator)
    assert isinstance(single.operator, LineageAwarePySparkOperator)
    assert single.operator.master == "local[1]"
    assert mapped.operator.partial_kwargs["master"] == "local[1]"
    parameters = inspect.signature(job.function).parameters
    assert all(parameters[name].default is None for name in ("spark", "sc", "lineage"))


def test_callable_receives_the_lineage_recorder(opened):  # noqa: F811
    seen = {}

    def job(spark, lineage):
        seen["lineage"] = lineage
        lineage.add_output("/data/published/report.csv")

    op = LineageAwarePySparkOperator(task_id="t", python_callable=job, capture_lineage=False)
    run(op)
    assert isinstance(seen["lineage"], LineageRecorder)
    assert seen["lineage"] is op.lineage
    assert [(d.namespace, d.name) for d in op.resolved_outputs] == [("file", "/data/published/report.csv")]


def test_asset_alias_option_adds_an_alias_outlet():
    from airflow.sdk import Asset, AssetAlias

    op = LineageAwarePySparkOperator(
        task_id="t", python_callable=print, asset_alias="spark_outputs", outlets=[Asset("file:///x")]
    )
    assert op.outlets == [Asset("file:///x"), AssetAlias("spark_outputs")]
