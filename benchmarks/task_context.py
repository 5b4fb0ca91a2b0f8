"""Run an operator's ``execute`` in-process, outside the scheduler, with the least context it needs.

The benchmarks measure the task, not Airflow's scheduling, so they call ``op.execute(context)``
directly. The provider's parent-job injection reads ``context["ti"]`` (dag and task ids, try
number, map index, and the dag run's conf, clear number and logical date): the stand-ins below
carry exactly that, so the real provider code runs and its cost is measured.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from airflow.sdk import BaseOperator

START_DATE = datetime(2026, 1, 1, tzinfo=timezone.utc)


@dataclass
class StandInDagRun:
    dag_id: str
    run_id: str
    logical_date: datetime
    run_after: datetime
    conf: dict[str, Any] = field(default_factory=dict)
    clear_number: int = 0
    run_type: str = "manual"


@dataclass
class StandInTaskInstance:
    dag_id: str
    task_id: str
    run_id: str
    dag_run: StandInDagRun
    try_number: int = 1
    map_index: int = -1

    def get_template_context(self) -> dict[str, Any]:
        return {"dag_run": self.dag_run, "ti": self, "task_instance": self}


def minimal_context(task: BaseOperator) -> dict[str, Any]:
    """The context a real run would pass, reduced to what PythonOperator and the provider read."""
    now = datetime.now(timezone.utc)
    run_id = f"manual__{now.isoformat()}__{uuid.uuid4().hex[:8]}"
    dag_run = StandInDagRun(task.dag_id, run_id, logical_date=now, run_after=now)
    ti = StandInTaskInstance(task.dag_id, task.task_id, run_id, dag_run)
    return {
        "ti": ti,
        "task_instance": ti,
        "dag_run": dag_run,
        "run_id": run_id,
        "logical_date": now,
        "task": task,
        "params": {},
    }


def build_task(dag_id: str, factory: Callable[[], BaseOperator]) -> BaseOperator:
    """Create one operator inside its own DAG, as a DAG file would; a new DAG per run so task ids repeat."""
    from airflow.sdk import DAG

    with DAG(dag_id=dag_id, schedule=None, start_date=START_DATE, catchup=False):
        return factory()
