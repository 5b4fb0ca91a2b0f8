"""The two sides every benchmark compares, run through real operators' ``execute``.

* ``plain``: what users compare against: a ``PythonOperator`` whose callable builds a
  SparkSession with the same master and conf, runs the job and stops the session.
* ``lineage``: ``LineageAwarePySparkOperator`` with capture on, running the same job function;
  its time also includes ``get_openlineage_facets_on_complete``, the provider's lineage call.

Both use the same dag and task ids, so the Spark app name (``<dag_id>.<task_id>``) is equal too.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.environment import SPARK_MASTER, spark_conf, steady_spark_stop
from benchmarks.task_context import build_task, minimal_context

if TYPE_CHECKING:
    from benchmarks.task_workload import TaskWorkloadSize

PLAIN = "plain"
LINEAGE = "lineage"
SIDES = (PLAIN, LINEAGE)
TASK_ID = "task"

Job = Callable[..., Any]


@dataclass
class SideRun:
    """One timed run: ``seconds`` is execute, plus the lineage call on the library side."""

    side: str
    seconds: float
    execute_seconds: float
    facets_seconds: float
    result: Any
    lineage: Any = None


def run_in_own_session(
    job: Job, job_kwargs: Mapping[str, Any], master: str, session_conf: Mapping[str, str]
) -> Any:
    """The baseline callable: the usual ``SparkSession.builder...getOrCreate()`` / ``stop()`` pattern."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master)
    for key, value in session_conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    try:
        return job(spark, **job_kwargs)
    finally:
        spark.stop()


def run_side(
    side: str,
    dag_id: str,
    job: Job,
    job_kwargs: Mapping[str, Any],
    warehouse_dir: str,
    *,
    extra_conf: Mapping[str, str] | None = None,
) -> SideRun:
    """Build the side's operator in a fresh DAG, then time its ``execute`` with a minimal context.

    ``extra_conf`` is added to both sides' Spark conf (the three-side benchmark's jar listener)."""
    conf = spark_conf(f"{dag_id}.{TASK_ID}", warehouse_dir) | dict(extra_conf or {})
    if side == PLAIN:
        task = build_task(dag_id, lambda: _plain_operator(job, job_kwargs, conf))
    elif side == LINEAGE:
        task = build_task(dag_id, lambda: _lineage_operator(job, job_kwargs, conf))
    else:
        raise ValueError(f"unknown side {side!r}")
    context = minimal_context(task)
    steady_spark_stop()
    gc.collect()
    started = time.perf_counter()
    result = task.execute(context)  # type: ignore[arg-type]  # a plain dict stands in for Context
    executed = time.perf_counter()
    lineage = None
    if side == LINEAGE:
        lineage = task.get_openlineage_facets_on_complete(context["ti"])  # type: ignore[attr-defined]
    finished = time.perf_counter()
    return SideRun(
        side=side,
        seconds=finished - started,
        execute_seconds=executed - started,
        facets_seconds=finished - executed,
        result=result,
        lineage=lineage,
    )


def run_task_workload(
    side: str,
    dag_id: str,
    size: TaskWorkloadSize,
    run_dir: Path | str,
    extra_conf: Mapping[str, str] | None = None,
) -> SideRun:
    """:func:`run_side` with the overhead benchmarks' task (:mod:`benchmarks.task_workload`): its data
    and its warehouse under ``run_dir``."""
    from benchmarks.task_workload import task_workload

    base = Path(run_dir)
    return run_side(
        side,
        dag_id,
        task_workload,
        {"base_dir": str(base / "data"), "tables": size.tables, "rows": size.rows},
        warehouse_dir=str(base / "warehouse"),
        extra_conf=extra_conf,
    )


def _plain_operator(job: Job, job_kwargs: Mapping[str, Any], conf: Mapping[str, str]) -> Any:
    from airflow.providers.standard.operators.python import PythonOperator

    return PythonOperator(
        task_id=TASK_ID,
        python_callable=run_in_own_session,
        op_kwargs={
            "job": job,
            "job_kwargs": dict(job_kwargs),
            "master": SPARK_MASTER,
            "session_conf": dict(conf),
        },
    )


def _lineage_operator(job: Job, job_kwargs: Mapping[str, Any], conf: Mapping[str, str]) -> Any:
    from lineage_operators import LineageAwarePySparkOperator

    # The operator names the app itself (same name as the baseline's), so it is not passed here.
    config = {key: value for key, value in conf.items() if key != "spark.app.name"}
    return LineageAwarePySparkOperator(
        task_id=TASK_ID,
        python_callable=job,
        op_kwargs=dict(job_kwargs),
        master=SPARK_MASTER,
        config_kwargs=config,
    )
