"""The py4j ``QueryExecutionListener`` and the plumbing around it: the capture's way in where
``ExecutionReader.java`` cannot be compiled (elsewhere executions are queued JVM-side:
:mod:`~lineage_operators.spark.listen.execution_queue`), and the bus helpers both ways share.

Things learned the hard way (pyspark 4.x, py4j ``ClientServer``):

* ``listenerManager().unregister(python_obj)`` silently does nothing: py4j makes a new Java proxy
  for every call, and Spark finds the listener to remove by identity. We therefore keep the Java
  proxy we registered (:func:`java_proxy`) and unregister that very object.
* Removing a listener calls ``equals`` on it (from ``CopyOnWriteArrayList.remove``), which py4j
  forwards to Python: the listener must implement ``equals``/``hashCode``.
* py4j's proxy pool keeps a Python object passed to the JVM until the JVM collects its proxy:
  :meth:`QueryRegistration.unregister` cuts the listener off its capture (:meth:`QueryListener.detach`).

The callback server those calls arrive on: :mod:`~lineage_operators.spark.session.callback_server`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.jvm.text import SEP

log = get_logger(__name__)

Sink = Callable[[str, Any, bool], None]


def _ignore(func_name: str, qe: Any, succeeded: bool) -> None:
    return None


class QueryListener:
    """Forwards Spark's query execution callbacks (listener-bus thread) to ``sink``.

    A callback never raises into Spark (which would log an ERROR with a Java and a Python stack
    trace): errors become one warning per listener. ``in_flight`` counts callbacks still running,
    so teardown never closes the callback server under one.
    """

    def __init__(self, sink: Sink) -> None:
        self._sink = sink
        self.enabled = True
        self.in_flight = 0
        self._count_lock = threading.Lock()
        self._warned = False

    def detach(self) -> None:
        """No more deliveries, and no reference to the sink (the capture) from here on."""
        self.enabled = False
        self._sink = _ignore

    def onSuccess(self, funcName: str, qe: Any, durationNs: int) -> None:
        self._deliver(funcName, qe, True)

    def onFailure(self, funcName: str, qe: Any, exception: Any) -> None:
        self._deliver(funcName, qe, False)

    def _deliver(self, func_name: Any, qe: Any, succeeded: bool) -> None:
        if not self.enabled:
            return
        with self._count_lock:
            self.in_flight += 1
        try:
            self._sink(str(func_name), qe, succeeded)
        except BaseException as exc:  # nothing may reach Spark's listener bus
            if not self._warned:
                self._warned = True

                log.warning(
                    "lineage capture: a Spark query callback failed, lineage may be incomplete: %s",
                    describe(exc),
                )
        finally:
            with self._count_lock:
                self.in_flight -= 1

    # called by the JVM when listeners are removed or hashed
    def equals(self, other: Any) -> bool:
        return other is self

    def hashCode(self) -> int:
        return id(self) & 0x7FFFFFFF

    def toString(self) -> str:
        return f"lineage_operators.QueryListener@{id(self):x}"

    class Java:
        implements: ClassVar[list[str]] = ["org.apache.spark.sql.util.QueryExecutionListener"]


class HandOver:
    """Hands executions from Spark's listener-bus thread to a reader thread of one capture.

    The callback (:meth:`put`) only appends the execution's py4j handle to a queue and returns: it
    makes no JVM call, so nothing the reader does (a slow plan, a hang) can hold up Spark's listener
    bus, and with it ``SparkContext.stop()``. The handle keeps the ``QueryExecution`` alive in the
    JVM until it is read. The reader reads in callback order; :meth:`wait_idle` waits for it within
    the capture's budget, :meth:`abandon` gives up on what is left (a read still running finishes
    unseen: its result is dropped). ``on_start`` runs on the reader thread before its first read
    (the session's conf is thread-bound in the JVM); ``on_exit`` runs on it once it ends, so what a
    read uses (the plan JSON file) is released after the last read, whenever that is.
    """

    def __init__(
        self,
        read: Sink,
        on_exit: Callable[[], None] | None = None,
        name: str = "lineage-reader",
        on_start: Callable[[], None] | None = None,
    ):
        self._read = read
        self._on_exit = on_exit
        self._on_start = on_start
        self._items: deque[tuple[str, Any, bool]] = deque()
        self._cond = threading.Condition()
        self._busy = False
        self._closed = False
        self.abandoned = False
        self._warned = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def put(self, func_name: str, qe: Any, succeeded: bool) -> None:
        """The listener's sink (listener-bus thread): queue the execution, return at once."""
        with self._cond:
            if self._closed:
                return
            self._items.append((func_name, qe, succeeded))
            self._cond.notify_all()

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until every execution handed over so far was read; False when ``timeout_s`` ran out."""
        deadline = time.monotonic() + max(timeout_s, 0.0)
        with self._cond:
            while self._items or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.abandoned:
                    return False
                self._cond.wait(remaining)
        return True

    def close(self) -> None:
        """No more executions; the reader ends after reading what is queued."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def abandon(self) -> None:
        """Drop what is queued and the result of a read still running; the reader then ends."""
        with self._cond:
            self._closed = True
            self.abandoned = True
            self._items.clear()
            self._cond.notify_all()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        run_reader(self._on_start, self._read_all, self._on_exit)

    def _read_all(self) -> None:
        while True:
            with self._cond:
                while not self._items and not self._closed:
                    self._cond.wait()
                if not self._items:
                    return
                item = self._items.popleft()
                self._busy = True
            try:
                self._read(*item)
            except BaseException as exc:  # the reader thread must go on
                if not self._warned and not self.abandoned:
                    self._warned = True

                    log.warning("lineage capture: reading a Spark execution failed: %s", describe(exc))
            finally:
                del item  # the execution's py4j handle: the JVM may collect it now
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()


def run_reader(
    on_start: Callable[[], None] | None, read_all: Callable[[], None], on_exit: Callable[[], None] | None
) -> None:
    """A capture's reader thread (:class:`HandOver`,
    :class:`~lineage_operators.spark.listen.execution_queue.ExecutionQueue`):
    ``on_start`` (a failure is logged, reading goes on), ``read_all``, then ``on_exit`` whatever
    happened (it never raises)."""
    try:
        if on_start is not None:
            try:
                on_start()
            except Exception as exc:
                log.info("lineage capture: the reader thread could not be prepared: %s", describe(exc))
        read_all()
    finally:
        if on_exit is not None:
            with contextlib.suppress(Exception):
                on_exit()


#: Spark's ``LiveListenerBus.EXECUTOR_MANAGEMENT_QUEUE``: the capture's compiled listeners join it
#: (``Handles.java`` says why), rather than a queue of their own or the shared one.
LISTENER_QUEUE = "executorManagement"


def add_to_bus(sc: Any, listener: Any) -> bool:
    """Add a compiled listener to :data:`LISTENER_QUEUE` (``addSparkListener``'s shared queue where
    this Spark lacks ``addToQueue``: then False); ``sc.removeSparkListener`` removes it from either."""
    try:
        sc.listenerBus().addToQueue(listener, LISTENER_QUEUE)
    except Exception:
        sc.addSparkListener(listener)
        return False
    return True


class QueryRegistration:
    """The Java side of a :class:`QueryListener`, registered for one session and removable.

    With the compiled ``Handles``, a ``QueryRelay`` on :data:`LISTENER_QUEUE` calls the listener
    from the execution-end events themselves. ``listenerManager().register`` would put Spark's
    query-listener bus on the shared queue, a thread of its own woken for every event of the task
    (~0.04 s of CPU per task of the overhead benchmark). Without ``Handles``, that is the fallback.
    """

    def __init__(self, tools: Any, jss: Any, listener: QueryListener) -> None:
        self._jss = jss
        self._listener = listener
        self._proxy = java_proxy(tools, listener)
        fast = tools.fast()
        self._relay = fast.queryRelay(jss, self._proxy) if fast is not None else None
        #: Whether the listener's events come through :data:`LISTENER_QUEUE` (else the shared queue,
        #: which a drain of :data:`CAPTURE_QUEUES` does not wait for).
        self.on_capture_queue = False
        if self._relay is not None:
            self.on_capture_queue = add_to_bus(jss.sparkContext(), self._relay)
        else:
            jss.listenerManager().register(self._proxy)

    def unregister(self) -> None:
        """Removes the listener, then lets go of the capture behind it.

        py4j's proxy pool keeps the Python listener until the JVM collects the Java proxy, which
        Python's own reference to that proxy delays: in one process (``dag.test()``) each task's
        listener held its capture (plan reader, session catalog, queue) and its stopped application
        for several tasks, some for good. The listener now drops its sink, and the proxy is released.
        (Removing the listener from the pool instead makes py4j warn when the JVM collects the proxy.)
        """
        try:
            if self._relay is not None:
                self._jss.sparkContext().removeSparkListener(self._relay)
            else:
                self._jss.listenerManager().unregister(self._proxy)
        finally:
            self._listener.detach()
            self._proxy = self._relay = None


def java_proxy(tools: Any, obj: Any) -> Any:
    """The Java proxy object of a Python object, as one stable ``JavaObject`` reference (one
    round trip: the class is resolved once per JVM, not one round trip per package name)."""
    return tools.java_class("java.util.Objects").requireNonNull(obj)


#: The listener bus queues whose events capture reads: its own listeners' (:data:`LISTENER_QUEUE`)
#: and the status store's (``appStatus``: an execution's jobs and task metrics). Not the shared
#: queue: another listener there (openlineage-spark's) may block in a data system's retries.
CAPTURE_QUEUES = (LISTENER_QUEUE, "appStatus")


def drain(jsc: Any, timeout_s: float, handles: Any = None) -> bool:
    """Wait until the listener bus has delivered every posted event capture reads; False on timeout.

    With the compiled ``handles`` (``JvmTools.fast_if_ready()``), only :data:`CAPTURE_QUEUES` are waited for
    (one round trip); without them the whole bus is. A caller whose listener is on the shared queue
    passes none.
    """
    millis = int(max(timeout_s, 0.0) * 1000)
    bus = jsc.sc().listenerBus()
    if handles is not None:
        try:
            return bool(handles.drainQueues(bus, SEP.join(CAPTURE_QUEUES), millis))
        except Exception as exc:  # a Spark without the queues' field: wait for the whole bus
            log.debug("lineage capture: waiting for the whole listener bus: %s", describe(exc))
    try:
        bus.waitUntilEmpty(millis)
        return True
    except Exception as exc:
        if "Timeout" in type(exc).__name__ or "TimeoutException" in str(exc)[:500]:
            return False
        raise
