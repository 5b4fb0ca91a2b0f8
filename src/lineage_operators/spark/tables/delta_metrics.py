"""What a Delta commit wrote, from its own ``commitInfo``: the output statistics of a Delta write.

Why from the commit: Delta records each operation's metrics in the commit it writes
(``operationMetrics`` of the ``commitInfo`` action, the first line of ``_delta_log/<version>.json``),
whatever ran it (a path write, ``saveAsTable``, SQL, the ``DeltaTable`` API). Reading that one line
after the command is one file read on the driver, never a Spark job; Spark's own write metrics are
missing for most Delta commands (``MERGE``/``UPDATE``/``DELETE`` run their writes nested).

Each operation names its metrics differently (Delta 3.3, 4.0, 4.1 alike): :func:`commit_statistics`
maps them to the rows, bytes and files the commit *added* (what ``outputStatistics`` means for the
written dataset); rows a commit only removed (a ``DELETE``'s deleted rows) are not written rows,
and a ``RESTORE`` writes no data file (its metrics describe the restored table: no statistics).
Pure functions over the commit's JSON text.
"""

from __future__ import annotations

import json
from typing import Any

#: operation -> (rows, bytes, files) metric names; a tuple of names is summed.
_BY_OPERATION: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "MERGE": (("numOutputRows",), ("numTargetBytesAdded",), ("numTargetFilesAdded",)),
    "UPDATE": (("numUpdatedRows", "numCopiedRows"), ("numAddedBytes",), ("numAddedFiles",)),
    "DELETE": (("numCopiedRows",), ("numAddedBytes",), ("numAddedFiles",)),
    "OPTIMIZE": ((), ("numAddedBytes",), ("numAddedFiles",)),
}
#: writes of a query (WRITE, CREATE TABLE AS SELECT, REPLACE TABLE AS SELECT, STREAMING UPDATE...)
_WRITE = (("numOutputRows",), ("numOutputBytes",), ("numFiles",))

Statistics = tuple[int | None, int | None, int | None]


def commit_info(line: str | None) -> dict[str, Any] | None:
    """The ``commitInfo`` of a commit file's line, or None (another action, or not JSON)."""
    if not line:
        return None
    try:
        info = json.loads(line).get("commitInfo")
    except (ValueError, AttributeError):
        return None
    return info if isinstance(info, dict) else None


def commit_statistics(info: dict[str, Any] | None) -> Statistics | None:
    """Rows, bytes and files the commit added, from its ``operationMetrics``; None when it has none
    (metrics off, a commit of metadata only: ``CREATE TABLE``, ``SET TBLPROPERTIES``, ``VACUUM``)."""
    metrics = (info or {}).get("operationMetrics")
    if not isinstance(metrics, dict) or not metrics:
        return None
    names = _BY_OPERATION.get(str((info or {}).get("operation") or ""), _WRITE)
    rows, size, files = (_sum(metrics, keys) for keys in names)
    if rows is None and size is None and files is None:
        return None
    return rows, size, files


def _sum(metrics: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    values = [_int(metrics.get(key)) for key in keys]
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


__all__ = ["Statistics", "commit_info", "commit_statistics"]
