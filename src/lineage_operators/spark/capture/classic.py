"""Capture of every Spark read and write made during one task.

CONTRACT:

    capture = SparkLineageCapture(spark)   # classic SparkSession (py4j); never raises
    capture.start()                        # queues the session's ended executions
    ...user code...
    result = capture.stop()                # drains the listener bus, unregisters; never raises
    result.inputs / result.outputs         # list[LineageDataset], named, de-duplicated, facets attached
    result.run_facets                      # {"spark_processingEngine": ..., "spark_applicationDetails": ...}
    result.job_facets                      # {"sql": ...} when the task ran SQL text
    capture.snapshot()                     # same as stop()'s result, without stopping (for failures)

How it works:

* ``start()`` drains the listener bus (so executions that ended before the task are delivered to
  nobody), records two watermarks -- the newest SQL execution id in Spark's SQL status store and
  the next ``QueryExecution`` id -- then adds a queue of the session's ended executions to Spark's
  listener bus, in the JVM (:mod:`~lineage_operators.spark.listen.execution_queue`; where its Java class
  cannot be compiled, a py4j ``QueryExecutionListener``:
  :class:`~lineage_operators.spark.listen.listener.QueryRegistration`). What it reads from the session, and
  starts beside the queue, is :mod:`~lineage_operators.spark.capture.classic_setup`'s.
* Spark's listener-bus thread only queues each execution (no call into Python), so a slow or hung
  read never holds up the listener bus or ``SparkContext.stop()``. The queue keeps the
  ``QueryExecution`` alive until it is read; the capture's reader thread takes the executions in
  order, each read JVM-side in the call that takes it (:mod:`lineage_operators.spark.plan.reader`). The
  catalog is read as late as before: Spark delivers the end event asynchronously, after the user's
  thread has moved on, so the reader is one queue hop behind the bus, not behind the user (the
  Spark tests of DROP/ALTER/CTAS prove it).
* Attribution (:mod:`lineage_operators.spark.attribution.classic`): the task's thread, and every thread
  started while the capture runs, carry the capture's Spark job tag
  (:mod:`~lineage_operators.spark.attribution.ownership`); an
  execution whose jobs carry it is the task's, one carrying only another capture's tag is not.
  Untagged executions count when their ``QueryExecution`` was created after ``start()``, or,
  for an older one (a DataFrame built before the task, collected during it), when the SQL status
  store shows it started after ``start()``. An old execution evicted from the status store
  (``spark.sql.ui.retainedExecutions``, 1000 by default) is dropped.
* ``snapshot()``/``stop()`` drain the bus again (so every callback has run) and wait for the reader,
  both within ``capture_timeout``, then name and merge in plain Python
  (:mod:`lineage_operators.spark.resolve`). When the budget runs out, ``stop()`` abandons the reader
  (a read still running finishes unseen) and reports what was read. ``stop()`` takes the queue off
  the bus (with the py4j listener: unregisters it and shuts down the callback server if this module
  started it and no other capture uses it); the reader closes the plan JSON file after its last read.
* Facets: schema, dataSource, symlinks (session-catalog tables), storage (delta/iceberg only),
  lifecycleStateChange and outputStatistics on outputs, inputStatistics (what the dataset is) and
  subset (untrimmed locations) on inputs; RDD-only jobs through :mod:`lineage_operators.spark.rdd.jobs`;
  run facets ``spark_processingEngine`` (the provider keeps ``processing_engine`` for Airflow on
  task events) and ``spark_applicationDetails``; job facet ``sql`` with the
  redacted text of the ``spark.sql`` statements the task ran (from the parser's origin of the plan).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.capture_settings import DEFAULT_CAPTURE_TIMEOUT
from lineage_operators.column_lineage.settings import ColumnLineageSettings
from lineage_operators.redaction import redact_url
from lineage_operators.spark.attribution import ownership
from lineage_operators.spark.attribution.classic import attributed, claim_task_threads, read_records
from lineage_operators.spark.capture import classic_setup as setup
from lineage_operators.spark.facts import CaptureResult, ExecutionFacts
from lineage_operators.spark.jvm.handles import release
from lineage_operators.spark.jvm.tools import JvmTools, tools_for
from lineage_operators.spark.listen import listener as lst
from lineage_operators.spark.listen.execution_ids import start_recording
from lineage_operators.spark.listen.execution_queue import ExecutionQueue, QueuedReply
from lineage_operators.spark.listen.job_statistics import ExecutionJobs, add_job_statistics
from lineage_operators.spark.plan import batch as plan_batch
from lineage_operators.spark.plan.columns.compact import PlanJsonReader
from lineage_operators.spark.plan.reader import PlanReader
from lineage_operators.spark.rdd.jobs import RddJobWatcher
from lineage_operators.spark.resolve import build_result
from lineage_operators.spark.session import callback_server
from lineage_operators.spark.session_facts import SessionFacts

log = get_logger(__name__)

#: How long capture may add to a task after the user's job ended (draining Spark's listener bus,
#: reading what it delivered): :mod:`lineage_operators.capture_settings`.
DEFAULT_DRAIN_TIMEOUT = DEFAULT_CAPTURE_TIMEOUT
START_DRAIN_TIMEOUT = 5.0


class SparkLineageCapture:
    """Watches the Spark executions of one task; see the module docstring. Never raises."""

    def __init__(
        self,
        spark: Any,
        *,
        drain_timeout: float = DEFAULT_DRAIN_TIMEOUT,
        column_lineage: ColumnLineageSettings | None = None,
    ) -> None:
        """``spark``: a classic ``SparkSession``; ``column_lineage``: None for the defaults (on)."""
        self._spark = spark
        self._columns_settings = column_lineage
        self._columns: PlanJsonReader | None = None
        self._drain_timeout = drain_timeout
        self._lock = threading.Lock()
        self._facts: list[ExecutionFacts] = []  # in callback order
        self._failures = 0
        self._state = "new"  # new -> started -> stopped
        self._listener: lst.QueryListener | None = None
        self._handover: ExecutionQueue | lst.HandOver | None = None  # what feeds the reader
        self._jlistener: ExecutionQueue | lst.QueryRegistration | None = None
        self._gateway: Any = None  # py4j's JavaGateway
        self._reader: PlanReader | None = None
        self._tools: JvmTools | None = None
        self._qe_watermark: int | None = None
        self._exec_watermark: int | None = None
        self._session = SessionFacts()  # read at start(): naming and run facets
        self._result: CaptureResult | None = None
        self._incomplete = False
        #: the reader was still reading when stop() gave up on it (capture_timeout)
        self.hung = False
        self._rdd_jobs: RddJobWatcher | None = None
        self._owner: ownership.Owner | None = None  # this capture's job tag on the task's threads
        self._app_id = ""

    @property
    def active(self) -> bool:
        return self._state == "started"

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Begin watching; executions that started earlier are not attributed to the task."""
        if self._state != "new":
            return
        self._state = "started"
        try:
            self._start()
        except Exception as exc:
            self._incomplete = True
            log.warning("lineage capture could not start, lineage will be incomplete: %s", describe(exc))
            self._teardown()

    def _start(self) -> None:
        spark = self._spark
        jss = getattr(spark, "_jsparkSession", None)
        if jss is None:
            raise RuntimeError("not a classic (py4j) SparkSession: Spark Connect sessions are not captured")
        sc = spark.sparkContext
        self._gateway = sc._gateway
        self._tools = tools_for(self._gateway)
        self._columns = setup.column_reader(self._tools, self._columns_settings)
        self._reader = PlanReader(self._tools, jss, redact_url, self._columns)
        app = setup.read_application(sc)
        self._session = setup.read_session(spark, sc, app)
        self._app_id = str(app.app_id)
        start_recording(self._tools, sc._jsc, self._app_id)  # lines: the status store's join key
        if not lst.drain(sc._jsc, START_DRAIN_TIMEOUT, self._tools.fast_if_ready()):
            log.info("lineage capture: listener bus still busy at start; relying on execution ids")
        self._exec_watermark = setup.last_sql_execution_id(jss)
        self._qe_watermark = setup.next_query_execution_id(self._tools, jss)
        # started before the task's threads are claimed: the reader is no thread of the task
        on_start = lambda: setup.activate_session(self._tools, jss)  # noqa: E731
        batch = plan_batch.batch_reader(self._tools)
        if batch is not None:  # executions queued JVM-side: no py4j callback (.execution_queue)
            self._handover = self._jlistener = ExecutionQueue.start(
                self._tools,
                batch,
                jss,
                read=self._on_execution,
                request=self._reader.batch_request,
                on_start=on_start,
                on_exit=self._close_columns,
            )
        else:
            self._handover = lst.HandOver(self._on_execution, self._close_columns, on_start=on_start)
            callback_server.acquire_callback_server(self._gateway)
            self._listener = lst.QueryListener(self._handover.put)  # from here on, _teardown releases
            self._jlistener = lst.QueryRegistration(self._tools, jss, self._listener)
        self._rdd_jobs = setup.start_rdd_jobs(self._tools, sc._jsc)
        self._owner = claim_task_threads(sc)

    def snapshot(self) -> CaptureResult:
        """Everything attributed so far (drains pending callbacks first); capture continues."""
        if self._state == "stopped" and self._result is not None:
            return self._result
        try:
            complete = self._drain() if self._state == "started" else True
            return self._build(complete)
        except Exception as exc:
            log.warning("lineage capture snapshot failed: %s", describe(exc))
            return CaptureResult(run_facets=dict(self._session.run_facets), complete=False)

    def stop(self) -> CaptureResult:
        """Drain, unregister, release the callback server; return the task's lineage."""
        if self._state == "stopped" and self._result is not None:
            return self._result
        if self._state != "started":
            self._state = "stopped"
            self._result = CaptureResult(complete=False)
            return self._result
        complete = True
        try:
            # A task may stop its own session first: SparkContext.stop() has then already
            # delivered every queued event, and there is no bus left to drain; the reader may
            # still be reading the last executions.
            complete = self._wait_for_reader() if _context_stopped(self._spark) else self._drain()
        except Exception as exc:
            complete = False
            log.warning("lineage capture: draining the listener bus failed: %s", describe(exc))
        self._teardown()
        self._state = "stopped"
        try:
            self._result = self._build(complete)
        except Exception as exc:
            log.warning("lineage capture failed to build the result: %s", describe(exc))
            self._result = CaptureResult(run_facets=dict(self._session.run_facets), complete=False)
        return self._result

    def _drain(self) -> bool:
        """Every callback delivered (listener bus) and every execution read (reader thread), both
        within ``capture_timeout``; False when the budget ran out."""
        tools = self._tools
        if tools is None:  # start() failed before it reached the JVM: nothing was queued
            return False
        deadline = time.monotonic() + self._drain_timeout
        own = self._jlistener is None or self._jlistener.on_capture_queue  # else: the whole bus
        handles = tools.fast_if_ready() if own else None
        ok = lst.drain(self._spark.sparkContext._jsc, self._drain_timeout, handles)
        return self._wait_for_reader(deadline) if ok else self._gave_up()

    def _wait_for_reader(self, deadline: float | None = None) -> bool:
        """Every execution queued so far read, by ``deadline`` (default: ``capture_timeout`` from now)."""
        if self._handover is None:
            return True
        if deadline is None:
            deadline = time.monotonic() + self._drain_timeout
        return self._handover.wait_idle(deadline - time.monotonic()) or self._gave_up()

    def _gave_up(self) -> bool:
        log.warning(
            "lineage capture gave up after %.1fs (capture_timeout): Spark's listener bus or the "
            "plan reader was still busy; lineage has what was captured so far",
            self._drain_timeout,
        )
        return False

    def _teardown(self) -> None:
        if self._listener is not None:
            self._listener.enabled = False
        if self._owner is not None:
            ownership.release(self._owner)
        if self._rdd_jobs is not None:
            try:
                self._rdd_jobs.stop()
            except Exception as exc:
                log.warning("lineage capture: could not unregister the RDD job listener: %s", describe(exc))
        if self._jlistener is not None:
            try:
                self._jlistener.unregister()
            except Exception as exc:
                log.warning("lineage capture: could not unregister the query listener: %s", describe(exc))
            self._jlistener = None
        handover, self._handover = self._handover, None
        if handover is None:
            self._close_columns()
        elif handover.wait_idle(0):
            handover.close()  # the reader ends now and closes the plan JSON file
        else:
            self.hung = True
            handover.abandon()  # a read still running finishes unseen, then the file is closed
        if self._listener is not None and self._gateway is not None:
            listener, self._listener = self._listener, None
            if not _callbacks_returned(listener):
                # closing the callback server under a running callback makes py4j and Spark print
                # errors: leave it running (a daemon thread) for the callback to return into
                return
            try:
                callback_server.release_callback_server(self._gateway)
            except Exception as exc:
                log.warning("lineage capture: could not stop the py4j callback server: %s", describe(exc))

    # -- reading (reader thread) ----------------------------------------------------------------

    def _on_execution(
        self, func_name: str, qe: Any, succeeded: bool, reply: QueuedReply | None = None
    ) -> None:
        """Reads one execution handed over by the listener or the JVM queue (reader thread);
        ``reply``: the queue's ``QueuedReply``, read JVM-side already."""
        started = time.perf_counter()
        reader = self._reader
        try:
            if reader is None:  # never: the handover that calls this starts after the reader
                raise RuntimeError("no plan reader")
            facts = reader.read(func_name, qe, succeeded, reply)
        except Exception as exc:
            if self._abandoned():
                return
            with self._lock:
                self._failures += 1
            log.warning("lineage capture: cannot read a %s execution: %s", func_name, describe(exc))
            return
        finally:
            # the handle is in a py4j reference cycle: without this, the JVM keeps the execution
            # (its executed plan, a broadcast join's relation) until Python's next full collection
            release(qe)
            self._read_rdd_jobs()
        if facts is None or self._abandoned():
            return  # stop() gave up on this read: its result belongs to no event
        facts.cost_ms = (time.perf_counter() - started) * 1000 + (reply.jvm_ms if reply is not None else 0.0)
        with self._lock:
            self._facts.append(facts)

    def _read_rdd_jobs(self) -> None:
        """Between executions, read the RDD-only jobs queued meanwhile (reader thread): the watcher's
        queue then lets go of their scheduler objects, instead of holding them until ``stop()``."""
        watcher = self._rdd_jobs
        if watcher is None or self._abandoned():
            return
        try:
            watcher.read_queued_if_due()
        except Exception as exc:
            log.debug("lineage capture: RDD jobs left for stop(): %s", describe(exc))

    def _abandoned(self) -> bool:
        return self.hung

    def _close_columns(self) -> None:
        columns, self._columns = self._columns, None
        if columns is not None:
            columns.close()

    # -- result ---------------------------------------------------------------------------------

    def _attributed(
        self, facts: list[ExecutionFacts]
    ) -> tuple[list[ExecutionFacts], list[ExecutionJobs] | None]:
        """The task's executions (:mod:`lineage_operators.spark.attribution.classic`), and the status
        store's records it read (None when it needed none)."""
        own_tag = self._owner.tag if self._owner is not None else None
        watermark = self._qe_watermark
        if not facts or watermark is None:
            return facts, None
        new_only = all(f.tags is not None or (f.qe_id is not None and f.qe_id > watermark) for f in facts)
        since = self._exec_watermark if self._exec_watermark is not None else -1
        records = None
        if own_tag is not None or not new_only:
            try:
                if self._tools is None:
                    raise RuntimeError("capture did not start")
                jss, jsc = self._spark._jsparkSession, self._spark.sparkContext._jsc
                records = read_records(self._tools, jss, jsc, since, self._app_id)
            except Exception as exc:  # no status store (the task stopped its session...)
                own_tag = None  # the time window alone, as without tags
                if not new_only:
                    log.warning("lineage capture: cannot read Spark's SQL status store: %s", describe(exc))
        kept = attributed(facts, records or [], own_tag=own_tag, qe_watermark=watermark, exec_watermark=since)
        return kept, records

    def _build(self, complete: bool) -> CaptureResult:
        with self._lock:
            facts = list(self._facts)
            failures = self._failures
        if self._rdd_jobs is not None:
            facts = facts + self._rdd_jobs.executions(wait_s=1.0)  # a hung reader holds it
        facts, records = self._attributed(facts)
        self._add_job_statistics(facts, records)
        return build_result(
            facts,
            self._session,
            column_lineage=self._columns_settings,
            complete=complete and not failures and not self._incomplete,
        )

    def _add_job_statistics(self, facts: list[ExecutionFacts], records: list[ExecutionJobs] | None) -> None:
        """Rows written by JDBC writes, from their jobs' task metrics
        (:mod:`~lineage_operators.spark.listen.job_statistics`);
        ``records``: the status store's executions, when attribution read them already."""
        if self._tools is None or _context_stopped(self._spark):
            return  # the task stopped its session: Spark's status stores are gone
        since = self._exec_watermark if self._exec_watermark is not None else -1
        add_job_statistics(self._tools, self._spark._jsparkSession, facts, since, records)


def _callbacks_returned(listener: Any, wait_s: float = 1.0) -> bool:
    """Whether every callback of the (disabled) listener returned; they only hand over, so this
    waits microseconds unless py4j is stuck."""
    deadline = time.monotonic() + wait_s
    while listener.in_flight and time.monotonic() < deadline:
        time.sleep(0.005)
    return not listener.in_flight


def _context_stopped(spark: Any) -> bool:
    try:
        return spark.sparkContext._jsc is None
    except Exception:
        return True


__all__ = ["SparkLineageCapture"]
