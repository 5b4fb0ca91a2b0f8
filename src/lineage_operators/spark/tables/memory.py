"""Where the catalog tables a capture has seen live, for the DROP that comes after them.

A DROP is reported after the table is gone, so its location comes from what the capture saw of
the table earlier in the task. The memory belongs to one capture (one task, one session): a
location learnt from another task, session or server in the same process is never used, since
the same ``db.table`` name can live in another catalog there (another Spark Connect server, the
local session's warehouse).
"""

from __future__ import annotations

import threading
from typing import Any

from lineage_operators.spark.facts import SESSION_CATALOG

#: Plenty for one task; bounds the memory of a task that creates tables in a loop.
MAX_TABLES = 10_000


class TableMemory:
    """(catalog, database, table) -> (location, provider) of the tables one capture saw."""

    def __init__(self, max_tables: int = MAX_TABLES) -> None:
        self._tables: dict[tuple[str, str | None, str], tuple[str | None, str | None]] = {}
        self._lock = threading.Lock()
        self._max = max_tables

    @staticmethod
    def _key(table: Any) -> tuple[str, str | None, str]:
        return (table.catalog or SESSION_CATALOG, table.database, table.table)

    def remember(self, table: Any, location: str | None, provider: str | None) -> None:
        """``table`` is a ``TableRef``; a table without location is not remembered."""
        if not location:
            return
        key = self._key(table)
        with self._lock:
            self._tables.pop(key, None)
            self._tables[key] = (location, provider)
            while len(self._tables) > self._max:  # oldest first
                self._tables.pop(next(iter(self._tables)))

    def known(self, table: Any) -> tuple[str | None, str | None] | None:
        with self._lock:
            return self._tables.get(self._key(table))

    def __len__(self) -> int:
        return len(self._tables)


__all__ = ["MAX_TABLES", "TableMemory"]
