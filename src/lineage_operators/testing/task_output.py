"""Each task's console output during ``dag.test()``, kept to explain a failed task.

``dag.test()`` runs every task in this process and Airflow's task logger writes to
``sys.stdout``; nothing lands in a log file.  While a task runs, stdout and stderr are teed
(still printed as before) into a per-task buffer, so a failure message can show the task's
exception and the last lines of its log instead of only ``{'task': 'failed'}``.
"""

from __future__ import annotations

import collections
import contextlib
import io
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TextIO

__all__ = ["TaskOutput", "describe_failures", "split_traceback"]

_MAX_LINES = 2000
_TRACEBACK_LINES = 12
_LOG_LINES = 15


class _Tee(io.TextIOBase):
    def __init__(self, target: TextIO, sink: list[str]) -> None:
        self._target = target
        self._sink = sink

    def write(self, text: str) -> int:
        self._sink.append(text)
        return self._target.write(text)

    def flush(self) -> None:
        self._target.flush()

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:
        return self._target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._target, "encoding", "utf-8")


class TaskOutput:
    """``label -> last lines printed while that task ran`` (``task_id`` or ``task_id[map_index]``)."""

    def __init__(self) -> None:
        self.lines: dict[str, collections.deque[str]] = {}

    @contextlib.contextmanager
    def capture(self, label: str) -> Iterator[None]:
        chunks: list[str] = []
        out, err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Tee(out, chunks), _Tee(err, chunks)
        try:
            yield
        finally:
            sys.stdout, sys.stderr = out, err
            kept = self.lines.setdefault(label, collections.deque(maxlen=_MAX_LINES))
            kept.extend("".join(chunks).splitlines())

    def text(self, label: str) -> list[str]:
        return list(self.lines.get(label, ()))


def task_label(ti: Any) -> str:
    map_index = getattr(ti, "map_index", None)
    mapped = map_index is not None and map_index >= 0
    return f"{ti.task_id}[{map_index}]" if mapped else str(ti.task_id)


def split_traceback(lines: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the last traceback with its exception line, the log lines around it)."""
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
    if not starts:
        return [], list(lines)
    start = starts[-1]
    end = start + 1
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or lines[end].strip() == ""):
        end += 1
    end = min(end + 1, len(lines))  # the exception line itself
    return list(lines[start:end]), [*lines[:start], *lines[end:]]


def _indent(lines: Sequence[str]) -> str:
    return "\n".join("    " + line for line in lines)


def describe_failures(
    task_states: Mapping[str, str], output: TaskOutput, error_messages: Mapping[str, str]
) -> str:
    """One paragraph per failed task: its exception and the last lines of its log."""
    parts = []
    for label, state in task_states.items():
        if state != "failed":
            continue
        traceback, rest = split_traceback(output.text(label))
        paragraph = [f"task {label!r} failed"]
        if error_messages.get(label):
            paragraph.append(f"  exception: {error_messages[label]}")
        if traceback:
            shown = (
                traceback
                if len(traceback) <= _TRACEBACK_LINES
                else [traceback[0], "  ...", *traceback[-_TRACEBACK_LINES:]]
            )
            paragraph.append("  traceback:\n" + _indent(shown))
        if rest:
            paragraph.append(f"  last log lines:\n{_indent(rest[-_LOG_LINES:])}")
        parts.append("\n".join(paragraph))
    return "\n".join(parts)
