"""pytest plugin: an isolated Airflow, an OpenLineage FileTransport per test, and ``run_dag``.

Registered through the ``pytest11`` entry point, so it loads in every pytest session of an
environment with ``lineage-operators`` installed; it therefore imports no Airflow at load
time and only sets environment defaults the user has not set:

- ``AIRFLOW_HOME`` -> a temporary directory for the session, with a SQLite DB in it and an
  empty dags folder (Airflow reads these when first imported, so this happens before the
  conftest files load); ``AIRFLOW__CORE__LOAD_EXAMPLES=False``;
- the DB is created lazily, the first time a fixture needing it is used.

Fixtures: ``airflow_db`` (session), ``lineage_transport``, ``run_dag``.
Option: ``--lineage-update-golden`` (or ``LINEAGE_UPDATE_GOLDEN=1``) rewrites golden files.
Disable the plugin with ``-p no:lineage_operators``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.testing import golden, runner

_created_home: Path | None = None


def _configure_env() -> None:
    global _created_home
    created = runner.configure_airflow_env()
    if created is not None:
        _created_home = created


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lineage_operators", "lineage-operators OpenLineage test harness")
    group.addoption(
        "--lineage-update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files compared by assert_events_match_file from this run's events "
        f"instead of comparing (same as {golden.UPDATE_ENV_VAR}=1)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """Set up Airflow's environment before conftest files run: they may import Airflow."""
    _configure_env()


def pytest_configure(config: pytest.Config) -> None:
    _configure_env()  # no-op when done above; covers plugins loaded with -p after conftests
    if config.getoption("lineage_update_golden", default=False):
        golden.set_update_mode(True)


def pytest_unconfigure(config: pytest.Config) -> None:
    golden.set_update_mode(False)
    if _created_home is not None and os.environ.get("AIRFLOW_HOME") == str(_created_home):
        shutil.rmtree(_created_home, ignore_errors=True)


@pytest.fixture(scope="session")
def airflow_db() -> str:
    """The Airflow home, with its metadata DB migrated (once per session)."""
    runner.ensure_airflow_db()
    return os.environ.get("AIRFLOW_HOME", "")


@pytest.fixture
def lineage_transport(tmp_path: Path) -> Iterator[runner.LineageTransport]:
    """The OpenLineage provider writes this test's events into ``tmp_path/openlineage``.

    Provider caches, the DAG-event process pool and the hook-lineage collector are reset
    before and after, since all are process-wide and would leak events between tests.
    """
    transport = runner.LineageTransport(tmp_path / "openlineage")
    saved = {name: os.environ.get(name) for name in runner.transport_env(transport.path)}
    os.environ.update({k: v for k, v in runner.transport_env(transport.path).items() if v is not None})
    runner.reset_openlineage_state()
    try:
        yield transport
    finally:
        runner.flush_openlineage()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        runner.reset_openlineage_state()


@pytest.fixture
def run_dag(
    airflow_db: str, lineage_transport: runner.LineageTransport
) -> Callable[..., runner.DagRunResult]:
    """``run_dag(dag, **kwargs)``: :func:`lineage_operators.testing.run_dag` writing into this test's dir."""

    def _run(dag: Any, **kwargs: Any) -> runner.DagRunResult:
        kwargs.setdefault("events_path", lineage_transport.new_path())
        return runner.run_dag(dag, **kwargs)

    return _run
