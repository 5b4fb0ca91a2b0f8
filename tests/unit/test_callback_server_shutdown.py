"""Shutting the py4j callback server down never waits on a connection whose reader is blocked.

py4j's ``ClientServerConnection.close()`` closes the buffered stream before the socket; while the
connection's thread is blocked reading that stream, the close waits for the reader's lock forever.
A connection the JVM opened after ``_unblock_connections`` looked used to hang the task there.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from lineage_operators.spark.session.callback_server import _shutdown_keeping_pool


class _Connection:
    """A py4j-like server connection: a thread blocked in readline, close() stream-first."""

    def __init__(self) -> None:
        self.socket, self.peer = socket.socketpair()
        self.stream = self.socket.makefile("rb")
        self.reader = threading.Thread(target=self.stream.readline, daemon=True)
        self.reader.start()
        time.sleep(0.05)  # the reader now holds the stream's lock, blocked in recv

    def close(self) -> None:
        self.stream.close()  # py4j's order: the stream first
        self.socket.close()


class _Server:
    def __init__(self, connections: list[Any]) -> None:
        self.lock = threading.RLock()
        self.server_socket = None
        self.connections = set(connections)
        self.thread = None
        self.is_shutdown = False


def test_shutdown_returns_with_a_reader_blocked_on_a_late_connection() -> None:
    connection = _Connection()
    server = _Server([connection])
    done = threading.Event()

    def shut_down() -> None:
        _shutdown_keeping_pool(server, wait_s=2.0)
        done.set()

    threading.Thread(target=shut_down, daemon=True).start()
    assert done.wait(10), "the callback server shutdown hung on a blocked reader"
    connection.reader.join(2)
    assert not connection.reader.is_alive()
    assert server.is_shutdown
    connection.peer.close()
