"""The files a task wrote through Spark Connect, and what a later read of them needs no server for.

Pure. A directory the task wrote needs no file listing to be named. A path whose files an
unpartitioned Parquet or ORC write replaced reads back with the written query's schema (those
formats store it; nullability, which the schema facet does not carry, is the only difference), so a
plain read of it (one path, no options, no user schema) takes that schema without an ``AnalyzePlan``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from lineage_operators.spark.connect.paths import has_glob, path_of
from lineage_operators.spark.connect.plans import SourceRead, WriteTarget

#: Formats whose files, written from a query without partitioning, read back with its schema.
SELF_DESCRIBING = frozenset({"parquet", "orc"})
#: Save modes after which the path holds only the written files.
REPLACING_MODES = frozenset({"overwrite", "error", None})


@dataclass
class WrittenFiles:
    directories: set[str] = field(default_factory=set)
    #: path -> (format, schema); schema None: expected from a write not resolved yet (prefetch)
    schemas: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    def copy(self) -> WrittenFiles:
        return copy.deepcopy(self)

    def add(self, write: WriteTarget, fmt: str, schema: str | None, *, expected: bool = False) -> None:
        """Record a file write that ran (``schema``: its query's) or, ``expected``, will be resolved."""
        if not write.path:
            return
        path = path_of(write.path)
        self.directories.add(path)
        replaces = fmt in SELF_DESCRIBING and not write.partitioned and write.mode in REPLACING_MODES
        if replaces and (schema or expected):
            self.schemas[path] = (fmt, schema)
        else:
            self.schemas.pop(path, None)

    def forget(self, write: WriteTarget) -> None:
        """A write that failed: its path's files are not known any more."""
        if write.path:
            self.schemas.pop(path_of(write.path), None)

    def known_directories(self, paths: tuple[str, ...]) -> bool:
        return bool(paths) and all(not has_glob(p) and path_of(p) in self.directories for p in paths)

    def _entry(self, read: SourceRead, fmt: str) -> tuple[str, str | None] | None:
        paths = read.paths or ((read.options["path"],) if "path" in read.options else ())
        if len(paths) != 1 or has_glob(paths[0]) or read.user_schema:
            return None
        if any(key.lower() != "path" for key in read.options):
            return None  # an option may change what is read (mergeSchema, recursiveFileLookup...)
        entry = self.schemas.get(path_of(paths[0]))
        return entry if entry is not None and entry[0] == fmt else None

    def reusable(self, read: SourceRead, fmt: str) -> bool:
        """Will a plain read in ``fmt`` of a written path take the write's schema?"""
        return self._entry(read, fmt) is not None

    def schema_of(self, read: SourceRead, fmt: str) -> str | None:
        entry = self._entry(read, fmt)
        return entry[1] if entry is not None else None


__all__ = ["REPLACING_MODES", "SELF_DESCRIBING", "WrittenFiles"]
