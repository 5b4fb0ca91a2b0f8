"""A gRPC client interceptor on a Spark Connect session's channel: sees every plan the session sends.

pyspark's public way to intercept a client's gRPC calls is ``ChannelBuilder.add_interceptor``, but
that only applies to channels built afterwards; a task's session usually exists already. So
:func:`attach` puts :class:`PlanInterceptor` in front of the *existing* channel by giving the
client a new service stub over ``grpc.intercept_channel(client._channel, interceptor)``, and
:func:`detach` puts the original stub back. ``SparkConnectClient._channel`` / ``._stub`` are
private: ``tests/spark/test_connect_capture.py::test_pyspark_internals_the_interceptor_uses``
fails loudly if a pyspark release changes them. One interceptor per client, shared by every
capture attached to it (nested captures each get every plan).

The interceptor only observes: requests and responses pass through unchanged. ``ExecutePlan``
requests are handed to the listeners (the capture records them; parsing happens later), and the
response streams of ``ExecutePlan`` / ``ReattachExecute`` are watched for ``result_complete``
(the operation succeeded) and the ``metrics`` message. Calls made while :meth:`paused` (the
capture's own lookups on this thread) are not reported.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from lineage_operators._logging import get_logger

log = get_logger(__name__)

_EXECUTE = "/spark.connect.SparkConnectService/ExecutePlan"
_REATTACH = "/spark.connect.SparkConnectService/ReattachExecute"


class PlanListener:
    """What the interceptor tells its listeners; every method must be cheap and never raise."""

    def on_request(self, request: Any) -> None: ...

    def on_response(self, operation_id: str, response: Any) -> None: ...


class _ObservedStream:
    """The server's response stream, unchanged, with each response shown to the interceptor."""

    def __init__(self, call: Any, operation_id: str, owner: PlanInterceptor) -> None:
        self._call = call
        self._iterator = iter(call)
        self._operation_id = operation_id
        self._owner = owner

    def __iter__(self) -> _ObservedStream:
        return self

    def __next__(self) -> Any:
        response = next(self._iterator)
        if (
            response.HasField("metrics")
            or response.HasField("result_complete")
            or len(response.observed_metrics)
        ):
            self._owner.notify_response(self._operation_id, response)
        return response

    def __getattr__(self, name: str) -> Any:  # cancel(), code(), trailing_metadata()...
        return getattr(self._call, name)


class PlanInterceptor(grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    """Reports the ``ExecutePlan`` requests of one client to its listeners."""

    def __init__(self) -> None:
        self._listeners: list[PlanListener] = []
        self._lock = threading.Lock()
        self._paused = threading.local()

    def add(self, listener: PlanListener) -> None:
        with self._lock:
            self._listeners = [*self._listeners, listener]

    def remove(self, listener: PlanListener) -> bool:
        """Remove ``listener``; True when none is left."""
        with self._lock:
            self._listeners = [x for x in self._listeners if x is not listener]
            return not self._listeners

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Calls made by this thread inside the block are not reported (the capture's lookups)."""
        before = getattr(self._paused, "on", False)
        self._paused.on = True
        try:
            yield
        finally:
            self._paused.on = before

    def _quiet(self) -> bool:
        return bool(getattr(self._paused, "on", False)) or not self._listeners

    def notify_response(self, operation_id: str, response: Any) -> None:
        for listener in self._listeners:
            try:
                listener.on_response(operation_id, response)
            except Exception as exc:  # a listener bug must never reach the user's action
                log.debug("lineage capture: response listener failed: %s", type(exc).__name__)

    def intercept_unary_stream(
        self, continuation: Callable[[Any, Any], Any], client_call_details: Any, request: Any
    ) -> Any:
        method = client_call_details.method
        if isinstance(method, bytes):
            method = method.decode()
        if self._quiet() or method not in (_EXECUTE, _REATTACH):
            return continuation(client_call_details, request)
        if method == _EXECUTE:
            for listener in self._listeners:
                try:
                    listener.on_request(request)
                except Exception as exc:
                    log.debug("lineage capture: request listener failed: %s", type(exc).__name__)
        return _ObservedStream(continuation(client_call_details, request), request.operation_id, self)


# client -> (interceptor, the stub it replaced)
_ATTACHED: weakref.WeakKeyDictionary[Any, tuple[PlanInterceptor, Any]] = weakref.WeakKeyDictionary()
_ATTACH_LOCK = threading.Lock()


def attach(spark: Any, listener: PlanListener) -> PlanInterceptor:
    """Start reporting the plans ``spark`` (a Spark Connect session) sends to ``listener``."""
    from pyspark.sql.connect.proto.base_pb2_grpc import SparkConnectServiceStub

    client = spark.client
    with _ATTACH_LOCK:
        entry = _ATTACHED.get(client)
        if entry is None:
            interceptor = PlanInterceptor()
            original = client._stub
            client._stub = SparkConnectServiceStub(grpc.intercept_channel(client._channel, interceptor))
            _ATTACHED[client] = entry = (interceptor, original)
        entry[0].add(listener)
        return entry[0]


def detach(spark: Any, listener: PlanListener) -> None:
    """Stop reporting to ``listener``; the last one out restores the client's own stub."""
    client = spark.client
    with _ATTACH_LOCK:
        entry = _ATTACHED.get(client)
        if entry is None:
            return
        interceptor, original = entry
        if interceptor.remove(listener):
            client._stub = original
            del _ATTACHED[client]


__all__ = ["PlanInterceptor", "PlanListener", "attach", "detach"]
