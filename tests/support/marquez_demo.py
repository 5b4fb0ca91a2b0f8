"""``make marquez``: a running Marquez for a person, its API and its web UI, with the demo DAG's lineage
in it, until Ctrl-C.

The server is the tests' own (tests/support/marquez.py: built from ``../shared/marquez``, on its own
throwaway PostgreSQL, everything deleted when it stops), and so is the UI (tests/support/marquez_web.py:
upstream's app built with npm, served by upstream's ``setupProxy.js``). The demo DAG
(example_dags/file_pipeline.py) runs once through ``dag.test()`` with the provider's HTTP transport
pointed at it, as ``make demo`` runs it with a file, so the graph is there when the URL is printed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

from tests.support.marquez import MarquezServer, MarquezUnavailable
from tests.support.marquez_web import MarquezWeb
from tests.support.ports import is_free

ROOT = Path(__file__).resolve().parents[2]
NAMESPACE = "lineage_operators_demo"
DAG_FILE = ROOT / "example_dags" / "file_pipeline.py"


def serve() -> int:
    server = MarquezServer()
    web = MarquezWeb(server)
    try:
        server.start(port=int(os.environ.get("MARQUEZ_PORT", "5000")))
        web_port = int(os.environ.get("WEB_PORT", "3000"))
        web.start(port=web_port if is_free(web_port) else None)
    except MarquezUnavailable as exc:
        server.stop()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()
    try:
        with tempfile.TemporaryDirectory(prefix="lineage-marquez-demo-") as data:
            os.environ["LINEAGE_EXAMPLE_BASE_DIR"] = data
            from lineage_operators.testing import load_dag, run_dag

            result = run_dag(load_dag(DAG_FILE), namespace=NAMESPACE, backend=server.url)
            job = f"{server.url}/api/v1/namespaces/{NAMESPACE}/jobs"
            print(
                f"\nThe demo DAG ran ({result.state}) and sent its lineage to Marquez.\n"
                f"Marquez UI:  {web.url}/jobs  (pick the namespace {NAMESPACE} at the top)\n"
                f"Marquez API: {server.url}  (jobs of the demo: {job})\n"
                "Press Ctrl-C to stop it (its database is deleted then).",
                flush=True,
            )
            # set after the run: Airflow's dag.test() puts its own SIGTERM handler in place
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
            with contextlib.suppress(KeyboardInterrupt):
                stop.wait()
    finally:
        web.stop()
        server.stop()
    return 0
