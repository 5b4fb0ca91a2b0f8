"""A lineage backend that is down, on loopback: a closed port, or a server that reads each request
and never answers (it records which event each connection carried)."""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field


@dataclass
class DeadBackend:
    url: str
    #: (eventType, job name) -> connections that carried it (hanging only)
    attempts: Counter[tuple[str, str]] = field(default_factory=Counter)


@contextmanager
def dead_backend(state: str) -> Iterator[DeadBackend]:
    """``closed``: nothing listens; ``hanging``: accepts and reads, never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    backend = DeadBackend(f"http://127.0.0.1:{server.getsockname()[1]}")
    if state == "closed":
        server.close()
        yield backend
        return
    server.listen(64)
    held: list[socket.socket] = []
    lock = threading.Lock()

    def record(connection: socket.socket) -> None:
        with suppress(OSError, ValueError):
            key = _event_key(_read_request(connection))
            with lock:
                backend.attempts[key] += 1

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            held.append(connection)  # open, never answered, until the test ends
            threading.Thread(target=record, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield backend
    finally:
        server.close()
        for connection in held:
            connection.close()


def _read_request(connection: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            raise ValueError("closed before the headers ended")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            break
        body += chunk
    return body


def _event_key(body: bytes) -> tuple[str, str]:
    event = json.loads(body)
    return str(event.get("eventType")), str(event.get("job", {}).get("name"))
