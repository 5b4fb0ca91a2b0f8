"""Ended executions queued JVM-side and read by the capture's reader thread, one py4j call each.

The py4j way (:class:`~lineage_operators.spark.listen.listener.QueryListener`) costs every execution a
callback into Python (a thread of the callback server woken, the GIL taken from the task's thread, a
``JavaObject`` made), a hand-over to the reader, and a call to release the handle; and every capture starts
and stops py4j's callback server. Here ``ExecutionReader.Pending`` (``jvm/java/ExecutionReader.java``), a
listener on Spark's bus, queues the ended executions of this session and of its clones (a stream runs its
micro-batches, and hands ``foreachBatch`` its DataFrames, on a clone of the session that started it; an
unnamed micro-batch is queued too), and the reader thread asks ``ExecutionReader.next`` for the next one
already read: one round trip per execution, no Python callback, no handle unless a read needs the
``QueryExecution`` itself (:class:`HeldExecution`). On the lines that settle reads
(:attr:`~lineage_operators.spark.jvm.spark_line.SparkLine.settles_reads`) an execution is read
:data:`SETTLE_MS` after it ended, so the reader does not take the GIL just when the task's thread
gets its action's result; a drain (:meth:`ExecutionQueue.wait_idle`) reads what is queued at once.
:class:`ExecutionQueue` has :class:`~lineage_operators.spark.listen.listener.HandOver`'s life cycle
(``wait_idle``, ``close``, ``abandon``), so the capture treats both alike; the py4j way stays where the class
cannot be compiled."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger, py4j_quiet_here
from lineage_operators.spark.jvm.handles import release
from lineage_operators.spark.jvm.spark_line import SparkLine
from lineage_operators.spark.jvm.text import PART
from lineage_operators.spark.listen.listener import add_to_bus, run_reader

log = get_logger(__name__)

#: How long one ``next`` call waits in the JVM for an execution to end; closing ends it at once.
WAIT_MS = 2000
#: How long an ended execution waits in the JVM before it is read, unless a drain asks for it:
#: read at once, its reply reached Python together with the reply of the task thread's action,
#: and the task's thread waited for the GIL (up to 5 ms per action; ~0.15 s of a 9 s task of 30
#: writes on 4.3, measured per py4j call). 50 ms later the task's thread is mostly inside its next
#: Spark call (see ``Pending`` in ``jvm/java/ExecutionReader.java``).
SETTLE_MS = 50


def settle_ms(line: SparkLine) -> int:
    """How long an ended execution waits before it is read on ``line`` (0: at once)."""
    return SETTLE_MS if line.settles_reads else 0


#: The replies of ``next`` that carry no execution.
_NOTHING, _CLOSED = "", "."
_HEAD_PARTS = 4


@dataclass(frozen=True)
class QueuedReply:
    """One execution's reply, read JVM-side when it was taken from the queue."""

    text: str
    #: what the JVM-side read took (the wall time Python sees excludes it)
    jvm_ms: float


#: ``read(func_name, qe, succeeded, reply)``: the capture's reading of one execution.
Read = Callable[[str, Any, bool, QueuedReply], None]


class HeldExecution:
    """The ``QueryExecution`` being read, fetched from the JVM only when a read asks for it.

    Stands in for the py4j handle the callback used to bring: attribute access and passing it to a
    JVM call fetch the handle (``Pending.current``) once; :func:`~lineage_operators.spark.jvm.handles.release`
    drops it.
    """

    def __init__(self, pending: Any) -> None:
        self._pending = pending
        self._qe: Any = None

    def _handle(self) -> Any:
        if self._qe is None:
            self._qe = self._pending.current()
            if self._qe is None:
                raise RuntimeError("the execution being read is no longer held by the JVM")
        return self._qe

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._handle(), name)

    def _get_object_id(self) -> str:  # py4j passes it to the JVM as the execution itself
        return str(self._handle()._get_object_id())

    def _detach(self) -> None:
        qe, self._qe = self._qe, None
        release(qe)


class ExecutionQueue:
    """The JVM queue of one capture's session and the thread reading it; see the module docstring.

    ``request(with_file)`` says what the read may render for column lineage (``PlanReader.batch_request``);
    ``on_start``/``on_exit`` run on the reader thread before its first read and after its last.
    """

    #: Whether the queue's listener is on ``listener.LISTENER_QUEUE`` (else Spark's shared queue).
    on_capture_queue = True

    def __init__(
        self,
        tools: Any,
        batch: Any,
        pending: Any,
        *,
        read: Read,
        request: Callable[[bool], tuple[int, str | None]],
        on_start: Callable[[], None] | None = None,
        on_exit: Callable[[], None] | None = None,
        name: str = "lineage-reader",
        sc: Any = None,
    ) -> None:
        self._tools = tools
        self._batch = batch
        self._pending = pending
        self._sc = sc  # the SparkContext whose bus the queue listens on
        self._read = read
        self._request = request
        self._on_start = on_start
        self._on_exit = on_exit
        self._cond = threading.Condition()
        self._done = 0  # the number of the last execution read
        self._closed = False
        self._failed = False
        self._warned = False
        self.abandoned = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @classmethod
    def start(cls, tools: Any, batch: Any, jss: Any, **kwargs: Any) -> ExecutionQueue:
        """Queue ``jss``'s ended executions from now on (a listener on Spark's bus) and read them."""
        pending = batch.pending(jss, settle_ms(tools.line))
        sc = jss.sparkContext()
        on_capture_queue = add_to_bus(sc, pending)
        queue = cls(tools, batch, pending, sc=sc, **kwargs)
        queue.on_capture_queue = on_capture_queue
        return queue

    def unregister(self) -> None:
        """Take the queue off Spark's bus (what is queued stays to be read or dropped)."""
        sc, self._sc = self._sc, None
        if sc is not None:
            sc.removeSparkListener(self._pending)

    # -- HandOver's life cycle -------------------------------------------------------------------

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until every execution queued so far was read; False when ``timeout_s`` ran out.
        Call it after the listener bus was drained: the JVM has then queued every ended execution."""
        try:
            target = int(self._pending.hurry())  # what is queued is read now, without settling
        except Exception as exc:
            log.debug("lineage capture: cannot count the queued executions: %s", describe(exc))
            return False
        deadline = time.monotonic() + max(timeout_s, 0.0)
        with self._cond:
            while self._done < target:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.abandoned or self._failed:
                    return False
                self._cond.wait(remaining)
        return True

    def close(self) -> None:
        """No more executions; the reader ends after reading what is queued."""
        self._end(drop=False)

    def abandon(self) -> None:
        """Drop what is queued and the result of a read still running; the reader then ends."""
        with self._cond:
            self.abandoned = True
            self._cond.notify_all()
        self._end(drop=True)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _end(self, drop: bool) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
        try:
            self._pending.close(drop)
        except Exception as exc:  # the JVM is gone: so is the reader's call
            log.debug("lineage capture: cannot close the execution queue: %s", describe(exc))

    # -- the reader thread -----------------------------------------------------------------------

    def _run(self) -> None:
        run_reader(self._on_start, self._read_all, self._finish)

    def _read_all(self) -> None:
        while self._read_next():
            pass

    def _finish(self) -> None:
        try:
            if self._on_exit is not None:
                self._on_exit()
        finally:
            _close_own_connection(self._tools.gateway)

    def _read_next(self) -> bool:
        """Read one execution (or wait for one); False once the queue is closed or the JVM gone."""
        try:
            # no plan file before the first execution: a reader that waits for it, or hangs on it
            # until the process ends, leaves none behind (a long first reply is read in chunks)
            limit, path = self._request(self._done > 0)
            text = self._tools.read(self._batch.next(self._pending, WAIT_MS, limit, path))
        except Exception as exc:
            with self._cond:
                self._failed = True
                self._cond.notify_all()
            if not self._closed:
                log.warning("lineage capture: the execution queue cannot be read: %s", describe(exc))
            return False
        if text == _CLOSED or text is None:
            return False
        if text != _NOTHING:
            self._dispatch(text)
        return True

    def _dispatch(self, text: str) -> None:
        """Hand one reply to the capture's reading; its number counts as read whatever happens."""
        seq = self._done + 1
        try:
            number, func_name, succeeded, micros, reply = text.split(PART, _HEAD_PARTS)
            seq = int(number)
            if not self.abandoned:
                reply_of = QueuedReply(reply, int(micros) / 1000)
                self._read(func_name, HeldExecution(self._pending), succeeded == "1", reply_of)
        except BaseException as exc:  # the reader thread must go on
            if not self._warned and not self.abandoned:
                self._warned = True
                log.warning("lineage capture: reading a Spark execution failed: %s", describe(exc))
        finally:
            with self._cond:
                self._done = max(self._done, seq)
                self._cond.notify_all()


def _close_own_connection(gateway: Any) -> None:
    """Close this thread's py4j connection now, without py4j's INFO line about it: left to the
    thread's end, py4j closes it from the dying thread and logs "Closing down clientserver
    connection" in the task's log, once per task."""
    client: Any = getattr(gateway, "_gateway_client", None)
    local = getattr(client, "thread_connection", None)
    if client is None or local is None:  # not py4j's ClientServer: no connection of the thread's own
        return
    with py4j_quiet_here(), contextlib.suppress(Exception):
        connection = client.get_thread_connection()
        local.__dict__.clear()  # py4j's finalizer takes it out of the client's pool
        if connection is not None:
            connection.close()
        del connection  # its __del__ closes (and logs) again: here, not at the thread's end


__all__ = ["WAIT_MS", "ExecutionQueue", "HeldExecution", "QueuedReply"]
