"""A slow lineage backend: an HTTP proxy on loopback that holds each request ``delay`` seconds, then
passes it to the real server (Marquez) and its answer back. The delay can change while it runs."""

from __future__ import annotations

import contextlib
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.ports import HOST


class SlowProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.delay = 0.0
        self._server = ThreadingHTTPServer((HOST, 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://{HOST}:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="slow-proxy", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def forward(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[int, bytes]:
        time.sleep(self.delay)
        request = urllib.request.Request(self.upstream + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()
        except OSError:
            return 502, b""


def _handler(proxy: SlowProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _pass(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "accept")}
            status, answer = proxy.forward(method, self.path, body, headers)
            self.send_response(status)
            self.send_header("Content-Length", str(len(answer)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(answer)

        def do_GET(self) -> None:
            self._pass("GET")

        def do_POST(self) -> None:
            self._pass("POST")

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextlib.contextmanager
def slow_proxy(upstream: str) -> Iterator[SlowProxy]:
    proxy = SlowProxy(upstream)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()
