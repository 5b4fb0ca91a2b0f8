"""One DAG run (real Airflow ``dag.test()``, the real provider emitting over HTTP) in a fresh
process, with the lineage backend ``up`` (a local server answering 200), ``closed`` (nothing
listens on the port) or ``hanging`` (accepts, never answers). Prints one JSON line.

The transport and the provider use the recommended settings of docs/backends.md
(:data:`RECOMMENDED`), which is what the figure is about.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

RESULT_PREFIX = "TRANSPORT_RESULT "
#: docs/backends.md, "When the lineage backend is down".
EXECUTION_TIMEOUT = "3"
TRANSPORT_TIMEOUT = 1.0
RETRY = {"total": 1, "backoff_factor": 0}


class _Ok(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def backend(state: str) -> Iterator[str]:
    """A URL on 127.0.0.1 (free port) that is up, closed or hanging."""
    if state == "up":
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
        return
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    if state == "closed":
        sock.close()
        yield f"http://127.0.0.1:{port}"
        return
    sock.listen(64)  # hanging: connections queue in the backlog, nothing is ever read or answered
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        sock.close()


def main(state: str) -> None:
    from lineage_operators.testing import runner
    from lineage_operators.testing.airflow_home import IsolatedAirflow

    os.environ["AIRFLOW__OPENLINEAGE__EXECUTION_TIMEOUT"] = EXECUTION_TIMEOUT
    # the DAG's output and the unused events file: removed when the child ends, on every path
    scratch = tempfile.TemporaryDirectory(prefix="lineage-bench-transport-", ignore_cleanup_errors=True)
    atexit.register(scratch.cleanup)
    os.environ["LINEAGE_BENCH_OUTPUT"] = scratch.name
    isolated = IsolatedAirflow()
    isolated.__enter__()  # the child's own Airflow home; run_dag below runs in it
    atexit.register(isolated.__exit__, None, None, None)
    from benchmarks.transport_dag import dag

    with backend(state) as url:
        transport = {"type": "http", "url": url, "timeout": TRANSPORT_TIMEOUT, "retry": RETRY}

        def http_transport(events_path: Any, *_: Any) -> dict[str, str | None]:
            return {
                "AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps(transport),
                "AIRFLOW__OPENLINEAGE__CONFIG_PATH": "",
                "AIRFLOW__OPENLINEAGE__CONFIG_CONN_ID": "",
            }

        with mock.patch.object(runner, "transport_env", http_transport):
            started = time.perf_counter()
            result = runner.run_dag(dag, events_path=Path(scratch.name) / "unused.jsonl")
            seconds = time.perf_counter() - started
    report = {"state": state, "seconds": seconds, "dag_state": result.state}
    print(RESULT_PREFIX + json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
