"""A demo run (`make demo`: the file pipeline through Airflow, local Spark and the OpenLineage provider)
prints no traceback: py4j connection errors and teardown logging errors used to appear after every task."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.support.processes import run_to_end

ROOT = Path(__file__).resolve().parents[2]


def test_demo_run_prints_no_traceback() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "PYTEST"))}
    result = run_to_end(
        [sys.executable, str(ROOT / "scripts" / "demo.py")],
        cwd=ROOT,
        env=env,
        timeout=900,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    assert "DAG run: success" in output
    for noise in (
        "Traceback",
        "Logging error",
        "ConnectionResetError",
        "Py4JNetworkError",
        "BrokenPipeError",
    ):
        assert noise not in output, f"{noise!r} in the demo's output:\n{output[-8000:]}"
