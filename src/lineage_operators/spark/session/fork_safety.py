"""Keep a forked child from breaking the parent's py4j connections to the JVM.

Airflow's OpenLineage provider forks the task process to emit each task event.  The child
inherits the py4j sockets to Spark's JVM.  As soon as it starts, CPython deletes the states of
the threads that did not survive the fork; py4j connections held by those threads are garbage
collected, and ``ClientServerConnection.close`` calls ``socket.shutdown()``, which ends the
connection for the parent too.  The parent's next JVM call (the next task's Spark session) then
fails with ``ConnectionResetError`` / ``BrokenPipeError`` / ``Py4JNetworkError``, logged with full
tracebacks before py4j reconnects.  This happens before any ``os.register_at_fork`` child hook
runs, so the fix has to be in place in the parent already.

``close`` is therefore wrapped once: in the process that opened the connection it is py4j's own
``close``; in any other process (a forked child) the socket and its stream are only forgotten
(``detach()``), leaving the shared connection to the parent.

At interpreter exit py4j logs "Closing down clientserver connection" at INFO while logging's
streams are already closed (pytest prints ``--- Logging error --- ValueError: I/O operation on
closed file``), and a command sent once pyspark's own exit hook has killed the JVM is logged at INFO
with its traceback ("Exception while sending command": seen once in CI, after a test run had passed);
from the exit hooks on, py4j's loggers only pass warnings.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from lineage_operators._logging import quiet_py4j

__all__ = ["protect_py4j_connections_from_forks"]

_lock = threading.Lock()
_exit_hook_registered = False
_PID_ATTRIBUTE = "_lineage_operators_pid"
_WRAPPED = "_lineage_operators_fork_safe"


def _forget(connection: Any) -> None:
    sock, stream = getattr(connection, "socket", None), getattr(connection, "stream", None)
    connection.socket = None
    connection.stream = None
    connection.is_connected = False
    for handle in (stream, sock):
        detach = getattr(handle, "detach", None)
        if callable(detach):
            with contextlib.suppress(Exception):
                detach()


def _wrap(cls: type, installed_pid: int) -> None:
    if getattr(cls, _WRAPPED, False):
        return
    original_init: Callable[..., None] = cls.__init__  # type: ignore[misc]
    original_close: Callable[..., None] = cls.close  # type: ignore[attr-defined]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        setattr(self, _PID_ATTRIBUTE, os.getpid())

    def close(self: Any, *args: Any, **kwargs: Any) -> None:
        if getattr(self, _PID_ATTRIBUTE, installed_pid) != os.getpid():
            _forget(self)  # a forked copy: never shut down the parent's connection
            return
        original_close(self, *args, **kwargs)

    cls.__init__ = __init__  # type: ignore[misc]
    cls.close = close  # type: ignore[attr-defined]
    setattr(cls, _WRAPPED, True)


def protect_py4j_connections_from_forks() -> None:
    """Install the wrapper on py4j's connection classes (idempotent, cheap; py4j already imported)."""
    global _exit_hook_registered
    with _lock:
        if not _exit_hook_registered:
            atexit.register(_quiet_py4j_teardown)
            _exit_hook_registered = True
        for module_name, class_name in (
            ("py4j.clientserver", "ClientServerConnection"),
            ("py4j.java_gateway", "GatewayConnection"),
        ):
            module = sys.modules.get(module_name)
            cls = getattr(module, class_name, None) if module is not None else None
            if isinstance(cls, type):
                _wrap(cls, os.getpid())


def _quiet_py4j_teardown() -> None:
    """At exit, py4j's teardown records (INFO) would hit closed streams or show a dead JVM's traceback."""
    quiet_py4j()
