"""Capture of every Spark read and write a task makes through a Spark Connect session.

Same contract and result as the classic
:class:`~lineage_operators.spark.capture.classic.SparkLineageCapture`::

    capture = SparkConnectLineageCapture(spark)   # a pyspark.sql.connect SparkSession; never raises
    capture.start()                               # puts a gRPC interceptor on the session's channel
    ...user code...
    result = capture.stop()                       # CaptureResult: inputs, outputs, run/job facets

How it works:

* While the task runs, the interceptor (:mod:`~lineage_operators.spark.connect.interceptor`) hands over each
  ``ExecutePlanRequest`` (kept as is, nothing parsed, no server call) and watches its response stream for
  ``result_complete`` (success), ``metrics`` and ``observed_metrics`` (what the action's observations
  collected: :mod:`~lineage_operators.spark.connect.observed`).
* Finished actions are resolved on a worker thread, beside the task's next actions: parse the
  protobuf (:mod:`~lineage_operators.spark.connect.plans`), the SQL text
  (:mod:`~lineage_operators.spark.connect.sql`), ask the server for schemas, input files and
  table locations (:mod:`~lineage_operators.spark.connect.server`, cached per task) and turn them into the
  classic capture's plain facts (:mod:`~lineage_operators.spark.connect.resolver`), named and merged by
  :mod:`lineage_operators.spark.resolve`.
* One exception to "after the action": a statement that makes a table disappear (DROP, RENAME,
  REPLACE, ``saveAsTable`` overwrite...) is held on the task's thread, before it is sent, until the
  plans that ran before it are resolved (their tables still exist); a DROP of a table this capture
  has not seen also reads the table's catalog entry then (read only: it changes nothing that runs).
  So is a stream's start into a table (``toTable``): whether the table exists yet.
* ``timeout`` is the operator's ``capture_timeout`` (as for a classic session): the most capture
  adds to the task, at ``stop()`` / ``snapshot()`` waiting for what is still unresolved, and per
  held statement. What is not resolved by then is left without lineage, with one warning.
* Requests sent by a thread that works for another capture (:mod:`..ownership`: a thread an
  earlier task started and left running, another task's thread) are not the task's; the
  interceptor runs on the sending thread, so this needs no server call.
* A plan that cannot be resolved (analysis error) loses its lineage only, with one warning.
  Nothing here raises into the task or changes what runs: the interceptor only observes.

Size: the Connect capture's whole life cycle (start, record, drain, stop) in one class, as the
classic one in capture/classic.py; its readers live beside it (resolver, server, sql).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.capture_settings import DEFAULT_CAPTURE_TIMEOUT
from lineage_operators.column_lineage.settings import ColumnLineageSettings
from lineage_operators.spark.attribution import ownership
from lineage_operators.spark.connect.interceptor import PlanInterceptor, PlanListener, attach, detach
from lineage_operators.spark.connect.observed import observed_values
from lineage_operators.spark.connect.plans import read_plan
from lineage_operators.spark.connect.resolver import ConnectResolver
from lineage_operators.spark.connect.server import ServerLookups
from lineage_operators.spark.connect.sql import statement_kind
from lineage_operators.spark.facts import CaptureResult, ExecutionFacts
from lineage_operators.spark.resolve import build_result
from lineage_operators.spark.session_facts import SessionFacts, SparkApplication, session_facts

log = get_logger(__name__)

_WRITE_METRICS = ("numOutputRows", "numOutputBytes", "numFiles")


#: (rows, bytes, files) a write reported
Statistics = tuple[int | None, int | None, int | None]


def write_statistics(metrics: Any) -> Statistics | None:
    """Pure: (rows, bytes, files) of the write node in an ``ExecutePlanResponse.Metrics``, if any."""
    for metric in metrics.metrics:
        values = metric.execution_metrics
        if all(name in values for name in _WRITE_METRICS):
            rows, size, files = (int(values[name].value) for name in _WRITE_METRICS)
            return rows, size, files
    return None


def _command(request: Any) -> Any:
    """The request's ``Command``, or None for a query."""
    return request.plan.command if request.plan.WhichOneof("op_type") == "command" else None


def _sql_text(request: Any) -> str | None:
    command = _command(request)
    if command is None or command.WhichOneof("command_type") != "sql_command":
        return None
    sql = command.sql_command
    return str(sql.input.sql.query if sql.input.WhichOneof("rel_type") == "sql" else sql.sql)


def _destructive(request: Any) -> bool:
    """Does this request make a table (and its location) disappear or change identity?"""
    command = _command(request)
    if command is None:
        return False
    which = command.WhichOneof("command_type")
    if which == "sql_command":
        return statement_kind(_sql_text(request) or "") in ("drop", "rename", "replace")
    if which == "write_operation":
        write = command.write_operation
        return write.WhichOneof("save_type") == "table" and write.mode == 2  # saveAsTable overwrite
    if which == "write_operation_v2":
        return command.write_operation_v2.mode in (5, 6)  # replace, create or replace
    return False


def _stream_table(request: Any) -> str | None:
    """The table a stream's start writes into (``toTable``), if it is one."""
    command = _command(request)
    if command is None or command.WhichOneof("command_type") != "write_stream_operation_start":
        return None
    return str(command.write_stream_operation_start.table_name) or None


class SparkConnectLineageCapture(PlanListener):
    """Watches the plans one Spark Connect session sends for a task; never raises."""

    def __init__(
        self,
        spark: Any,
        *,
        timeout: float = DEFAULT_CAPTURE_TIMEOUT,
        column_lineage: ColumnLineageSettings | None = None,
        background: bool = True,
    ) -> None:
        """``spark``: a Spark Connect ``SparkSession``; ``column_lineage``: None for the defaults (on);
        ``background``: resolve finished actions on a worker thread (False: at stop() only)."""
        self._spark = spark
        self._timeout = max(timeout, 0.0)
        self._column_lineage = column_lineage
        self._background = background
        self._lock = threading.RLock()
        self._resolving = threading.Lock()
        self._worker: threading.Thread | None = None
        self._rerun = False
        self._requests: list[Any] = []  # ExecutePlanRequests not resolved yet, in send order
        self._operations: set[str] = set()
        self._completed: set[str] = set()
        self._statistics: dict[str, Statistics] = {}
        self._observed: dict[str, dict[str, dict[str, Any]]] = {}
        self._facts: list[ExecutionFacts] = []
        self._state = "new"
        self._interceptor: PlanInterceptor | None = None
        self._resolver: ConnectResolver | None = None
        self._lookups: ServerLookups | None = None
        self._failures = 0
        self._abandoned = False  # stop()/snapshot() gave up waiting: resolve nothing more
        self._hold_timed_out = False  # a held statement waited the whole timeout: hold no more
        self._warned_slow = False
        self._session: SessionFacts | None = None  # read once, early (naming and run facets)
        self._result: CaptureResult | None = None
        self._owner: ownership.Owner | None = None  # marks the task's threads

    @property
    def active(self) -> bool:
        return self._state == "started"

    @property
    def server_calls(self) -> int:
        return self._lookups.calls if self._lookups is not None else 0

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        if self._state != "new":
            return
        self._state = "started"
        try:
            self._owner = ownership.Owner()
            ownership.claim(self._owner)
            self._interceptor = attach(self._spark, self)
            self._lookups = ServerLookups(self._spark, self._interceptor.paused)
            self._resolver = ConnectResolver(
                self._lookups,
                frame_columns=getattr(self._column_lineage, "enabled", True) is not False,
                describe=getattr(self._column_lineage, "descriptions", False) is True,
            )
        except Exception as exc:
            self._failures += 1
            log.warning("lineage capture could not start on the Spark Connect session: %s", describe(exc))

    def snapshot(self) -> CaptureResult:
        if self._result is not None:
            return self._result
        try:
            self._finish()
            return self._build()
        except Exception as exc:
            log.warning("lineage capture snapshot failed: %s", describe(exc))
            return CaptureResult(complete=False)

    def stop(self) -> CaptureResult:
        if self._result is not None:
            return self._result
        was_started = self._state == "started"
        self._state = "stopped"
        if self._owner is not None:
            ownership.release(self._owner)
        if self._interceptor is not None:
            try:
                detach(self._spark, self)
            except Exception as exc:
                log.warning("lineage capture: could not detach from the session: %s", describe(exc))
        if not was_started:
            self._result = CaptureResult(complete=False)
            return self._result
        try:
            self._finish()
            self._result = self._build()
        except Exception as exc:
            log.warning("lineage capture failed to build the result: %s", describe(exc))
            self._result = CaptureResult(complete=False)
        return self._result

    # -- interceptor callbacks (task thread) ------------------------------------------------------

    def on_request(self, request: Any) -> None:
        if self._state != "started" or self._sent_for_another_capture():
            return
        with self._lock:
            if request.operation_id and request.operation_id in self._operations:
                return  # a retry of a request already recorded
            self._operations.add(request.operation_id)
            self._requests.append(request)
        if self._hold_timed_out or self._resolver is None:
            return
        table = _stream_table(request)
        if table is not None:  # does it exist yet? (held, as a DROP below: read before it is sent)
            resolver, operation = self._resolver, request.operation_id
            if not self._bounded(lambda: resolver.before_stream(operation, table)):
                self._hold_timed_out = True
            return
        if not _destructive(request):
            return
        # Hold the statement (not sent yet) while what ran before it is resolved, its tables still
        # there; a DROP also reads the catalog entry of a table this capture has not seen.
        operation_id, text, resolver = request.operation_id, _sql_text(request), self._resolver

        def before_statement() -> None:
            self._resolve_pending(upto=operation_id)
            if text is not None and not self._abandoned:
                resolver.before_drop(operation_id, text)

        if not self._bounded(before_statement):
            self._hold_timed_out = True

    def _sent_for_another_capture(self) -> bool:
        owner = self._owner
        if owner is None:
            return False
        return ownership.verdict(ownership.marks_of_current_thread(), owner.tag) == "other"

    def on_response(self, operation_id: str, response: Any) -> None:
        if len(response.observed_metrics):
            self._observed.setdefault(operation_id, {}).update(observed_values(response))
        if response.HasField("result_complete"):
            self._completed.add(operation_id)
            if self._background:
                self._schedule()
        elif response.HasField("metrics"):
            stats = write_statistics(response.metrics)
            if stats is not None:
                self._statistics[operation_id] = stats

    # -- resolution -----------------------------------------------------------------------------

    def _bounded(self, work: Callable[[], None]) -> bool:
        """Run ``work`` on a helper thread; wait for it at most the timeout (one warning if not)."""
        done = threading.Event()

        def run() -> None:
            try:
                work()
            except Exception as exc:
                log.debug("lineage capture: resolution failed: %s", describe(exc))
            finally:
                done.set()

        threading.Thread(target=run, name="lineage-connect-finish", daemon=True).start()
        if done.wait(self._timeout):
            return True
        with self._lock:
            self._failures += 1
            warn, self._warned_slow = not self._warned_slow, True
        if warn:
            log.warning(
                "lineage capture: the Spark Connect server did not answer lineage lookups within "
                "capture_timeout (%.1fs); actions not resolved by then have no lineage",
                self._timeout,
            )
        return False

    def _finish(self) -> None:
        """Resolve everything still pending (and the session's conf), within the timeout."""
        if self._resolver is None or self._abandoned:
            return

        def work() -> None:
            self._resolve_pending()
            self._read_session()

        if not self._bounded(work):
            self._abandoned = True

    def _schedule(self) -> None:
        """Resolve finished actions on a worker thread, beside the task's next actions."""
        with self._lock:
            if self._worker is not None and self._worker.is_alive():
                self._rerun = True
                return
            self._worker = threading.Thread(target=self._work, name="lineage-connect-resolve", daemon=True)
            self._worker.start()

    def _work(self) -> None:
        self._read_session()  # once, early: stop() then needs no round trip for it
        while True:
            try:
                self._resolve_pending(finished_only=True)
            except Exception as exc:
                log.debug("lineage capture: background resolution failed: %s", describe(exc))
            with self._lock:
                if not self._rerun or self._state != "started":
                    self._worker = None
                    return
                self._rerun = False

    def _take(self, finished_only: bool, upto: str | None) -> list[Any]:
        """Pending requests to resolve now, in send order (a prefix of the pending list)."""
        with self._lock:
            taken = 0
            for request in self._requests:
                if request.operation_id == upto:
                    break
                if finished_only and request.operation_id not in self._completed:
                    break
                taken += 1
            pending, self._requests = self._requests[:taken], self._requests[taken:]
            return pending

    def _resolve_pending(self, *, finished_only: bool = False, upto: str | None = None) -> None:
        with self._resolving:  # one resolver at a time, in send order
            self._resolve_locked(finished_only, upto)

    def _resolve_locked(self, finished_only: bool, upto: str | None) -> None:
        resolver = self._resolver
        if self._abandoned or resolver is None:
            return
        pending = self._take(finished_only, upto)
        if not pending:
            return
        plans = []
        for request in pending:
            try:
                plans.append(read_plan(request))
            except Exception as exc:
                self._failures += 1
                log.warning("lineage capture: cannot read a Spark Connect plan: %s", describe(exc))
        try:
            resolver.prefetch(plans)
        except Exception as exc:
            log.debug("lineage capture: prefetch failed: %s", describe(exc))
        for plan in plans:
            if self._abandoned:  # stop() gave up waiting: its result is built already
                return
            started = time.perf_counter()
            op = plan.operation_id
            try:
                facts = resolver.facts(plan, succeeded=op in self._completed)
            except Exception as exc:
                self._failures += 1
                log.warning("lineage capture: lineage of one Spark Connect action lost: %s", describe(exc))
                facts = None
            if facts is not None:
                facts.cost_ms = (time.perf_counter() - started) * 1000
                self._add_statistics(facts, self._statistics.get(op))
                for output in facts.outputs:
                    output.observed = self._observed.get(op)
                with self._lock:
                    self._facts.append(facts)

    @staticmethod
    def _add_statistics(facts: ExecutionFacts, stats: Statistics | None) -> None:
        if stats is None or len(facts.outputs) != 1:
            return
        output = facts.outputs[0]
        output.rows, output.size, output.files = stats

    def _read_session(self) -> None:
        """The session facts, from the session's conf and Spark version (two round trips, once per
        capture); a session that cannot be read leaves the defaults and no run facets."""
        if self._session is not None or self._lookups is None:
            return
        conf: dict[str, str] = {}
        version = None
        try:
            conf = dict(self._lookups.conf())
            version = self._lookups.version()
        except Exception as exc:
            with self._lock:
                self._failures += 1
            log.warning("lineage capture: cannot read the Spark Connect session's conf: %s", describe(exc))
        self._session = session_facts(conf.get, SparkApplication(version))

    def _build(self) -> CaptureResult:
        with self._lock:
            facts = list(self._facts)
        return build_result(
            facts,
            self._session or SessionFacts(),
            complete=not self._failures,
            column_lineage=self._column_lineage,
        )


__all__ = ["SparkConnectLineageCapture", "write_statistics"]
