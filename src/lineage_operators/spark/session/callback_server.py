"""pyspark's py4j callback server: started on first use, shut down by the last user if we started it.

The query listener is a Python object the JVM calls back, so every capture needs the server. Things
learned the hard way (pyspark 4.x, py4j ``ClientServer``):

* ``gateway.shutdown_callback_server()`` leaves ``gateway._callback_server`` set, so pyspark's
  ``ensure_callback_server_started`` would believe a dead server is running: after shutting down
  the server we started, the attribute is reset so the next user starts a fresh one.
* py4j's own ``shutdown`` clears the proxy pool it shares with the gateway client
  (:func:`_shutdown_keeping_pool`), and waits on connections the JVM keeps open
  (:func:`_unblock_connections`).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from lineage_operators._logging import get_logger, quiet_py4j, restore_levels

log = get_logger(__name__)


_SERVER_LOCK = threading.Lock()
_SERVER_USERS: dict[int, int] = {}  # id(gateway) -> active captures
_SERVER_OWNED: set[int] = set()  # gateways whose callback server this module started


def _server_running(gateway: Any) -> bool:
    return gateway.__dict__.get("_callback_server") is not None


# py4j logs every callback at INFO ("Received command c on object id p0"), one line per Spark
# action in the task's log, and connection teardown with tracebacks: quiet while captures run.
_saved_log_levels: dict[str, int] = {}


def _quiet_py4j() -> None:
    saved = quiet_py4j()
    for name, level in saved.items():
        _saved_log_levels.setdefault(name, level)  # the level before the first capture


def _restore_py4j_logging() -> None:
    restore_levels(_saved_log_levels)
    _saved_log_levels.clear()


def acquire_callback_server(gateway: Any) -> None:
    """Make sure the callback server runs; remember whether this module started it."""
    from pyspark.java_gateway import ensure_callback_server_started

    key = id(gateway)
    with _SERVER_LOCK:
        _quiet_py4j()
        if not _server_running(gateway):
            ensure_callback_server_started(gateway)
            _SERVER_OWNED.add(key)
        _SERVER_USERS[key] = _SERVER_USERS.get(key, 0) + 1


def release_callback_server(gateway: Any) -> None:
    """Shut the callback server down when the last capture ends and this module started it."""
    key = id(gateway)
    with _SERVER_LOCK:
        users = _SERVER_USERS.get(key, 0) - 1
        if users > 0:
            _SERVER_USERS[key] = users
            return
        _SERVER_USERS.pop(key, None)
        if key not in _SERVER_OWNED:
            if not _SERVER_USERS:
                _restore_py4j_logging()
            return
        _SERVER_OWNED.discard(key)
        server = gateway.__dict__.get("_callback_server")
        try:
            _unblock_connections(server)
            if not _shutdown_keeping_pool(server):
                gateway.shutdown_callback_server()
        finally:
            gateway.__dict__["_callback_server"] = None
            if not _SERVER_USERS:
                _restore_py4j_logging()


def _shutdown_keeping_pool(server: Any, wait_s: float = 5.0) -> bool:
    """``CallbackServer.shutdown`` without its ``pool.clear()``.

    The pool is shared with the gateway client: clearing it drops every Python object the JVM
    still references (and makes py4j warn when the JVM later garbage-collects our listener's
    proxy). Returns False when this py4j version lacks the expected attributes.
    """
    from py4j.java_gateway import quiet_close, quiet_shutdown

    needed = ("lock", "server_socket", "connections", "thread")
    if server is None or not all(hasattr(server, name) for name in needed):
        return False
    with server.lock:
        if getattr(server, "is_shutdown", False):
            return True
        server.is_shutdown = True
        quiet_shutdown(server.server_socket)
        quiet_close(server.server_socket)
        server.server_socket = None
        connections = list(server.connections)
    # The JVM may have opened a connection since _unblock_connections looked: shut every socket
    # down again right before py4j's close(), which takes the stream's lock before the socket.
    shut_down_sockets(connections)
    if not run_bounded(lambda: _close_all(connections), wait_s, "lineage-py4j-close"):
        log.debug("lineage capture: a py4j callback connection did not close in %.1fs", wait_s)
    thread = server.thread
    if thread is not None:
        thread.join(wait_s)
    server.thread = None
    return True


def _unblock_connections(server: Any, wait_s: float = 2.0) -> None:
    """Shut down the sockets of the server's live connections before the server closes them.

    py4j closes a connection's buffered stream while its thread is blocked reading it; the close
    waits for the reader's lock forever (the JVM keeps pooled callback connections open). Shutting
    the socket down first makes the pending read return, so that thread ends and releases it.
    """
    if server is None:
        return
    lock = getattr(server, "lock", None)
    connections = list(getattr(server, "connections", ()) or ())
    if lock is not None:
        with lock:
            connections = list(getattr(server, "connections", ()) or ())
    shut_down_sockets(connections)
    deadline = time.monotonic() + wait_s
    pause = 0.0005  # a connection's thread ends within a millisecond or so: poll fast, then back off
    while time.monotonic() < deadline and any(getattr(c, "stream", None) is not None for c in connections):
        time.sleep(pause)
        pause = min(pause * 2, 0.01)


def shut_down_sockets(connections: Iterable[Any]) -> None:
    """End the reads pending on these py4j connections (see :func:`_unblock_connections`)."""
    for connection in connections:
        sock = getattr(connection, "socket", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def run_bounded(action: Callable[[], None], timeout_s: float, name: str) -> bool:
    """Run ``action`` on a daemon thread and wait at most ``timeout_s``; True if it finished.

    A py4j close can block on a reader's lock: a task (or a test session) must never wait on it.
    """

    def guarded() -> None:
        with contextlib.suppress(Exception):
            action()

    worker = threading.Thread(target=guarded, name=name, daemon=True)
    worker.start()
    worker.join(timeout_s)
    return not worker.is_alive()


def _close_all(connections: Iterable[Any]) -> None:
    for connection in connections:
        with contextlib.suppress(Exception):
            connection.close()
