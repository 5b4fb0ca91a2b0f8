"""A local stand-in for https://openlineage.io/spec/: serves the spec folder over HTTP on 127.0.0.1.

``/spec/<version>/OpenLineage.json`` and ``/spec/facets/<version>/<Name>.json`` are answered from
``$OPENLINEAGE_SPEC_DIR`` whatever the version (the folder holds one of each), so schema download
and caching are tested without the internet.  Point ``LINEAGE_OPERATORS_SCHEMA_MIRROR`` at
``server.mirror_url``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass
class SchemaServer:
    mirror_url: str
    requests: list[str] = field(default_factory=list)


def spec_dir() -> Path:
    env = os.environ.get("OPENLINEAGE_SPEC_DIR")
    if not env or not (Path(env) / "OpenLineage.json").is_file():
        raise RuntimeError("the test suite needs OPENLINEAGE_SPEC_DIR (see the Makefile's test target)")
    return Path(env)


def _file_for(root: Path, url_path: str) -> Path | None:
    parts = [p for p in url_path.split("/") if p]
    if len(parts) == 3 and parts[0] == "spec" and parts[2] == "OpenLineage.json":
        return root / "OpenLineage.json"
    if len(parts) == 4 and parts[:2] == ["spec", "facets"] and parts[3].endswith(".json"):
        candidate = root / "facets" / parts[3]
        return candidate if candidate.is_file() else None
    return None


@contextmanager
def serve_spec(root: Path | None = None) -> Iterator[SchemaServer]:
    folder = root or spec_dir()
    server_info = SchemaServer(mirror_url="")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server_info.requests.append(self.path)
            file = _file_for(folder, self.path)
            if file is None:
                self.send_error(404)
                return
            body = file.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server_info.mirror_url = f"http://127.0.0.1:{server.server_address[1]}/spec/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server_info
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
