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
from collections.abc import Iterator, Mapping
from pathlib import Path

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
