"""A lineage backend double on loopback that speaks the part of Marquez's HTTP API this project uses.

It is NOT Marquez (no graph, no datasets, no versions): it keeps what ``POST /api/v1/lineage``
received and serves it back from ``GET /api/v1/events/lineage`` with Marquez's contract, read from
Marquez's own resource and DAO classes: run events only, ``after`` (inclusive) and ``before``
(exclusive) on the event time, ``sortDirection`` asc/desc (desc by default), ``limit`` (100 by
default) and ``offset``, answered as ``{"events": [...], "totalCount": n}``. Faults a real server
shows are switches: ``delay`` (seconds before each answer), ``status`` (answer every POST with it,
e.g. 503, storing nothing), ``stop_on`` (an ``(eventType, job name)`` after which the server stops
itself: down mid-run), and :meth:`LineageServer.stop` / :meth:`LineageServer.start` (down, then up
again on the same port).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.ports import HOST


def _time(text: str) -> dt.datetime:
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


@dataclass
class LineageServer:
    port: int = 0
    delay: float = 0.0
    status: int | None = None
    stop_on: tuple[str, str] | None = None
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
        """Down: the port refuses connections once this returns (a later start() is never undone)."""
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
        if self.status is not None:
            with self._lock:
                self.refused += 1
            return self.status
        event = json.loads(body)
        with self._lock:
            self.events.append(event)
        if self.stop_on == (event.get("eventType"), event.get("job", {}).get("name")):
            threading.Thread(target=self.stop, daemon=True).start()  # after this answer
        return 201

    def page(self, query: dict[str, list[str]]) -> dict[str, Any]:
        def one(name: str, default: str) -> str:
            return query.get(name, [default])[0]

        after = _time(one("after", "1970-01-01T00:00:00+00:00"))
        before = _time(one("before", "2030-01-01T00:00:00+00:00"))
        with self._lock:
            chosen = [e for e in self.events if "run" in e and after <= _time(e["eventTime"]) < before]
        chosen.sort(key=lambda e: _time(e["eventTime"]), reverse=one("sortDirection", "desc") == "desc")
        offset, limit = int(one("offset", "0")), int(one("limit", "100"))
        return {"events": chosen[offset : offset + limit], "totalCount": len(chosen)}


def _handler(state: LineageServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, status: int, body: bytes = b"") -> None:
            if state.delay:
                time.sleep(state.delay)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if urlsplit(self.path).path != "/api/v1/lineage":
                self._answer(404)
                return
            self._answer(state.receive(body))

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path != "/api/v1/events/lineage":
                self._answer(404)
                return
            self._answer(200, json.dumps(state.page(parse_qs(parts.query))).encode())

        def log_message(self, format: str, *args: object) -> None:  # quiet
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
