"""The end of a classic capture waits for the listener queues its listener is on (no Spark)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from lineage_operators.spark.capture import classic
from lineage_operators.spark.capture.classic import SparkLineageCapture
from lineage_operators.spark.listen import listener as lst

HANDLES = object()


class _Tools:
    def __init__(self, fast: Any) -> None:
        self._fast = fast

    def fast(self) -> Any:
        return self._fast

    def fast_if_ready(self) -> Any:
        return HANDLES  # compiled by an earlier capture of the process

    def java_class(self, name: str) -> Any:
        return SimpleNamespace(requireNonNull=lambda obj: obj)


class _Session:
    def __init__(self) -> None:
        self.registered: list[Any] = []
        self.queued: list[Any] = []
        context = SimpleNamespace(
            listenerBus=lambda: SimpleNamespace(addToQueue=lambda relay, queue: self.queued.append(queue))
        )
        self._context = context

    def sparkContext(self) -> Any:
        return self._context

    def listenerManager(self) -> Any:
        return SimpleNamespace(register=self.registered.append)


def _registration(fast: Any) -> tuple[lst.QueryRegistration, _Session]:
    session = _Session()
    return lst.QueryRegistration(_Tools(fast), session, lst.QueryListener(lambda event: None)), session


def _drained_with(monkeypatch: pytest.MonkeyPatch, registration: Any) -> Any:
    seen: list[Any] = []
    monkeypatch.setattr(classic.lst, "drain", lambda jsc, timeout, handles=None: seen.append(handles) or True)
    capture = SparkLineageCapture.__new__(SparkLineageCapture)
    capture._tools = _Tools(None)  # type: ignore[assignment]
    capture._drain_timeout = 1.0
    capture._jlistener = registration
    capture._handover = None
    capture._spark = SimpleNamespace(sparkContext=SimpleNamespace(_jsc=None))
    assert capture._drain()
    return seen[0]


def test_a_listener_registered_with_the_listener_manager_waits_for_the_whole_bus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registration, session = _registration(fast=None)  # a Spark without the compiled relay
    assert session.registered  # Spark's query-listener bus: the shared queue
    assert registration.on_capture_queue is False
    assert _drained_with(monkeypatch, registration) is None  # None: every queue of the bus


def test_a_relayed_listener_waits_for_the_captures_queues_only(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = SimpleNamespace(queryRelay=lambda jss, proxy: "relay")
    registration, session = _registration(fast=fast)
    assert session.queued == [lst.LISTENER_QUEUE]
    assert registration.on_capture_queue is True
    assert _drained_with(monkeypatch, registration) is HANDLES
