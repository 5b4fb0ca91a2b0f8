"""Every log line of this library is redacted and names the task it belongs to.

Modules get their logger from :func:`get_logger`: it carries a filter that formats the record,
runs the text (and a traceback, if any) through :func:`lineage_operators.redaction.redact_text`
and prefixes ``Task <dag_id>.<task_id>:`` while a task runs (:func:`task_scope`). Doing it in one
filter means no call site can forget: arguments that hold a password, an exception message that
quotes a JDBC URL, a Spark Connect URL with its token, all are redacted before any handler sees
them.

The current task is process-wide, not thread-local, on purpose: Spark calls the capture back on
its listener-bus thread, and an Airflow task runs in a process of its own.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import traceback
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

__all__ = [
    "PY4J_LOGGERS",
    "RedactingFilter",
    "current_task",
    "get_logger",
    "py4j_quiet_here",
    "quiet_here",
    "quiet_py4j",
    "restore_levels",
    "task_scope",
]

#: py4j's loggers: at INFO they log every callback, and connection teardown with tracebacks.
PY4J_LOGGERS = ("py4j.clientserver", "py4j.java_gateway")


def quiet_py4j() -> dict[str, int]:
    """Let :data:`PY4J_LOGGERS` pass warnings only; returns their own levels before, to restore."""
    saved = {}
    for name in PY4J_LOGGERS:
        logger = logging.getLogger(name)
        saved[name] = logger.level
        if logger.getEffectiveLevel() < logging.WARNING:
            logger.setLevel(logging.WARNING)
    return saved


def restore_levels(saved: Mapping[str, int]) -> None:
    """Give loggers back the levels :func:`quiet_py4j` returned."""
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


#: Threads inside :func:`quiet_here`, with how many of its blocks each is in.
_quiet_depth: dict[int, int] = {}
_quiet_lock = threading.Lock()


class _QuietThreads(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread not in _quiet_depth


_QUIET_THREADS_FILTER = _QuietThreads()


@contextlib.contextmanager
def quiet_here(loggers: Iterable[logging.Logger]) -> Iterator[None]:
    """These loggers drop this thread's records meanwhile; other threads log as before (unlike
    :func:`quiet_py4j`, which sets levels process-wide)."""
    for logger in loggers:
        if _QUIET_THREADS_FILTER not in logger.filters:
            logger.addFilter(_QUIET_THREADS_FILTER)
    ident = threading.get_ident()
    with _quiet_lock:
        _quiet_depth[ident] = _quiet_depth.get(ident, 0) + 1
    try:
        yield
    finally:
        with _quiet_lock:
            depth = _quiet_depth.pop(ident) - 1
            if depth:
                _quiet_depth[ident] = depth


def py4j_quiet_here() -> contextlib.AbstractContextManager[None]:
    """:func:`quiet_here` for :data:`PY4J_LOGGERS`."""
    return quiet_here(logging.getLogger(name) for name in PY4J_LOGGERS)


_LABEL = "\x00task\x00"
_task_lock = threading.Lock()
_task_labels: list[str] = []


def current_task() -> str | None:
    """The ``<dag_id>.<task_id>`` of the innermost running task scope, if any."""
    with _task_lock:
        return _task_labels[-1] if _task_labels else None


@contextlib.contextmanager
def task_scope(label: str) -> Iterator[None]:
    """Log lines of this library name ``label`` while the block runs."""
    with _task_lock:
        _task_labels.append(label)
    try:
        yield
    finally:
        with _task_lock:
            if label in _task_labels:
                # remove the innermost occurrence of this label
                del _task_labels[len(_task_labels) - 1 - _task_labels[::-1].index(label)]


def _redact(text: str) -> str:
    # here, not at the top: redaction compiles its patterns when imported (~20 ms), and a DAG file that
    # sets a column-lineage argument imports this module; a parse logs nothing, a task's first line pays it
    from lineage_operators.redaction import redact_text

    try:
        return redact_text(text)
    except Exception:
        return "<unprintable>"


class RedactingFilter(logging.Filter):
    """Redacts a record in place and names the running task; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_lineage_redacted", False):
            return True
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        if record.exc_info and record.exc_info[1] is not None:
            message += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
            record.exc_info = None
            record.exc_text = None
        elif record.exc_text:
            message += "\n" + record.exc_text
            record.exc_text = None
        label = current_task()
        if label:
            # the task's name is no secret, but "secrets_dag.load: value" reads as a key/value pair
            message = _redact(message.replace(label, _LABEL)).replace(_LABEL, label)
            if label not in message:
                message = f"Task {label}: {message}"
        else:
            message = _redact(message)
        record.msg = message
        record.args = None
        record._lineage_redacted = True
        return True


_FILTER = RedactingFilter()


_logged_once: set[str] = set()
_logged_once_lock = threading.Lock()


def log_once(logger: logging.Logger, key: str, level: int, message: str, *args: Any) -> None:
    """Log ``message`` the first time ``key`` is seen in this process: a condition that holds for
    every plan of a task (a missing compiler, an untranslatable plan shape) is said once, not per
    execution."""
    with _logged_once_lock:
        if key in _logged_once:
            return
        _logged_once.add(key)
    logger.log(level, message, *args)


def get_logger(name: str) -> logging.Logger:
    """The module's logger, with the library's redacting filter attached (once)."""
    logger = logging.getLogger(name)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    return logger
