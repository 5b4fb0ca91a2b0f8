"""pytest plugin ``lineage_operators``: an isolated Airflow, a FileTransport per test, ``run_dag``.

Registered through the ``pytest11`` entry point, so it loads in every pytest session of an
environment with ``lineage-operators`` installed.  It is inert until one of its fixtures is
used: loading it imports no Airflow, sets no environment variable and creates no file.

Fixtures: ``run_dag``, ``lineage_transport``, ``airflow_db`` (session: the temporary Airflow
home, created on first use and removed at the end of the session).
Options: ``--lineage-update-golden`` (or ``LINEAGE_UPDATE_GOLDEN=1``) rewrites golden files;
``--lineage-golden-full`` writes full event snapshots instead of the lineage-only default.
Disable it with ``-p no:lineage_operators``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lineage_operators.testing import golden, runner
from lineage_operators.testing.airflow_home import IsolatedAirflow
from lineage_operators.testing.py4j_teardown import close_py4j_connections


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lineage_operators", "lineage-operators OpenLineage test harness")
    group.addoption(
        "--lineage-update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files compared by assert_events_match_file from this run's events "
        f"instead of comparing (same as {golden.UPDATE_ENV_VAR}=1)",
    )
    group.addoption(
        "--lineage-golden-full",
        action="store_true",
        default=False,
        help="with --lineage-update-golden: write whole events (every facet) instead of only the "
        f"lineage (same as {golden.FULL_ENV_VAR}=1)",
    )


def pytest_configure(config: pytest.Config) -> None:
    golden.set_update_mode(
        bool(config.getoption("lineage_update_golden", default=False)),
        full=bool(config.getoption("lineage_golden_full", default=False)),
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Runs before pytest closes its capture streams (they close in the config's cleanups)."""
    golden.set_update_mode(False)
    close_py4j_connections()


@pytest.fixture(scope="session")
def airflow_db() -> Iterator[str]:
    """A temporary Airflow home with a migrated SQLite DB for the session; never the shell's AIRFLOW_HOME."""
    with IsolatedAirflow() as home:
        yield str(home)


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
