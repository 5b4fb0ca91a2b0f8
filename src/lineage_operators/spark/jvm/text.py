"""The separators of the texts JVM-side functions return, and splitting those texts in Python.

A function built by :class:`~lineage_operators.spark.jvm.tools.JvmTools` answers with one string per
call (records of fields, lists inside fields), so a whole plan crosses py4j in one reply. Both ways
of building functions (:mod:`~lineage_operators.spark.jvm.builders`) and every reader of their texts share
these.
"""

from __future__ import annotations

#: Between fields of one record.
SEP = "\u001f"
#: Between the items of a list inside one field.
SEP2 = "\u001e"
#: Between records.
RSEP = "\u001d"
#: Between the fields of a record nested inside a field.
SEP3 = "\u001c"
#: Between the fields of a catalog-table record (the innermost nesting level).
CTSEP = "\u0017"
#: Between the parts of the reply (the capture's other separators are used inside them).
PART = "\u0001"
#: A field that is absent (None, a failed cast, an exception).
NONE = "\u0015"


def split_records(text: str | None) -> list[list[str | None]]:
    """Parse ``mkString(RSEP)`` of records into field lists (:data:`NONE` -> None)."""
    if not text:
        return []
    return [[None if field == NONE else field for field in record.split(SEP)] for record in text.split(RSEP)]


def split_list(field: str | None) -> list[str]:
    """The items of a :data:`SEP2`-joined field."""
    if not field:
        return []
    return [item for item in field.split(SEP2) if item]


__all__ = ["CTSEP", "NONE", "PART", "RSEP", "SEP", "SEP2", "SEP3", "split_list", "split_records"]
