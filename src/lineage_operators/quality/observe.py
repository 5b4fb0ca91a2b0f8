"""Declared checks evaluated while the data is written: one Spark observation on each checked write.

While a task with ``data_quality=`` runs, the DataFrame writers of pyspark (classic and Connect)
remember how they were configured (``format``, ``mode``, ``option``...). When a write's target (a
path, or a table for ``saveAsTable``/``insertInto``) is one the checks name, the write runs instead
on ``df.observe(observation, *aggregates)`` with the same configuration: Spark computes the checks'
aggregates in the same job, as the rows go by (no second scan, no extra job). ``df.writeTo(table)``
(the V2 writer) names its table before it is configured: when the table is checked, the writer is
made on the observed DataFrame at once, and its write (``append``, ``overwrite``,
``overwritePartitions``, ``create``, ``replace``, ``createOrReplace``) reads the values. Writes to
other targets, and every write once the task ends, run untouched. SQL statements have no
DataFrame to observe: ``spark.sql("INSERT ...")`` is not checked.

A classic session hands an observation its values through the listener bus: they are read once
the bus has delivered the write's end (bounded by the capture timeout), never by a blocking call;
values that did not arrive make the checks ``skip``, with one warning. A checked write that raises
(a job failing mid-way, a target Spark refuses) is recorded too, every check ``skip`` and no value
read: what a failed job observed is only part of the rows, and the task's FAIL event must still say
which checks did not run. Lineage code: nothing here raises into the task, apart from the user's own
write errors, which pass through unchanged.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.quality.checks import Check, Verdict, observation_aggregates
from lineage_operators.quality.metrics import CHECKS_OBSERVATION_PREFIX
from lineage_operators.quality.spec import DataQuality

log = get_logger(__name__)

#: Writer methods that configure a write (replayed on the observed DataFrame's writer).
CONFIGURING = ("mode", "format", "option", "options", "partitionBy", "bucketBy", "sortBy", "clusterBy")
#: Writer methods that write: -> how their target is named ("path" or "table") and the argument holding it.
TERMINAL = {
    "save": ("path", "path"),
    "parquet": ("path", "path"),
    "csv": ("path", "path"),
    "json": ("path", "path"),
    "orc": ("path", "path"),
    "text": ("path", "path"),
    "xml": ("path", "path"),
    "saveAsTable": ("table", "name"),
    "insertInto": ("table", "tableName"),
}
#: The V2 writer's (``df.writeTo(table)``) methods that write.
V2_TERMINAL = ("append", "overwrite", "overwritePartitions", "create", "replace", "createOrReplace")
_CALLS = "_lineage_quality_calls"
_FINISH = "_lineage_quality_finish"
_OBSERVED = "_lineage_quality_observed"
_names = itertools.count(1)
_lock = threading.Lock()
_active: QualityRun | None = None


@dataclass
class CheckedWrite:
    """One write the checks observed: its target as the checks name it, the values, the verdicts;
    ``finished`` False when the write raised (no values, every verdict ``skip``)."""

    dataset: str
    target: str
    observed: dict[str, Any]
    verdicts: list[Verdict]
    finished: bool = True


@dataclass
class QualityRun:
    """The checks of one task run, and what its writes observed."""

    spec: DataQuality
    wait_s: float = 5.0
    writes: list[CheckedWrite] = field(default_factory=list)

    def checks_for(self, kind: str, target: str) -> tuple[str, tuple[Check, ...]] | None:
        """(the dataset as the checks name it, its checks) for a write's target; None if unchecked."""
        for dataset, checks in self.spec.checks.items():
            if same_target(kind, target, dataset):
                return dataset, checks
        return None

    @property
    def failed(self) -> list[tuple[str, Verdict]]:
        return [(w.dataset, v) for w in self.writes for v in w.verdicts if v.status == "fail"]


@contextmanager
def checking(spec: DataQuality | None, wait_s: float = 5.0) -> Iterator[QualityRun | None]:
    """Observe the checked writes of the block (``None`` in, ``None`` out: nothing is patched)."""
    global _active
    if spec is None or not spec.checks:
        yield None
        return
    run = QualityRun(spec, wait_s)
    with _lock:
        installed = _install()
        previous, _active = _active, run
    try:
        yield run
    finally:
        with _lock:
            _active = previous
        if not installed:
            log.warning("data quality: pyspark's DataFrame writers could not be observed; no check ran")


# -- targets ---------------------------------------------------------------------------------------


def same_target(kind: str, target: str, dataset: str) -> bool:
    """Whether a write's target is the dataset a check names: paths compared absolute and without a
    ``file:`` scheme, tables by their trailing name parts (``orders`` matches ``db.orders``)."""
    if kind == "path":
        return normalized_path(target) == normalized_path(dataset)
    wanted = [p.strip("`").lower() for p in dataset.split(".")]
    given = [p.strip("`").lower() for p in target.split(".")]
    shorter = min(len(wanted), len(given))
    return "/" not in dataset and wanted[-shorter:] == given[-shorter:]


def normalized_path(text: str) -> str:
    """An absolute path without ``file:`` (a URI with another scheme as is, without a trailing slash)."""
    value = text.strip()
    if value.startswith("file:"):
        value = value[len("file:") :]
        while value.startswith("//"):
            value = value[1:]
    if "://" in value:
        return value.rstrip("/")
    return os.path.abspath(value).rstrip("/") or "/"


def _target(
    method: str, writer: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> tuple[str, str] | None:
    kind, argument = TERMINAL[method]
    value = args[0] if args else kwargs.get(argument)
    if value is None and method == "save":
        value = _recorded_path(writer)
    return (kind, value) if isinstance(value, str) and value else None


def _recorded_path(writer: Any) -> str | None:
    for name, args, kwargs in reversed(getattr(writer, _CALLS, [])):
        if name == "option" and len(args) == 2 and str(args[0]).lower() == "path":
            return str(args[1])
        if name == "options" and "path" in kwargs:
            return str(kwargs["path"])
    return None


# -- the writers' patch ----------------------------------------------------------------------------


def _install() -> bool:
    """Patch the writer classes once per process (the patch only acts while a run is active)."""
    installed = False
    for module, name in (
        ("pyspark.sql.readwriter", "DataFrameWriter"),
        ("pyspark.sql.connect.readwriter", "DataFrameWriter"),
    ):
        try:
            cls = getattr(__import__(module, fromlist=[name]), name)
        except Exception:  # no pyspark, or no Connect client
            continue
        if not getattr(cls, "_lineage_quality_patched", False):
            for method in CONFIGURING:
                if hasattr(cls, method):
                    setattr(cls, method, _recording(getattr(cls, method), method))
            for method in TERMINAL:
                if hasattr(cls, method):
                    setattr(cls, method, _observing(getattr(cls, method), method))
            cls._lineage_quality_patched = True
        installed = True
    _install_v2()
    return installed


def _install_v2() -> None:
    """Patch ``DataFrame.writeTo`` and the V2 writers' terminal methods (classic and Connect) once."""
    for module in ("pyspark.sql.classic.dataframe", "pyspark.sql.dataframe", "pyspark.sql.connect.dataframe"):
        try:
            frame = __import__(module, fromlist=["DataFrame"]).DataFrame
        except Exception:  # no such module on this line, or no Connect client
            continue
        if "writeTo" in frame.__dict__ and not frame.__dict__.get("_lineage_quality_patched", False):
            frame.writeTo = _observing_v2(frame.writeTo)
            frame._lineage_quality_patched = True
    for module in ("pyspark.sql.readwriter", "pyspark.sql.connect.readwriter"):
        try:
            writer = __import__(module, fromlist=["DataFrameWriterV2"]).DataFrameWriterV2
        except Exception:
            continue
        if not writer.__dict__.get("_lineage_quality_patched", False):
            for method in V2_TERMINAL:
                if hasattr(writer, method):
                    setattr(writer, method, _finishing(getattr(writer, method)))
            writer._lineage_quality_patched = True


def _recording(original: Callable[..., Any], method: str) -> Callable[..., Any]:
    def record(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _active is not None:
            self.__dict__.setdefault(_CALLS, []).append((method, args, kwargs))
        return original(self, *args, **kwargs)

    record.__wrapped__ = original  # type: ignore[attr-defined]
    return record


def _observing(original: Callable[..., Any], method: str) -> Callable[..., Any]:
    def write(self: Any, *args: Any, **kwargs: Any) -> Any:
        run = _active
        if run is None or getattr(self, _OBSERVED, False):
            return original(self, *args, **kwargs)
        plan = _plan_observed_write(run, self, method, args, kwargs)
        if plan is None:
            return original(self, *args, **kwargs)
        writer, finish = plan
        return _judged(lambda: original(writer, *args, **kwargs), finish)

    write.__wrapped__ = original  # type: ignore[attr-defined]
    return write


def _observing_v2(original: Callable[..., Any]) -> Callable[..., Any]:
    def write_to(self: Any, table: str, *args: Any, **kwargs: Any) -> Any:
        run = _active
        if run is None:
            return original(self, table, *args, **kwargs)
        try:
            found = run.checks_for("table", table) if isinstance(table, str) else None
            if found is None:
                return original(self, table, *args, **kwargs)
            dataset, checks = found
            observed, observation, session = _observed_frame(self, observation_aggregates(checks))
        except Exception as error:
            log.warning("data quality: the write's checks cannot be observed (%s); it runs unchecked", error)
            return original(self, table, *args, **kwargs)
        writer = original(observed, table, *args, **kwargs)
        setattr(
            writer, _FINISH, _finisher(run, dataset, table, checks, observation=observation, session=session)
        )
        return writer

    write_to.__wrapped__ = original  # type: ignore[attr-defined]
    return write_to


def _finishing(original: Callable[..., Any]) -> Callable[..., Any]:
    def write(self: Any, *args: Any, **kwargs: Any) -> Any:
        finish = self.__dict__.pop(_FINISH, None)  # one write per observation: a retry runs unchecked
        if finish is None:
            return original(self, *args, **kwargs)
        return _judged(lambda: original(self, *args, **kwargs), finish)

    write.__wrapped__ = original  # type: ignore[attr-defined]
    return write


def _judged(write: Callable[[], Any], finish: Callable[[bool], None]) -> Any:
    """Run a checked write, then ``finish`` it: with its values once it returned, as not finished
    when it raised (any exception, ``KeyboardInterrupt`` included), whose error then goes on as is."""
    try:
        result = write()
    except BaseException:
        finish(False)
        raise
    finish(True)
    return result


def _finisher(
    run: QualityRun, dataset: str, target: str, checks: tuple[Check, ...], *, observation: Any, session: Any
) -> Callable[[bool], None]:
    """What a checked write does once it ran: read the observed values, judge, remember. A write
    that did not finish reads nothing (a failed job's values, if any, describe part of the rows):
    its checks are remembered as ``skip``."""

    def finish(finished: bool) -> None:
        try:
            values = _observed_values(observation, session, run.wait_s) if finished else {}
            verdicts = [check.evaluate(values) for check in checks]
            run.writes.append(CheckedWrite(dataset, target, values, verdicts, finished))
            if finished:
                _log_verdicts(dataset, verdicts)
            else:
                log.warning("data quality: the write of %s did not finish; its checks are skipped", dataset)
        except Exception as error:
            log.warning("data quality: the checks of %s could not be read (%s)", dataset, error)

    return finish


def _plan_observed_write(
    run: QualityRun, writer: Any, method: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> tuple[Any, Callable[[bool], None]] | None:
    """(the writer of the observed DataFrame, what to do after its write), or None to write as is."""
    try:
        target = _target(method, writer, args, kwargs)
        found = run.checks_for(*target) if target else None
        if target is None or found is None:
            return None
        dataset, checks = found
        observed_writer, observation, session = _observed_writer(writer, observation_aggregates(checks))
    except Exception as error:
        log.warning("data quality: the write's checks cannot be observed (%s); it runs unchecked", error)
        return None
    return observed_writer, _finisher(
        run, dataset, target[1], checks, observation=observation, session=session
    )


def _observed_frame(frame: Any, aggregates: Mapping[str, str]) -> tuple[Any, Any, Any]:
    """(``frame`` observed with the aggregates, the observation, the classic session or None)."""
    name = f"{CHECKS_OBSERVATION_PREFIX}{next(_names)}"
    observation: Any
    if hasattr(frame, "_jdf"):  # classic
        from pyspark.sql import functions as F
        from pyspark.sql.observation import Observation

        columns = [F.expr(sql).alias(metric) for metric, sql in aggregates.items()]
        observation = object.__new__(Observation)  # classic, even in a process in Connect mode
        observation.__init__(name)  # type: ignore[misc]
        return frame.observe(observation, *columns), observation, frame.sparkSession
    from pyspark.sql.connect import functions as CF
    from pyspark.sql.connect.observation import Observation as ConnectObservation

    columns = [CF.expr(sql).alias(metric) for metric, sql in aggregates.items()]
    observation = ConnectObservation(name)
    return frame.observe(observation, *columns), observation, None


def _observed_writer(writer: Any, aggregates: Mapping[str, str]) -> tuple[Any, Any, Any]:
    if hasattr(writer, "_jwrite"):  # classic
        frame, observation, session = _observed_frame(writer._df, aggregates)
        observed = type(writer)(frame)
    else:  # Spark Connect: the writer holds the DataFrame's plan
        from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame

        frame, observation, session = _observed_frame(ConnectDataFrame(writer._df, writer._spark), aggregates)
        observed = type(writer)(frame._plan, frame._session, getattr(writer, "_callback", None))
    setattr(observed, _OBSERVED, True)
    for method, args, kwargs in getattr(writer, _CALLS, []):
        getattr(observed, method)(*args, **kwargs)
    return observed, observation, session


def _observed_values(observation: Any, session: Any, wait_s: float) -> dict[str, Any]:
    """The observation's values; {} when they did not arrive in time (the checks then skip)."""
    java = getattr(observation, "_jo", None)
    if java is not None and not _arrived(java):
        # the values come with the write's end event: wait for the listener bus to deliver it
        session.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(int(wait_s * 1000))
        if not _arrived(java):
            log.warning("data quality: the observed values did not arrive within %ss; checks skipped", wait_s)
            return {}
    return dict(observation.get)


def _arrived(java: Any) -> bool:
    """Whether a classic observation has its values, asked without blocking (``get`` would wait)."""
    try:
        return bool(java.future().isCompleted())
    except Exception:  # Spark 3.5.0: no future() yet; the private Option the listener fills
        field = java.getClass().getDeclaredField("metrics")
        field.setAccessible(True)
        return bool(field.get(java).isDefined())


def _log_verdicts(dataset: str, verdicts: list[Verdict]) -> None:
    failed = [v for v in verdicts if v.status == "fail"]
    if failed:
        listed = "; ".join(f"{v.check.name} (expected {v.check.expected}, got {v.actual})" for v in failed)
        log.warning("data quality: %s failed %d check(s): %s", dataset, len(failed), listed)
    else:
        log.info("data quality: %s passed %d check(s)", dataset, len(verdicts))


__all__ = ["CheckedWrite", "QualityRun", "checking", "normalized_path", "same_target"]
