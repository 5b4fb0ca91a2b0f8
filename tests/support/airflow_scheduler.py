"""Airflow's real scheduler with a LocalExecutor, and the execution API its task workers call.

What a deployment runs, reduced to what executing tasks needs: ``airflow scheduler`` (creates DAG
runs, asset-triggered ones included, and hands task instances to the LocalExecutor, whose workers
run them through the task SDK's supervisor) and ``airflow api-server --apps execution`` (the API
those workers report to), on a free loopback port. Both use the metadata DB and dags folder given
(the test's isolated Airflow home), a JWT secret made for the run, and are stopped on exit.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tests.support.ports import HOST, free_port

STOP_TIMEOUT = 30.0


def service_env(
    home: Path, dags_folder: Path, port: int, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of both processes: the shell's, without its Airflow settings, plus these."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW")}
    env.update(
        {
            "AIRFLOW_HOME": str(home),
            "AIRFLOW_CONFIG": str(home / "airflow.cfg"),
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
            "AIRFLOW__CORE__DAGS_FOLDER": str(dags_folder),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__PARALLELISM": "1",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://{HOST}:{port}/execution/",
            "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_urlsafe(64),
            "AIRFLOW__LOGGING__BASE_LOG_FOLDER": str(home / "logs"),
            **(extra or {}),
        }
    )
    return env


@contextlib.contextmanager
def airflow_scheduler(
    home: Path, dags_folder: Path, logs: Path, extra_env: Mapping[str, str] | None = None
) -> Iterator[None]:
    """Run the scheduler and the execution API until the block ends; their output goes to ``logs``."""
    port = free_port()
    env = service_env(home, dags_folder, port, extra_env)
    airflow = str(Path(sys.executable).parent / "airflow")
    commands = {
        "api-server": [airflow, "api-server", "--apps", "execution", "-H", HOST, "-p", str(port), "-w", "1"],
        # the scheduler's log server would listen on a fixed port; task logs are read from files
        "scheduler": [airflow, "scheduler", "--skip-serve-logs"],
    }
    logs.mkdir(parents=True, exist_ok=True)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for name, command in commands.items():
            with (logs / f"{name}.log").open("wb") as out:
                processes.append(
                    subprocess.Popen(
                        command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
                    )
                )
        yield
    finally:
        for process in processes:
            _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group we created (the scheduler's executor workers included), then
    SIGKILL to whatever of that group is left."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(STOP_TIMEOUT)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(STOP_TIMEOUT)


def trigger_run(dag_id: str, run_id: str, logical_date: Any, conf: dict[str, Any] | None = None) -> None:
    """Queue a DAG run in the metadata DB this process and the scheduler share, as the CLI does."""
    from airflow.api.common.trigger_dag import trigger_dag
    from airflow.utils.types import DagRunTriggeredByType

    trigger_dag(
        dag_id, triggered_by=DagRunTriggeredByType.CLI, run_id=run_id, logical_date=logical_date, conf=conf
    )


def wait_for_run(dag_id: str, run_id: str, timeout: float, services: Path) -> dict[str, Any]:
    """The run's and its tasks' states once it ended; the services' logs in the error if it does not."""
    from sqlalchemy.exc import OperationalError

    deadline = time.monotonic() + timeout
    run: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        try:
            run = _run_states(dag_id, run_id)
        except OperationalError:  # the scheduler holds SQLite's write lock for a moment
            run = None
        if run is not None and run["state"] in ("success", "failed"):
            return run
        time.sleep(1.0)
    service_logs = "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(services.glob("*.log")))
    raise AssertionError(f"DAG run {run_id} not finished within {timeout:.0f} s: {run}\n{service_logs}")


def _run_states(dag_id: str, run_id: str) -> dict[str, Any] | None:
    from airflow.models.dagrun import DagRun
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        run = session.scalars(select(DagRun).where(DagRun.dag_id == dag_id, DagRun.run_id == run_id)).first()
        if run is None:
            return None
        return {
            "state": str(getattr(run.state, "value", run.state)),
            "tasks": {ti.task_id: str(getattr(ti.state, "value", ti.state)) for ti in run.task_instances},
        }
