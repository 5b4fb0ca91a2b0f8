"""The JVM-side execution queue's reader (:mod:`lineage_operators.spark.listen.execution_queue`) without a
JVM: a fake ``Pending`` and ``ExecutionReader.next`` that keep the Java side's contract (numbers
counted as executions are queued, "" when none ended in time, "." once closed)."""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

import pytest

from lineage_operators._logging import py4j_quiet_here
from lineage_operators.spark.jvm.text import PART
from lineage_operators.spark.listen.execution_queue import ExecutionQueue, HeldExecution, QueuedReply

_END = ()


class FakePending:
    """``ExecutionReader.Pending``: what Spark's bus queued, its count, the execution being read."""

    def __init__(self) -> None:
        self.queue: queue.Queue[Any] = queue.Queue()
        self.count = 0
        self.current_qe: Any = None
        self.closed_with: list[bool] = []

    def add(self, name: str, qe: Any = None, succeeded: bool = True) -> None:
        self.count += 1
        self.queue.put((self.count, name, qe, succeeded))

    def hurry(self) -> int:
        return self.count

    def current(self) -> Any:
        return self.current_qe

    def close(self, drop: bool) -> None:
        self.closed_with.append(drop)
        if drop:
            while not self.queue.empty():
                self.queue.get_nowait()
        self.queue.put(_END)


class FakeBatch:
    """``ExecutionReader.next``: the JVM-side read's reply is ``reply:<name>``."""

    def __init__(self, fail: bool = False) -> None:
        self.requests: list[tuple[int, str | None]] = []
        self.fail = fail

    def next(self, pending: FakePending, wait_ms: int, limit: int, path: str | None) -> str:
        if self.fail:
            raise ConnectionError("the gateway is gone")
        self.requests.append((limit, path))
        pending.current_qe = None
        try:
            item = pending.queue.get(timeout=wait_ms / 1000)
        except queue.Empty:
            return ""
        if item == _END:
            pending.queue.put(item)
            return "."
        number, name, qe, succeeded = item
        pending.current_qe = qe
        return PART.join((str(number), name, "1" if succeeded else "0", "1500", f"reply:{name}"))


class FakeTools:
    gateway = object()  # no py4j ClientServer: no connection of the reader's own to close

    @staticmethod
    def read(text: Any) -> Any:
        return text


def _request(with_file: bool) -> tuple[int, str | None]:
    return 7, "/tmp/plan" if with_file else None


def _queue(read: Any, pending: FakePending, batch: FakeBatch | None = None, **kwargs: Any) -> ExecutionQueue:
    return ExecutionQueue(FakeTools(), batch or FakeBatch(), pending, read=read, request=_request, **kwargs)


def test_executions_are_read_in_queue_order_with_the_reply_the_jvm_read():
    pending, batch = FakePending(), FakeBatch()
    seen: list[tuple[str, bool, QueuedReply]] = []
    exited = threading.Event()
    reader = _queue(
        lambda name, qe, ok, reply: seen.append((name, ok, reply)), pending, batch, on_exit=exited.set
    )
    pending.add("a")
    pending.add("b", succeeded=False)
    assert reader.wait_idle(5)
    assert seen == [("a", True, QueuedReply("reply:a", 1.5)), ("b", False, QueuedReply("reply:b", 1.5))]
    # what column lineage may render, every call; the plan file from the first execution on
    assert batch.requests[0] == (7, None)
    assert set(batch.requests[1:]) == {(7, "/tmp/plan")}
    reader.close()
    assert exited.wait(5)  # the reader ends once the queue is closed, and runs on_exit
    assert pending.closed_with == [False]
    assert not reader.alive


def test_wait_idle_waits_for_every_execution_the_jvm_queued():
    pending = FakePending()
    go_on = threading.Event()

    def slow(name: str, *_: Any) -> None:
        go_on.wait(5)

    reader = _queue(slow, pending)
    assert reader.wait_idle(0.05)  # nothing queued yet
    pending.add("slow")
    assert not reader.wait_idle(0.2)
    go_on.set()
    assert reader.wait_idle(5)
    reader.close()


def test_abandon_drops_what_is_queued_and_the_reader_ends_after_a_hung_read():
    pending = FakePending()
    release = threading.Event()
    read: list[str] = []
    exited = threading.Event()

    def hanging(name: str, *_: Any) -> None:
        if name == "hang":
            release.wait(30)
        read.append(name)

    reader = _queue(hanging, pending, on_exit=exited.set)
    pending.add("hang")
    pending.add("later")
    assert not reader.wait_idle(0.3)
    reader.abandon()
    assert not reader.wait_idle(1)  # abandoned: never idle
    release.set()
    assert exited.wait(5)
    assert read == ["hang"]  # "later" was dropped with the queue
    assert pending.closed_with == [True]
    reader.close()  # closing after abandoning is harmless
    assert pending.closed_with == [True]


def test_a_raising_read_is_one_warning_and_its_number_still_counts(caplog: pytest.LogCaptureFixture):
    pending = FakePending()
    read: list[str] = []

    def reading(name: str, *_: Any) -> None:
        if name.startswith("bad"):
            raise RuntimeError("reader bug")
        read.append(name)

    reader = _queue(reading, pending)
    for name in ("bad1", "bad2", "good"):
        pending.add(name)
    assert reader.wait_idle(5)
    reader.close()
    assert read == ["good"]
    warnings = [
        r.getMessage() for r in caplog.records if "reading a Spark execution failed" in r.getMessage()
    ]
    assert len(warnings) == 1


def test_a_failing_jvm_call_ends_the_reader_with_one_warning_and_wait_idle_gives_up(
    caplog: pytest.LogCaptureFixture,
):
    pending = FakePending()
    exited = threading.Event()
    reader = _queue(lambda *_: None, pending, FakeBatch(fail=True), on_exit=exited.set)
    assert exited.wait(5)
    pending.add("never read")
    started = time.monotonic()
    assert not reader.wait_idle(10)
    assert time.monotonic() - started < 1  # no waiting for a reader that is gone
    assert sum("the execution queue cannot be read" in r.getMessage() for r in caplog.records) == 1


def test_a_queue_whose_count_cannot_be_read_is_not_idle():
    class Gone(FakePending):
        def hurry(self) -> int:
            raise ConnectionError("the gateway is gone")

    reader = _queue(lambda *_: None, Gone())
    assert not reader.wait_idle(1)
    reader.close()


class Handle:
    """A py4j ``JavaObject`` stand-in."""

    def __init__(self) -> None:
        self.detached = 0

    def id(self) -> int:
        return 42

    def _get_object_id(self) -> str:
        return "o42"

    def _detach(self) -> None:
        self.detached += 1


class CountingPending(FakePending):
    def __init__(self, handle: Any) -> None:
        super().__init__()
        self.current_qe = handle
        self.fetches = 0

    def current(self) -> Any:
        self.fetches += 1
        return self.current_qe


def test_the_held_execution_is_fetched_once_and_only_when_used():
    handle = Handle()
    pending = CountingPending(handle)
    held = HeldExecution(pending)
    assert pending.fetches == 0
    assert held.id() == 42
    assert held._get_object_id() == "o42"  # what py4j sends when it is an argument
    assert pending.fetches == 1
    held._detach()
    assert handle.detached == 1
    HeldExecution(CountingPending(handle))._detach()  # never fetched: nothing to release
    assert handle.detached == 1


def test_the_held_execution_says_so_when_the_jvm_no_longer_holds_it():
    held = HeldExecution(CountingPending(None))
    with pytest.raises(RuntimeError, match="no longer held"):
        held.analyzed()
    with pytest.raises(AttributeError):
        held.__len__  # noqa: B018  # dunder look-ups never reach the JVM


def test_py4j_quiet_here_drops_only_this_threads_py4j_records(caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.INFO)
    logger = logging.getLogger("py4j.clientserver")

    def elsewhere() -> None:
        logger.info("from another thread")

    with py4j_quiet_here():
        logger.info("from the quiet thread")
        other = threading.Thread(target=elsewhere)
        other.start()
        other.join()
    logger.info("after")
    messages = [r.getMessage() for r in caplog.records if r.name == "py4j.clientserver"]
    assert messages == ["from another thread", "after"]
