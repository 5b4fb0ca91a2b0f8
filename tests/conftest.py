"""Suite-wide setup.

* pyspark starts one JVM per process and the first session fixes the driver's classpath, so the
  PostgreSQL JDBC driver (for the JDBC system tests) goes on it from the start, whichever test
  happens to start Spark first; and the suite's JVMs read Spark's classes from a class-data-sharing
  archive when ``make test-envs`` made one (tests/support/jvm_launch.py).
* The canary scan: every log record (of any logger, this library's at DEBUG), every test's
  captured stdout/stderr/log (Spark's JVM output included) and every OpenLineage event file the
  harness wrote under pytest's base temp directory are searched for the canary secrets that the
  fault-matrix tests plant (tests/support/canary.py). A hit fails the session.
* Some test modules import Airflow at collection time, before any harness fixture isolates it;
  Airflow would then write its default config into ``~/airflow``.  This suite's own process gets a
  throwaway ``AIRFLOW_HOME`` (the harness's ``run_dag`` still runs in a home of its own).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.canary import CANARIES, leaked
from tests.support.connect_server import connect_server  # noqa: F401  (session fixture, shared)
from tests.support.jvm_launch import prepare_environment
from tests.support.marquez import marquez  # noqa: F401  (session fixture, shared)

prepare_environment(os.environ)

_hits: list[str] = []
_current_test = ["(collection)"]


class _CanaryHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.exc_info:
                text += "".join(traceback.format_exception(*record.exc_info))
        except Exception:
            return
        for canary in leaked([text]):
            _hits.append(f"{_current_test[0]}: log record of {record.name}: canary {canary!r}")


_HANDLER = _CanaryHandler(level=logging.DEBUG)


@pytest.fixture(autouse=True)
def _canary_log_scan(request: pytest.FixtureRequest) -> Iterator[None]:
    """(Re-)attach the scanning handler: Airflow's logging setup may replace the root handlers."""
    _current_test[0] = request.node.nodeid
    root = logging.getLogger()
    if _HANDLER not in root.handlers:
        root.addHandler(_HANDLER)
    library = logging.getLogger("lineage_operators")
    saved = library.level
    library.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        library.setLevel(saved)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for section, content in report.sections:
        for canary in leaked([content]):
            _hits.append(f"{report.nodeid} ({report.when}): {section}: canary {canary!r}")


def _scan_event_files(base: Path) -> None:
    for path in base.rglob("*.jsonl"):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for canary in leaked([text]):
            _hits.append(f"event file {path}: canary {canary!r}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is not None:
        with contextlib.suppress(Exception):
            _scan_event_files(factory.getbasetemp())
    if _hits:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = ["canary secrets leaked (tests/support/canary.py):", *_hits]
        if reporter is not None:
            reporter.write_sep("=", "canary scan failed", red=True)
            for line in lines:
                reporter.write_line(line)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


__all__ = ["CANARIES"]


if "AIRFLOW_HOME" not in os.environ:
    _home = tempfile.mkdtemp(prefix="lineage-tests-airflow-")
    os.environ["AIRFLOW_HOME"] = _home
    os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
    atexit.register(shutil.rmtree, _home, ignore_errors=True)
