"""A loopback double of the part of Marquez's HTTP API an OpenLineage transport posts to, for the one fault
a real Marquez cannot be made to show: how many times the transport tries each event it refuses.

It is NOT Marquez (tests/support/marquez.py is): it keeps what ``POST /api/v1/lineage`` received, or, with
``status`` set (e.g. 503), answers every POST with it, stores nothing and counts the refusals
(``refused``). Marquez stopped, failing and slow: tests/system/test_marquez_faults.py.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.support.ports import HOST


@dataclass
class LineageServer:
    port: int = 0
    status: int | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    #: POSTs answered with ``status`` (events lost at the server)
    refused: int = 0
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> None:
        self._server = ThreadingHTTPServer((HOST, self.port), _handler(self))
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(5)

    def received(self) -> list[tuple[str, str]]:
        with self._lock:
            return [(str(e.get("eventType")), str(e.get("job", {}).get("name"))) for e in self.events]

    def receive(self, body: bytes) -> int:
        with self._lock:
            if self.status is not None:
                self.refused += 1
                return self.status
            self.events.append(json.loads(body))
        return 201


def _handler(state: LineageServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, status: int) -> None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if urlsplit(self.path).path != "/api/v1/lineage":
                self._answer(404)
                return
            self._answer(state.receive(body))

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def lineage_server(**settings: Any) -> Iterator[LineageServer]:
    server = LineageServer(**settings)
    server.start()
    try:
        yield server
    finally:
        server.stop()
