"""Spark SQL text (a query, CTAS, RTAS, ``INSERT ... SELECT``, a ``spark.sql(...)`` frame, the two sides
of a ``MERGE INTO``: :mod:`~lineage_operators.spark.connect.columns.sql_merge`) as Connect
``Relation`` protobufs, parsed with ``sqlglot``, so SQL gets the classic column lineage through
:mod:`~lineage_operators.spark.connect.columns.plan_translate` (one rule set for SQL and DataFrames).

Pure (pyspark's protobufs and sqlglot are imported lazily; sqlglot is in the ``connect`` extra).

Why sqlglot, and why Relations: a Connect server gives a client no analyzed plan of SQL text; the
one text it returns (``AnalyzePlan`` explain) is display text with truncated lists, elided
expressions and version-dependent formats: parsing it back is *more* of our own parsing, and
fragile. sqlglot is a maintained parser of the Spark dialect with a full AST (CTEs, subqueries,
set operations, windows, ``LATERAL VIEW``, grouping), so this module only maps AST nodes to the
``Relation`` the DataFrame API would send for them (``Read`` / ``SubqueryAlias`` / ``Join`` /
``Filter`` / ``Aggregate`` / ``Project`` / ``Sort`` / ``SetOperation`` / ``Deduplicate``), its
expressions as expression strings (sqlglot's Spark rendering) or ``Window`` / ``Alias`` protos.
Column names are then resolved by the translation against the schemas the resolver looks up on the
server (tables, temp views and their defining relations), exactly as for a DataFrame write: no
second name-resolution here.

Mapped as Spark's analyzer does: a CTE is inlined at each use (one used twice is two subtrees),
a subquery in ``FROM`` is a ``SubqueryAlias``, ``GROUP BY`` / ``ROLLUP`` / ``CUBE`` an aggregate
whose ``HAVING`` filters its (hidden) aggregate values, ``LATERAL VIEW`` a projected generator,
``UNION`` / ``INTERSECT`` / ``EXCEPT`` set operations by position, ``GROUP BY 1`` the item's
expression, a ``NATURAL`` join one ``USING`` the columns both sides have (the translation finds
them), ``GROUPING SETS`` / ``PIVOT`` the Connect aggregates of those group types
(:mod:`~lineage_operators.spark.connect.columns.sql_grouping`), ``UNPIVOT`` the Connect unpivot,
subqueries in ``WHERE``, join conditions, ``HAVING`` and named SELECT items (``IN`` / ``EXISTS`` /
scalar, correlated or not) placeholders over referenced Relations
(:mod:`~lineage_operators.spark.connect.columns.sql_subqueries`). Not mapped (:class:`Unsupported`,
with the reason; the statement keeps openlineage-sql's lineage): subqueries in ``ORDER BY`` or in
an unnamed SELECT item, ``VALUES`` and table functions, an ``UNPIVOT`` into several value columns,
windows inside aggregate queries or inside larger expressions.

Size: one mapping from sqlglot's AST to Relations, clause by clause (FROM and joins, WHERE,
grouping, windows, generators, set operations, ORDER BY, the statement kinds): the clauses share
the scope of the SELECT they belong to, and split apart they would pass it around whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lineage_operators.spark.connect.columns.expr_text import ExpressionSyntaxError, parse_expression
from lineage_operators.spark.connect.columns.plan_exprs import auto_name
from lineage_operators.spark.connect.columns.sql_grouping import grouping, pivoted
from lineage_operators.spark.connect.columns.sql_protos import (
    NATURAL_JOIN,
    Unsupported,
    item_expr,
    new_rel,
    text_expr,
    unaliased,
)
from lineage_operators.spark.connect.columns.sql_subqueries import without_subqueries
from lineage_operators.spark.connect.sql import as_create_or_replace

_FILE_FORMATS = frozenset({"parquet", "csv", "json", "orc", "text", "avro"})
#: (side, kind) of a sqlglot join -> Connect ``Join.JoinType``.
_JOIN_TYPES = {
    ("", ""): 1,
    ("", "INNER"): 1,
    ("", "CROSS"): 7,
    ("LEFT", ""): 3,
    ("LEFT", "OUTER"): 3,
    ("RIGHT", ""): 4,
    ("RIGHT", "OUTER"): 4,
    ("FULL", ""): 2,
    ("FULL", "OUTER"): 2,
    ("", "OUTER"): 2,
    ("LEFT", "SEMI"): 6,
    ("", "SEMI"): 6,
    ("LEFT", "ANTI"): 5,
    ("", "ANTI"): 5,
}
_GENERATORS = {"Explode": "explode", "Posexplode": "posexplode", "Inline": "inline"}


@dataclass(frozen=True)
class SqlQuery:
    """The written query of a statement; ``columns``: an INSERT's column list (None: the table's)."""

    relation: Any
    columns: tuple[str, ...] | None = None


def parse_query(text: str) -> SqlQuery:
    """The query a SQL statement writes or returns; raises :class:`Unsupported`."""
    import sqlglot
    from sqlglot import exp

    text = as_create_or_replace(text)  # an RTAS, as sqlglot reads it
    try:
        tree = sqlglot.parse_one(text, dialect="spark")
    except sqlglot.errors.SqlglotError as exc:
        raise Unsupported("SQL the parser does not read") from exc
    columns = None
    if isinstance(tree, exp.Insert):
        if tree.args.get("by_name") or tree.args.get("partition"):
            raise Unsupported("INSERT BY NAME or with a PARTITION clause")
        if isinstance(tree.this, exp.Schema):
            columns = tuple(i.name for i in tree.this.expressions)
        query = tree.expression
    elif isinstance(tree, exp.Create):
        query = tree.expression
    else:
        query = tree
    if not isinstance(query, exp.Query):
        raise Unsupported(f"a {type(tree).__name__} statement without a query")
    builder = _Builder()
    relation = builder.query(query, {})
    if builder.references:  # subqueries inside expressions: Relations the root refers to by plan id
        wrapped = new_rel()
        wrapped.with_relations.root.CopyFrom(relation)
        wrapped.with_relations.references.extend(builder.references.values())
        relation = wrapped
    return SqlQuery(relation, columns)


def source_relation(node: Any) -> Any:
    """A ``FROM`` item (a table, an aliased subquery) as a Relation; raises :class:`Unsupported`."""
    builder = _Builder()
    relation = builder.source(node, {})
    if builder.references:
        raise Unsupported("a subquery inside an expression of a MERGE source")
    return relation


def _no_subquery(node: Any, where: str) -> None:
    from sqlglot import exp

    if node is not None and node.find(exp.Subquery, exp.Exists, exp.Select) is not None:
        raise Unsupported(f"a subquery in {where}")


class _Builder:
    """sqlglot AST -> Relation; ``ctes``: the CTEs visible where a node is (name -> definition);
    ``references``: the Relations of subqueries inside expressions, by plan id."""

    def __init__(self) -> None:
        self.references: dict[int, Any] = {}

    def _subqueries(self, node: Any, ctes: Mapping[str, Any]) -> Any:
        """``node`` with its subqueries as placeholders (:mod:`.sql_subqueries`)."""

        def build(query: Any) -> int:
            relation = self.query(query, ctes)
            ident = relation.common.plan_id = len(self.references) + 1
            self.references[ident] = relation
            return ident

        return without_subqueries(node, build)

    def query(self, node: Any, ctes: Mapping[str, Any]) -> Any:
        from sqlglot import exp

        with_ = node.args.get("with_") or node.args.get("with")
        if with_ is not None:
            if with_.args.get("recursive"):
                raise Unsupported("a recursive CTE")
            ctes = dict(ctes)
            for cte in with_.expressions:
                ctes[cte.alias_or_name.lower()] = (cte.this, dict(ctes))
        if isinstance(node, exp.Subquery):
            relation = self.query(node.this, ctes)
        elif isinstance(node, exp.Select):
            return self.select(node, ctes)
        elif isinstance(node, exp.SetOperation):
            relation = self.set_operation(node, ctes)
        else:
            raise Unsupported(f"a {type(node).__name__} query")
        return self._order(relation, node, [])

    def set_operation(self, node: Any, ctes: Mapping[str, Any]) -> Any:
        from sqlglot import exp

        if node.args.get("by_name") or node.args.get("side") or node.args.get("kind"):
            raise Unsupported("a set operation by name")
        relation = new_rel()
        op = relation.set_op
        op.left_input.CopyFrom(self.query(node.this, ctes))
        op.right_input.CopyFrom(self.query(node.expression, ctes))
        op.set_op_type = {exp.Intersect: 1, exp.Union: 2, exp.Except: 3}[type(node)]  # type: ignore[assignment]
        op.is_all = not node.args.get("distinct")
        return relation

    # -- FROM ----------------------------------------------------------------------------------

    def source(self, node: Any, ctes: Mapping[str, Any]) -> Any:
        from sqlglot import exp

        pivots = node.args.get("pivots")
        if pivots:
            if len(pivots) != 1 or node.alias:
                raise Unsupported("several PIVOTs, or a PIVOT of an aliased source")
            node = node.copy()
            node.set("pivots", None)
            return pivoted(self.source(node, ctes), pivots[0])
        alias = node.alias
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            name = node.name.lower()
            if not node.db and name in ctes:
                body, outer = ctes[name]
                relation = self.query(body, outer)
                alias = alias or node.name
            elif node.db.lower() in _FILE_FORMATS and not node.catalog and node.this.quoted:
                relation = new_rel()
                relation.read.data_source.format = node.db.lower()
                relation.read.data_source.paths.append(node.name)
            else:
                relation = new_rel()
                relation.read.named_table.unparsed_identifier = ".".join(
                    part.sql(dialect="spark") for part in node.parts
                )
        elif isinstance(node, exp.Subquery):
            relation = self.query(node, ctes)
        else:
            raise Unsupported(f"a {type(node).__name__} in FROM")
        if alias:
            aliased = new_rel()
            aliased.subquery_alias.input.CopyFrom(relation)
            aliased.subquery_alias.alias = alias
            relation = aliased
        return relation

    def from_(self, node: Any, ctes: Mapping[str, Any]) -> Any:
        from_ = node.args.get("from_") or node.args.get("from")
        if from_ is None:
            if node.args.get("joins"):
                raise Unsupported("joins without FROM")
            return None
        relation = self.source(from_.this, ctes)
        for join in node.args.get("joins") or []:
            method = str(join.args.get("method") or "").upper()
            if method not in ("", "NATURAL"):
                raise Unsupported(f"a {method} join")
            key = (str(join.args.get("side") or "").upper(), str(join.args.get("kind") or "").upper())
            join_type = _JOIN_TYPES.get(key)
            if join_type is None:
                raise Unsupported(f"join {' '.join(key)}")
            joined = new_rel()
            joined.join.left.CopyFrom(relation)
            joined.join.right.CopyFrom(self.source(join.this, ctes))
            joined.join.join_type = join_type  # type: ignore[assignment]
            if join.args.get("on") is not None:
                condition = self._subqueries(join.args["on"], ctes)
                joined.join.join_condition.CopyFrom(text_expr(condition.sql(dialect="spark")))
            joined.join.using_columns.extend(i.name for i in join.args.get("using") or [])
            if method == "NATURAL":  # on the columns both sides have: the translation finds them
                joined.join.using_columns.append(NATURAL_JOIN)
            relation = joined
        for lateral in node.args.get("laterals") or []:
            relation = self._lateral(relation, lateral)
        return relation

    def _lateral(self, relation: Any, lateral: Any) -> Any:
        from pyspark.sql.connect.proto import expressions_pb2

        generator = lateral.this
        name = _GENERATORS.get(type(generator).__name__.removesuffix("Outer"))
        if name is None or not lateral.args.get("view"):
            raise Unsupported("a LATERAL that is not a LATERAL VIEW of explode / posexplode / inline")
        if lateral.args.get("outer") or type(generator).__name__.endswith("Outer"):
            name += "_outer"
        args = ", ".join(a.sql(dialect="spark") for a in generator.iter_expressions())
        names = [i.name for i in (lateral.args["alias"].columns if lateral.args.get("alias") else [])]
        projected = new_rel()
        projected.project.input.CopyFrom(relation)
        star = expressions_pb2.Expression()
        star.unresolved_star.SetInParent()
        projected.project.expressions.append(star)
        item = expressions_pb2.Expression()
        item.alias.expr.CopyFrom(text_expr(f"{name}({args})"))
        item.alias.name.extend(names or ["col"])
        projected.project.expressions.append(item)
        return projected

    # -- SELECT --------------------------------------------------------------------------------

    def select(self, node: Any, ctes: Mapping[str, Any]) -> Any:
        from sqlglot import exp

        for unsupported in ("qualify", "windows", "distribute", "cluster", "sort", "prewhere"):
            if node.args.get(unsupported):
                raise Unsupported(f"{unsupported.upper()} in a SELECT")
        relation = self.from_(node, ctes)
        where = node.args.get("where")
        if where is not None:
            filtered = new_rel()
            filtered.filter.input.CopyFrom(relation)
            condition = self._subqueries(where.this, ctes)
            filtered.filter.condition.CopyFrom(text_expr(condition.sql(dialect="spark")))
            relation = filtered
        items = list(node.expressions)
        group, having = node.args.get("group"), node.args.get("having")
        for index, item in enumerate(items):
            if not isinstance(item, exp.Alias):
                _no_subquery(item, "an unnamed SELECT item")
            items[index] = self._subqueries(item, ctes)
        if group is not None or having is not None:
            if any(item.find(exp.Window) for item in items):
                raise Unsupported("a window in an aggregate query")
            having = having and self._subqueries(having, ctes)
            relation = self._aggregate(relation, items, group, having)
        else:
            if relation is not None and node.args.get("distinct") is None and _hidden_sort(node, items):
                relation = self._order(relation, node, [])  # sorted by columns the SELECT drops
                node = node.copy()
                node.set("order", None)
            projected = new_rel()
            if relation is not None:
                projected.project.input.CopyFrom(relation)
            projected.project.expressions.extend(item_expr(i) for i in items)
            relation = projected
        if node.args.get("distinct") is not None:
            if node.args["distinct"].args.get("on"):
                raise Unsupported("DISTINCT ON")
            deduplicated = new_rel()
            deduplicated.deduplicate.input.CopyFrom(relation)
            deduplicated.deduplicate.all_columns_as_keys = True
            relation = deduplicated
        return self._order(relation, node, items)

    def _aggregate(self, relation: Any, items: list[Any], group: Any, having: Any) -> Any:
        """An aggregate (keys, the SELECT items, HAVING's other aggregates) renamed ``_k`` / ``_v`` /
        ``_h``, filtered by HAVING over those names, projected to the items under their names."""
        group_type, keys, sets = grouping(group, items)
        hidden: list[Any] = []
        condition = None
        if having is not None:
            condition = having.this.transform(lambda n: _having_term(n, items, keys, hidden))
        grouped = new_rel()
        if relation is not None:
            grouped.aggregate.input.CopyFrom(relation)
        grouped.aggregate.group_type = group_type
        grouped.aggregate.grouping_expressions.extend(text_expr(k.sql(dialect="spark")) for k in keys)
        for members in sets:
            grouped.aggregate.grouping_sets.add().grouping_set.extend(
                text_expr(m.sql(dialect="spark")) for m in members
            )
        grouped.aggregate.aggregate_expressions.extend(item_expr(i) for i in [*items, *hidden])
        renamed = new_rel()
        renamed.to_df.input.CopyFrom(grouped)
        renamed.to_df.column_names.extend(
            [f"_k{i}" for i in range(len(keys))]
            + [f"_v{i}" for i in range(len(items))]
            + [f"_h{i}" for i in range(len(hidden))]
        )
        relation = renamed
        if condition is not None:
            filtered = new_rel()
            filtered.filter.input.CopyFrom(relation)
            filtered.filter.condition.CopyFrom(text_expr(condition.sql(dialect="spark")))
            relation = filtered
        projected = new_rel()
        projected.project.input.CopyFrom(relation)
        for index, item in enumerate(items):
            name = _output_name(item)
            projected.project.expressions.append(text_expr(f"_v{index} AS `{name.replace('`', '``')}`"))
        return projected

    def _order(self, relation: Any, node: Any, items: list[Any]) -> Any:
        """ORDER BY (positions: the items' output columns); LIMIT / OFFSET pass rows through."""
        from pyspark.sql.connect.proto import expressions_pb2
        from sqlglot import exp

        order = node.args.get("order")
        if order is None:
            return relation
        ordered = new_rel()
        ordered.sort.input.CopyFrom(relation)
        ordered.sort.is_global = True
        for term in order.expressions:
            key = term.this
            _no_subquery(key, "ORDER BY")
            if isinstance(key, exp.Literal) and key.is_int:
                index = int(key.name) - 1
                names = [_output_name(i) for i in items] if items else None
                if names is None or not 0 <= index < len(names):
                    raise Unsupported("ORDER BY a position of a set operation")
                text = f"`{names[index].replace('`', '``')}`"
            else:
                text = key.sql(dialect="spark")
            sort = ordered.sort.order.add()
            sort.child.CopyFrom(text_expr(text))
            sort.direction = (  # type: ignore[assignment]
                expressions_pb2.Expression.SortOrder.SORT_DIRECTION_DESCENDING
                if term.args.get("desc")
                else expressions_pb2.Expression.SortOrder.SORT_DIRECTION_ASCENDING
            )
        return ordered


def _hidden_sort(node: Any, items: list[Any]) -> bool:
    """Does ORDER BY name a column the SELECT list does not output? (Spark sorts before it
    projects the column away; the sort is then put under the projection, as Spark's plan has it.)"""
    from sqlglot import exp

    order = node.args.get("order")
    if order is None or any(isinstance(i, exp.Star) or i.find(exp.Star) for i in items):
        return False
    try:
        outputs = {_output_name(i).lower() for i in items}
    except Unsupported:
        return False
    keys = [term.this for term in order.expressions]
    if any(isinstance(k, exp.Literal) and k.is_int for k in keys):
        return False
    aliases = {i.alias.lower() for i in items if isinstance(i, exp.Alias)}
    columns = [c for k in keys for c in k.find_all(exp.Column)]
    if any(not c.table and c.name.lower() in aliases for c in columns):
        return False  # sorted by an alias the SELECT makes: after the projection
    return any(c.table or c.name.lower() not in outputs for c in columns)


def _having_term(node: Any, items: list[Any], keys: list[Any], hidden: list[Any]) -> Any:
    """A HAVING sub-expression over the aggregate's renamed output: an item (by expression or
    alias), a key, or a hidden aggregate added for it."""
    from sqlglot import exp

    for index, item in enumerate(items):
        if node == unaliased(item) or (
            isinstance(node, exp.Column)
            and not node.table
            and isinstance(item, exp.Alias)
            and item.alias.lower() == node.name.lower()
        ):
            return exp.column(f"_v{index}")
    for index, key in enumerate(keys):
        if node == key:
            return exp.column(f"_k{index}")
    if isinstance(node, exp.AggFunc):
        hidden.append(node.copy())
        return exp.column(f"_h{len(hidden) - 1}")
    return node


def _output_name(item: Any) -> str:
    """The column name Spark gives a SELECT item (its alias, column name, else its text)."""
    from sqlglot import exp

    if isinstance(item, exp.Alias):
        return str(item.alias)
    if isinstance(item, exp.Column) and not isinstance(item.this, exp.Star):
        return str(item.name)
    try:
        return auto_name(parse_expression(item.sql(dialect="spark")))
    except ExpressionSyntaxError as exc:
        raise Unsupported("an item without a name") from exc


__all__ = ["SqlQuery", "Unsupported", "parse_query", "source_relation"]
