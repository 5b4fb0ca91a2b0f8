"""One process running a 50-task ``PythonOperator`` DAG with ``dag.test()``, alternately without
and with this package's capture plugin; prints one JSON line.

Run as ``python -m benchmarks.plugin_child ROUNDS WARMUP_ROUNDS TASKS``. "With" means the plugin's
listener is registered and configured to arm capture for every ``PythonOperator`` (the most it
does for a task that never touches Spark); "without" unregisters it. OpenLineage emission is off on
both sides, so the figure is the plugin's own cost. CPU time of the process is the figure (one
process, tasks run in it); wall time is reported too.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from typing import Any

RESULT_PREFIX = "PLUGIN_RESULT "
WITHOUT, WITH = "without_plugin", "with_plugin"

DAG_TEMPLATE = '''"""{tasks} chained plain PythonOperators that never touch Spark."""

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG


def transform(index):
    return sum(range(1000)) + index


with DAG("bench_plugin", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    previous = None
    for index in range({tasks}):
        task = PythonOperator(task_id=f"t{{index:02d}}", python_callable=transform, op_args=[index])
        if previous is not None:
            previous >> task
        previous = task
'''


def main(argv: list[str]) -> None:
    rounds, warmup, tasks = (int(value) for value in argv)
    dag = _load_dag(tasks)
    toggle = _plugin_toggle()
    arms = _count_arms()
    results: dict[str, dict[str, list[float]]] = {side: {"cpu": [], "wall": []} for side in (WITHOUT, WITH)}
    armed: list[int] = []
    for number in range(warmup + rounds):
        for side in (WITHOUT, WITH):
            toggle(side == WITH)
            arms.clear()
            wall, cpu = time.perf_counter(), time.process_time()
            run = dag.test()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if str(getattr(run.state, "value", run.state)) != "success":
                raise SystemExit(f"{side}: the DAG run ended {run.state}")
            if side == WITHOUT and arms:
                raise SystemExit("the plugin armed capture on the side without it")
            print(f"{side} round {number}: {wall:.2f}s wall, {cpu:.2f}s cpu", file=sys.stderr, flush=True)
            if number >= warmup:
                results[side]["cpu"].append(cpu)
                results[side]["wall"].append(wall)
                if side == WITH:
                    armed.append(len(arms))
    report: dict[str, Any] = {"results": results, "tasks": tasks, "armed_per_run": armed}
    print(RESULT_PREFIX + json.dumps(report), flush=True)


def _load_dag(tasks: int) -> Any:
    os.environ["AIRFLOW__OPENLINEAGE__DISABLED"] = "true"
    from lineage_operators.testing.airflow_home import IsolatedAirflow

    isolated = IsolatedAirflow()
    home = isolated.__enter__()  # the child's own Airflow home, for the whole process
    atexit.register(isolated.__exit__, None, None, None)
    dag_file = home / "dags" / "bench_plugin.py"
    dag_file.write_text(DAG_TEMPLATE.format(tasks=tasks))
    logging.disable(logging.WARNING)
    spec = importlib.util.spec_from_file_location("bench_plugin", dag_file)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {dag_file}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dag


def _plugin_toggle() -> Callable[[bool], None]:
    from airflow.sdk.listener import get_listener_manager

    from lineage_operators.plugin.listener import TaskCaptureListener

    manager = get_listener_manager()
    ours = [p for p in manager.pm.get_plugins() if isinstance(p, TaskCaptureListener)]
    if len(ours) != 1:
        raise SystemExit(f"the plugin's listener is not registered: {manager.pm.get_plugins()}")
    listener = ours[0]

    def use_plugin(on: bool) -> None:
        if on:
            os.environ["AIRFLOW__LINEAGE_OPERATORS__CAPTURE_OPERATORS"] = "PythonOperator"
            if not manager.pm.is_registered(listener):
                manager.pm.register(listener)
        else:
            os.environ.pop("AIRFLOW__LINEAGE_OPERATORS__CAPTURE_OPERATORS", None)
            if manager.pm.is_registered(listener):
                manager.pm.unregister(listener)

    return use_plugin


def _count_arms() -> list[str]:
    """Proof the "with" side exercised the plugin: the task labels it armed capture for."""
    from lineage_operators.spark.capture import automatic as auto_capture

    arms: list[str] = []
    original_arm = auto_capture.arm

    def counting_arm(task_label: str) -> None:
        arms.append(task_label)
        original_arm(task_label)

    auto_capture.arm = counting_arm  # type: ignore[assignment]
    return arms


if __name__ == "__main__":
    main(sys.argv[1:])
