"""openlineage-sql's column lineage of a Spark SQL statement -> the capture's column-lineage facts.

Pure. The classic capture hands the column-lineage layer (:mod:`lineage_operators.column_lineage`) a
``PlanColumnLineage`` whose sources are leaf attributes (``exprId``) and, on each input relation,
the ``exprId``s it outputs. Over Spark Connect there is no analyzed plan on the client, so the
statement's text stands in for it: each (input table, column) pair that openlineage-sql names gets a
made-up id, put on the input relations that table resolved to. From there naming, merging and the
``columnLineage`` facet are the classic ones, so the facet has the same shape.

What openlineage-sql does not give, and so the facet does not have (unlike a classic session's):
the transformation's subtype (IDENTITY / TRANSFORMATION / AGGREGATION: every dependency is reported
``DIRECT`` without one), and the dataset-wide ``INDIRECT`` dependencies (filters, join keys,
grouping, sorting). ``SELECT *`` has no column lineage in openlineage-sql.

Columns are matched to the datasets' schemas, case-insensitively, where the server gave them: the
output column names are the written table's (in its order), an input column that its table does
not have is given to the statement's only other input that has it (openlineage-sql assigns an
unqualified column of a join to the first table), else dropped. ``INSERT`` matches the query's
column names to the table's: openlineage-sql reports names, not positions.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from lineage_operators.column_lineage import PlanColumnLineage, SourceColumn, Transformation
from lineage_operators.spark.connect.sql import SqlTable
from lineage_operators.spark.facts import RelationFacts

#: What every dependency openlineage-sql reports is: it does not tell how the value is derived.
DIRECT_UNSPECIFIED = frozenset({Transformation("DIRECT", "")})


def column_names(schema_text: str | None) -> list[str] | None:
    """Top-level column names of a ``StructType.json``; None when unknown or unreadable."""
    if not schema_text:
        return None
    try:
        spec = json.loads(schema_text)
    except ValueError:
        return None
    if not isinstance(spec, dict) or spec.get("type") != "struct":
        return None
    return [str(f.get("name", "")) for f in spec.get("fields") or [] if isinstance(f, dict)]


def _lookup(names: Sequence[str] | None, column: str) -> str | None:
    """``column`` as the schema spells it; the name itself when the schema is unknown."""
    if names is None:
        return column
    lowered = column.lower()
    return next((n for n in names if n.lower() == lowered), None)


def _schema_of(relations: Sequence[RelationFacts]) -> list[str] | None:
    for rel in relations:
        names = column_names(rel.schema_text)
        if names is not None:
            return names
    return None


def sql_column_lineage(
    columns: Mapping[str, Sequence[tuple[SqlTable, str]]],
    sources: Mapping[SqlTable, Sequence[RelationFacts]],
    output_schema: str | None,
    ids: Any = None,
) -> PlanColumnLineage | None:
    """The written columns' lineage, with made-up ids added to the ``sources`` relations' ``expr_ids``.

    ``columns``: openlineage-sql's lineage (output column -> (input table, column)); ``sources``: the
    input tables whose relations carry their columns unchanged (tables, file paths, plain-read temp
    views), each with the relations it resolved to; ``output_schema``: the written dataset's schema.
    None when no written column depends on a source.
    """
    counter = ids if ids is not None else itertools.count(1)
    schemas = {table: _schema_of(rels) for table, rels in sources.items()}
    output_names = column_names(output_schema)
    fields: dict[str, dict[SourceColumn, frozenset[Transformation]]] = {
        name: {} for name in output_names or []
    }
    assigned: dict[tuple[SqlTable, str], SourceColumn] = {}

    def source_column(table: SqlTable, column: str) -> SourceColumn | None:
        owner, name = table, _lookup(schemas.get(table), column)
        if name is None:  # not a column of that table: the only other input having it
            having = [(t, n) for t in sources if t != table for n in [_lookup(schemas[t], column)] if n]
            if len(having) != 1 or schemas[having[0][0]] is None:
                return None
            owner, name = having[0]
        if (owner, name) not in assigned:
            source = assigned[(owner, name)] = SourceColumn(next(counter), name)
            for rel in sources[owner]:
                rel.expr_ids = (*rel.expr_ids, source.expr_id)
        return assigned[(owner, name)]

    for column, uses in columns.items():
        target = _lookup(output_names, column)
        if target is None:
            continue  # not a column of the written table (an INSERT's query naming it otherwise)
        deps = fields.setdefault(target, {})
        for table, used in uses:
            if table not in sources:
                continue
            source = source_column(table, used)
            if source is not None:
                deps[source] = DIRECT_UNSPECIFIED
    if not any(fields.values()):
        return None
    return PlanColumnLineage(fields=fields)


__all__ = ["DIRECT_UNSPECIFIED", "column_names", "sql_column_lineage"]
