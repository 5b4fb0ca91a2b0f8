"""Views as the Connect translation (``columns/``) reads them: a temp view's defining relation, and a
persistent view's stored SQL text parsed into one, so that reading a view by name gets the lineage
through it, as the analyzer expands a ``View`` in a classic session.

Pure but for the ``describe`` callback (the resolver's cached ``DESCRIBE TABLE EXTENDED``, which it
reads anyway for the view's inputs: no extra round trip). A persistent view's text is parsed with
:func:`~lineage_operators.spark.connect.columns.sql_relation.parse_query`; its unqualified table
names are put in the namespace the view was created in (Spark resolves them there, whatever the
reader's current database), and its output renamed to the view's own columns (``CREATE VIEW v (x,
y) AS ...``), as the analyzer's projection over the view's query does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from lineage_operators._logging import get_logger
from lineage_operators.spark.connect.columns.plan_exprs import Untranslatable
from lineage_operators.spark.connect.columns.sql_protos import new_rel
from lineage_operators.spark.connect.columns.sql_relation import Unsupported, parse_query
from lineage_operators.spark.connect.server import TableInfo
from lineage_operators.spark.connect.sql import SqlTable, parse_statement
from lineage_operators.spark.facts import SESSION_CATALOG

log = get_logger(__name__)


class ViewQueries(Mapping[str, Any]):
    """View name (as a read names it, lower case) -> the relation the translation reads instead:
    ``temp`` views by their unqualified name first, then a persistent view ``describe`` says is one."""

    def __init__(self, temp: Mapping[str, Any], describe: Callable[[str], TableInfo]) -> None:
        self.temp = temp
        self.describe = describe

    def __getitem__(self, name: str) -> Any:
        if "." not in name and name in self.temp:
            return self.temp[name]
        info = self.describe(name)
        if info.kind != "VIEW" or not info.view_text:
            raise KeyError(name)
        return view_relation(info)

    def __iter__(self) -> Iterator[str]:
        return iter(self.temp)

    def __len__(self) -> int:
        return len(self.temp)


def view_relation(info: TableInfo) -> Any:
    """The relation of a persistent view's text; raises ``Untranslatable`` (the read then gets no
    column lineage) when the parser does not map it or DESCRIBE gave no column names."""
    try:
        relation = parse_query(info.view_text or "").relation
    except Unsupported as exc:
        log.debug("lineage capture: a persistent view's text is not mapped: %s", exc)
        raise Untranslatable(f"a persistent view's text: {exc}") from exc
    if not info.columns:
        raise Untranslatable("a persistent view without its column names")
    namespace = view_namespace(info)
    if namespace:
        _qualify(relation, namespace)
    renamed = new_rel()
    renamed.to_df.input.CopyFrom(relation)
    renamed.to_df.column_names.extend(info.columns)
    return renamed


def view_namespace(info: TableInfo) -> str:
    """Where a view's unqualified names are (``db``, or ``catalog.db`` outside Spark's session
    catalog); empty when DESCRIBE does not say."""
    return (info.view_namespace or "").removeprefix(SESSION_CATALOG + ".")


def view_inputs(info: TableInfo) -> list[SqlTable]:
    """The tables a persistent view's text reads (openlineage-sql), unqualified ones in the view's
    namespace: Spark resolves them there, whatever the reader's current database."""
    catalog, _, database = view_namespace(info).rpartition(".")
    return [
        t if t.database or t.path or not database else replace(t, database=database, catalog=catalog or None)
        for t in parse_statement(info.view_text or "").inputs
    ]


def _qualify(message: Any, namespace: str) -> None:
    """Put the unqualified table reads under ``message`` (a protobuf, in place) in ``namespace``."""
    from google.protobuf.message import Message

    for descriptor, value in message.ListFields():
        if descriptor.message_type is None or descriptor.message_type.GetOptions().map_entry:
            continue
        for child in (value,) if isinstance(value, Message) else value:
            if descriptor.name == "named_table" and "." not in child.unparsed_identifier:
                child.unparsed_identifier = f"{namespace}.{child.unparsed_identifier}"
            else:
                _qualify(child, namespace)


__all__ = ["ViewQueries", "view_inputs", "view_namespace", "view_relation"]
