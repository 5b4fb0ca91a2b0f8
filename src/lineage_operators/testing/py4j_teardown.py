"""Close py4j's client connections before pytest closes its capture streams.

``import airflow`` attaches a root ``StreamHandler`` to the ``sys.stdout`` of that moment, which
in a pytest session is pytest's capture file.  py4j logs "Closing down clientserver connection"
(INFO) every time a connection object is closed or garbage-collected; the connections still
alive at interpreter exit are collected after pytest has closed that file, and each record ends
as ``--- Logging error --- ValueError: I/O operation on closed file``.  Closing the gateway's
connections while the streams are still open leaves none to be collected at exit; py4j reopens a
connection if the JVM is called again.  These deliberate closes log the same INFO line once per
connection: they are held back (py4j's loggers at WARNING for the duration of the close only).

py4j frees JVM objects from a worker thread that wakes once a second: the objects Python released
just before the close (the session's last fixtures) would be freed after it, on a new connection
that lives until exit.  The worker is stopped first and its queue sent from here, so the close is
the last word; objects released later are not freed JVM-side (the session is over).
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from collections.abc import Iterator
from typing import Any

from lineage_operators._logging import quiet_py4j, restore_levels
from lineage_operators.spark.session import run_bounded, shut_down_sockets

__all__ = ["close_py4j_connections"]


@contextlib.contextmanager
def _py4j_warnings_only() -> Iterator[None]:
    saved = quiet_py4j()
    try:
        yield
    finally:
        restore_levels(saved)


def _spark_gateway() -> Any:
    pyspark = sys.modules.get("pyspark")  # never imported here: only a gateway that already exists
    context = getattr(pyspark, "SparkContext", None) if pyspark is not None else None
    return getattr(context, "_gateway", None)


def _finalizer_worker(client: Any) -> Any:
    from py4j.clientserver import FinalizerWorker  # py4j is loaded: a gateway exists

    queue = getattr(client, "finalizer_deque", None)
    for thread in threading.enumerate():
        if isinstance(thread, FinalizerWorker) and thread.deque is queue:
            return thread
    return None


def _free_released_objects(client: Any, worker_timeout_s: float) -> None:
    """Stop py4j's finalizer worker, then free what it had queued on this thread's connection."""
    from py4j.clientserver import SHUTDOWN_FINALIZER_WORKER

    queue = getattr(client, "finalizer_deque", None)
    if queue is None:
        return  # py4j without memory management: objects are freed where they are released
    worker = _finalizer_worker(client)
    if worker is not None:
        queue.append(SHUTDOWN_FINALIZER_WORKER)  # the worker pops from this end: next, not last
        worker.join(worker_timeout_s)
    while True:
        try:
            task = queue.pop()
        except IndexError:
            return
        if task == SHUTDOWN_FINALIZER_WORKER:
            if worker is not None and worker.is_alive():
                queue.append(task)  # still busy past the timeout: it stops when it gets there
                return
            continue
        owner, target_id = task
        with contextlib.suppress(Exception):  # the JVM may be gone: nothing left to free
            owner.garbage_collect_object(target_id, False)


def _close(gateway: Any, worker_timeout_s: float) -> None:
    with contextlib.suppress(Exception):  # another py4j's internals: the close matters more
        _free_released_objects(gateway._gateway_client, worker_timeout_s)
    # A connection the JVM opened has a thread blocked reading its buffered stream, and py4j closes
    # the stream before the socket: that close would wait for the reader's lock forever.  Shutting
    # the sockets down first ends the pending reads.

    shut_down_sockets(list(getattr(gateway._gateway_client, "deque", ())))
    gateway.close(keep_callback_server=True)


def close_py4j_connections(timeout_s: float = 5.0) -> bool:
    """Close the Spark gateway's client connections now; True if they were closed in time.

    Bounded: a close that does not finish within ``timeout_s`` is left to a daemon thread, so the
    end of a test session never waits on it.
    """
    gateway = _spark_gateway()
    if gateway is None:
        return False

    with _py4j_warnings_only():
        gc.collect()  # Java object proxies that are already garbage release their JVM references first
        closed = run_bounded(lambda: _close(gateway, timeout_s / 2), timeout_s, "lineage-py4j-close")
        gc.collect()  # the closed connections, while py4j's INFO lines are held back
    return closed
