"""The process environment every benchmark (and child process) runs in, and what it ran on.

OpenLineage is switched on with a console transport: without any transport the provider
reports itself disabled and the operator would skip capture, so the benchmark would measure
nothing. Nothing is emitted through it: the benchmarks call the operator's methods directly.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
SPARK_MASTER = "local[2]"
# Bytecode cache for child processes, outside the source trees (``.build/`` is git-ignored).
PYCACHE_DIR = REPO_ROOT / ".build" / "bench-pycache"

OPENLINEAGE_ENVIRONMENT = {
    "AIRFLOW__OPENLINEAGE__TRANSPORT": '{"type": "console"}',
    "AIRFLOW__OPENLINEAGE__DISABLED": "False",
}


def configure_process_environment() -> None:
    """Call before Airflow reads its configuration (the provider caches it on first use)."""
    os.environ.update(OPENLINEAGE_ENVIRONMENT)
    os.environ.pop("OPENLINEAGE_DISABLED", None)
    os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
    # Spark's Python workers (none expected, but be safe) must use this interpreter.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


#: How often pyspark's accumulator server looks for a shutdown request, in the benchmarks (both sides).
ACCUMULATOR_POLL_SECONDS = 0.01


def steady_spark_stop() -> None:
    """Make ``SparkContext.stop()`` end within ~10 ms of being asked, on both sides of a benchmark.

    pyspark's accumulator server runs ``socketserver.serve_forever`` with its default 0.5 s poll,
    and ``SparkContext.stop()`` waits for the next poll. Since the server starts with the context,
    a task's time is rounded up to the next 0.5 s step after the context's creation: on a quiet
    machine, where a side's runs hardly vary, an overhead of tens of milliseconds either costs
    nothing or a whole step in every run, and a median of 10 runs moves by 0.5 s (6% of an 8 s
    task) or not at all. Over a real task's random phase the expected cost is the overhead itself,
    which is what a ratio should estimate; the finer poll gives it (the capture never touches the
    accumulator server). Imports pyspark: call it only where a Spark side runs.
    """
    import socketserver

    from pyspark import accumulators

    def serve_forever(self: socketserver.BaseServer, poll_interval: float = 0.5) -> None:
        socketserver.BaseServer.serve_forever(self, ACCUMULATOR_POLL_SECONDS)

    for name in ("AccumulatorServer", "AccumulatorTCPServer", "AccumulatorUnixServer"):
        server = getattr(accumulators, name, None)
        if isinstance(server, type) and issubclass(server, socketserver.BaseServer):
            server.serve_forever = serve_forever  # type: ignore[method-assign]


#: Environment variables that turn every ``SparkSession.builder`` of a process into Spark Connect.
CONNECT_SWITCHES = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE", "SPARK_API_MODE")


def child_environment() -> dict[str, str]:
    """Environment for benchmark child processes: this one's, with Python's bytecode cache on.

    A deployed Airflow imports from ``.pyc`` files. Where ``PYTHONDONTWRITEBYTECODE`` is set (as on
    this project's machines) and site-packages holds no ``.pyc``, every fresh interpreter would
    compile each module it imports, and a parse or a task start would measure the compiler. So
    children write and read their bytecode under :data:`PYCACHE_DIR`; a warm-up run fills it.

    Without pyspark's process-wide Connect switches: a child picks its own session kind, and with
    ``--tiny`` a Connect benchmark in this process sets ``SPARK_CONNECT_MODE_ENABLED`` while
    children start beside it (a classic child would then refuse to start: CONNECT_URL_NOT_SET).
    """
    environment = {key: value for key, value in os.environ.items() if key not in CONNECT_SWITCHES}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPYCACHEPREFIX"] = str(PYCACHE_DIR)
    return environment


def spark_conf(app_name: str, warehouse_dir: str) -> dict[str, str]:
    """The conf both sides use: small, quiet, no UI. The warehouse is per run so a CTAS can repeat."""
    return {
        "spark.app.name": app_name,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.warehouse.dir": warehouse_dir,
        "spark.log.level": "ERROR",
    }


def machine_description() -> str:
    """Cores and memory: the figures are ratios, but the machine still explains their noise."""
    cores = os.cpu_count() or 0
    return f"{cores} cores, {_memory_gib():.1f} GiB, {platform.system()} {platform.machine()}"


def _memory_gib() -> float:
    try:
        import psutil

        return float(psutil.virtual_memory().total) / 2**30
    except ImportError:
        with open("/proc/meminfo") as meminfo:
            kib = int(meminfo.readline().split()[1])
        return kib / 2**20


def versions() -> dict[str, str]:
    """Versions of everything whose change could move a figure."""
    names = {
        "pyspark": "pyspark",
        "airflow": "apache-airflow",
        "provider": "apache-airflow-providers-openlineage",
        "openlineage-python": "openlineage-python",
        "lineage-operators": "lineage-operators",
    }
    found = {"python": platform.python_version()}
    for label, distribution in names.items():
        try:
            found[label] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            found[label] = "absent"
    return found


def run_child_report(
    module: str,
    args: list[str],
    result_prefix: str,
    timeout: float,
    *,
    pass_stderr: bool = False,
    environment: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run ``python -m <module> <args>`` in a fresh interpreter and return the JSON report it
    prints on a line starting with ``result_prefix``; a fresh process is what makes the figure.

    ``pass_stderr``: the child's stderr (its progress lines) goes to this process's stderr as it
    comes, for children that run for minutes. ``environment``: variables set in the child besides."""
    completed = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=REPO_ROOT,
        env={**child_environment(), **(environment or {})},
        stdout=subprocess.PIPE,
        stderr=None if pass_stderr else subprocess.PIPE,
        text=True,
        timeout=timeout,
        check=False,
    )
    for line in completed.stdout.splitlines():
        if line.startswith(result_prefix):
            report: dict[str, Any] = json.loads(line[len(result_prefix) :])
            return report
    errors = "see its output above" if pass_stderr else (completed.stderr or "")[-2000:]
    raise RuntimeError(f"{module} failed ({completed.returncode}): {errors}")
