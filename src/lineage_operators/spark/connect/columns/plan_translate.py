"""A Connect ``Relation`` tree -> the analyzed-plan JSON the classic column-lineage engine walks.

Pure (the leaves' schemas come from a callback). Over Spark Connect the client holds the whole
unresolved plan of a DataFrame write; this resolves its column names against the leaves' schemas
and renders each operator as the node the *classic* analyzer makes of it (``Project``, ``Filter``,
``Join``, ``Aggregate``, ``Union``, ``Expand``...), so the classic rules
(:mod:`lineage_operators.column_lineage`) compute the lineage: one rule set for both sessions.

Operators are mapped as Spark's analyzer does: ``withColumn(s)`` / ``drop`` / ``withColumnRenamed``
/ ``toDF`` are projections, a join ``using`` columns (SQL's ``NATURAL``: those both sides have) a
join on equal keys under a projection (``coalesce`` of both keys for a full outer join), ``unpivot``
an ``Expand``, ``distinct`` / ``dropDuplicates`` a ``Deduplicate``, ``union`` without ALL a
``Distinct`` over the union, a pivot the analyzer's two aggregates
(:mod:`~lineage_operators.spark.connect.columns.plan_pivot`); limits, samples, repartitions and
hints pass their input through. A temp view read by name is replaced by the plan that defined it (as
the analyzer inlines it).

A ``spark.sql(...)`` relation is translated from its query's Relations
(:mod:`~lineage_operators.spark.connect.columns.sql_relation`, parsed with sqlglot); its subqueries
inside expressions (``WithRelations`` references) become the analyzer's ``InSubquery`` /
``Exists`` / ``ScalarSubquery`` holding their translated plans, outer columns ``OuterReference``.
Not translated (:class:`~lineage_operators.spark.connect.columns.plan_exprs.Untranslatable`: that write gets
no column lineage): SQL that module does not map, lambdas, Python UDTFs, ``mapInPandas`` and the like.

Size: one translation per Connect relation kind (project, filter, join, aggregate, set
operations, ...); they share the scope of resolved columns, as the analyzer does.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from lineage_operators.spark.connect.columns.expr_sql import literals_kept
from lineage_operators.spark.connect.columns.expr_text import filtered_collection, holds_collection_built
from lineage_operators.spark.connect.columns.plan_exprs import (
    AGGREGATES,
    LITERAL,
    Attr,
    Json,
    Scope,
    Untranslatable,
    attr_json,
    node,
    sort_term,
    term_of,
    with_text,
)
from lineage_operators.spark.connect.columns.plan_pivot import pivot
from lineage_operators.spark.connect.columns.sql_protos import NATURAL_JOIN
from lineage_operators.spark.connect.columns.sql_relation import Unsupported, parse_query
from lineage_operators.spark.connect.columns.sql_subqueries import PLACEHOLDER
from lineage_operators.spark.connect.plans import TableRead, collect_reads

#: A leaf (a file/JDBC read, a table read, or any other leaf relation) -> its ``StructType.json``.
LeafSchema = Callable[[Any], "str | None"]

_JOIN_TYPES = {
    0: "Inner",
    1: "Inner",
    2: "FullOuter",
    3: "LeftOuter",
    4: "RightOuter",
    5: "LeftAnti",
    6: "LeftSemi",
    7: "Cross",
}
_PASS_THROUGH = frozenset(
    {
        "limit",
        "offset",
        "tail",
        "sample",
        "repartition",
        "repartition_by_expression",
        "hint",
        "with_watermark",
        "collect_metrics",
    }
)
_MAX_VIEW_DEPTH = 8


@dataclass
class Translation:
    """The plan JSON, its output attributes and, per read leaf, the attribute ids it outputs."""

    plan: Json
    output: list[Attr]
    leaves: list[tuple[Any, tuple[int, ...]]] = field(default_factory=list)


def _fields(schema_text: str | None) -> list[tuple[str, Any]]:
    if not schema_text:
        raise Untranslatable("a leaf without a schema")
    spec = json.loads(schema_text)
    if not isinstance(spec, dict) or spec.get("type") != "struct":
        raise Untranslatable("a leaf schema that is not a struct")
    return [(str(f.get("name", "")), f.get("type")) for f in spec.get("fields") or []]


class _Translator:
    def __init__(
        self,
        leaf_schema: LeafSchema,
        views: Mapping[str, Any],
        ids: Iterator[int],
        describe: bool = False,
        optimized: bool = True,
    ) -> None:
        self.describe = describe
        self.optimized = optimized
        self.leaf_schema = leaf_schema
        self.views = views
        self.ids = ids
        self.by_plan: dict[int, list[Attr]] = {}
        self.leaves: list[tuple[Any, tuple[int, ...]]] = []
        self.view_depth = 0
        self.references: dict[int, Any] = {}
        self.outer: list[list[Attr]] = []
        self.built: set[int] = set()  # attributes holding a collection built in the query

    def scope(self, attrs: list[Attr]) -> Scope:
        outer = self.outer[-1] if self.outer else []
        return Scope(attrs, self.by_plan, self.ids, self.describe, outer, self._subquery)

    def _with_relations(self, rel: Any) -> tuple[Json, list[Attr]]:
        """A root and the relations it refers to by plan id (subqueries of SQL expressions)."""
        for reference in rel.references:
            if reference.HasField("common") and reference.common.HasField("plan_id"):
                self.references[reference.common.plan_id] = reference
        return self.relation(rel.root)

    def _subquery(self, name: str, values: list[Json], scope: Scope) -> Json:
        """A subquery placeholder (:mod:`.sql_subqueries`) as the classic analyzer's expression
        holding the subquery's plan; its plan sees the enclosing query's columns as outer ones."""
        found = PLACEHOLDER.fullmatch(name)
        reference = self.references.get(int(found.group(2))) if found else None
        if found is None or reference is None:
            raise Untranslatable("a subquery without its relation")
        self.outer.append(scope.attrs + scope.outer)
        try:
            plan, _ = self.relation(reference)
        finally:
            self.outer.pop()
        kind = found.group(1)
        if kind == "in":
            return node("InSubquery", [*values, node("ListQuery", [], plan=plan)])
        return node("Exists" if kind == "exists" else "ScalarSubquery", [], plan=plan)

    def _items(self, named: list[tuple[Attr, Json | None]]) -> list[Json]:
        """Project list entries (a column passed as is: its attribute, with its text if wanted)."""
        scope = self.scope([])
        return [scope.item(attr, rendered) for attr, rendered in named]

    def relation(self, rel: Any) -> tuple[Json, list[Attr]]:
        kind = rel.WhichOneof("rel_type")
        method = getattr(self, f"_{kind}", None)
        if kind in _PASS_THROUGH:
            plan, attrs = self.relation(getattr(rel, kind).input)
        elif method is None:
            raise Untranslatable(f"relation {kind}")
        else:
            plan, attrs = method(getattr(rel, kind))
        if rel.HasField("common") and rel.common.HasField("plan_id"):
            self.by_plan[rel.common.plan_id] = attrs
        return plan, attrs

    # -- leaves ----------------------------------------------------------------------------------

    def _leaf(
        self, item: Any, names: list[tuple[str, Any]], qualifier: str | None = None
    ) -> tuple[Json, list[Attr]]:
        qualifiers = frozenset({qualifier}) if qualifier else frozenset()
        attrs = [Attr(next(self.ids), name, data_type, qualifiers) for name, data_type in names]
        if item is not None:
            self.leaves.append((item, tuple(a.ident for a in attrs)))
        return node("LogicalRelation", [], output=[attr_json(a) for a in attrs]), attrs

    def _read(self, read: Any) -> tuple[Json, list[Attr]]:
        from pyspark.sql.connect.proto import relations_pb2

        wrapper = relations_pb2.Relation()
        wrapper.read.CopyFrom(read)
        found, _ = collect_reads(wrapper)
        if len(found) != 1:
            raise Untranslatable("a read without a source")
        item = found[0]
        if isinstance(item, TableRead):
            name = item.name.strip("`").lower()
            view = self.views.get(name)  # a temp view, or a persistent one (connect.persistent_views)
            if view is not None:
                if self.view_depth >= _MAX_VIEW_DEPTH:
                    raise Untranslatable("views nested too deep")
                self.view_depth += 1
                try:
                    plan, attrs = self.relation(view)
                finally:
                    self.view_depth -= 1
                qualified = [replace(a, qualifiers=frozenset({name.rsplit(".", 1)[-1]})) for a in attrs]
                return node("SubqueryAlias", [plan]), qualified
            return self._leaf(item, _fields(self.leaf_schema(item)), name.rsplit(".", 1)[-1])
        return self._leaf(item, _fields(self.leaf_schema(item)))

    def _sql(self, rel: Any) -> tuple[Json, list[Attr]]:
        """``spark.sql("SELECT ...")`` inside a DataFrame plan: its query as Relations
        (:mod:`~lineage_operators.spark.connect.columns.sql_relation`); parameters cannot be."""
        if rel.args or rel.pos_args or rel.named_arguments or rel.pos_arguments:
            raise Untranslatable("a SQL relation with parameters")
        try:
            query = parse_query(rel.query)
        except Unsupported as exc:
            raise Untranslatable(f"SQL: {exc}") from exc
        if query.columns is not None:
            raise Untranslatable("a SQL relation that is an INSERT")
        return self.relation(query.relation)

    def _range(self, rel: Any) -> tuple[Json, list[Attr]]:
        return self._leaf(None, [("id", "long")])

    def _local_relation(self, rel: Any) -> tuple[Json, list[Attr]]:
        from pyspark.sql.connect.proto import relations_pb2

        wrapper = relations_pb2.Relation()
        wrapper.local_relation.CopyFrom(rel)
        return self._leaf(None, _fields(self.leaf_schema(wrapper)))

    # -- operators -------------------------------------------------------------------------------

    def _input(self, message: Any) -> tuple[Json, list[Attr]]:
        if message.HasField("input"):
            return self.relation(message.input)
        return node("OneRowRelation", []), []

    def _projection(self, child: Json, named: list[tuple[Attr, Json | None]]) -> tuple[Json, list[Attr]]:
        return node("Project", [child], projectList=self._items(named)), [attr for attr, _ in named]

    def _project(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self._input(rel)
        scope = self.scope(attrs)
        terms = [term_of(expr) for expr in rel.expressions]
        if any(_aggregates(term) for term in terms):  # select(sum(x)): a global aggregate
            named = [pair for term in terms for pair in scope.named(term, aggregating=True)]
            plan = node("Aggregate", [child], groupingExpressions=[], aggregateExpressions=self._items(named))
            return plan, [attr for attr, _ in named]
        return self._projection(self._generator_filters(child, scope, terms), self._named(scope, terms))

    def _named(self, scope: Scope, terms: list[Any]) -> list[tuple[Attr, Json | None]]:
        """The projected terms' attributes, noting those that hold a collection built in the query."""
        named: list[tuple[Attr, Json | None]] = []
        for term in terms:
            pairs = scope.named(term)
            if len(pairs) == 1 and self._holds_built(scope, term):
                self.built.add(pairs[0][0].ident)
            named.extend(pairs)
        return named

    def _holds_built(self, scope: Scope, term: Any) -> bool:
        while term[0] in ("alias", "cast"):
            term = term[1]
        if term[0] == "col":
            attr, nested = scope.lookup(term[1], term[2])
            return not nested and attr.ident in self.built
        return holds_collection_built(term)

    def _generator_filters(self, child: Json, scope: Scope, terms: list[Any]) -> Json:
        """The filter Spark's optimizer infers under a projected ``explode``/``posexplode``/``inline``
        of a column (InferFiltersFromGenerate), as a ``Filter`` on that column: none for a generator
        of an expression or of a column holding a collection built in the query, none where the
        plan is read as analyzed (``optimized`` False: a V1 CTAS, the engine's ``lineage_of_plan``)."""
        if not self.optimized:
            return child
        for collection in filter(None, map(filtered_collection, terms)):
            attr, nested = scope.lookup(collection[1], collection[2])
            if not nested and attr.ident not in self.built:
                child = node("Filter", [child], condition=scope.render(collection))
        return child

    def _filter(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        condition = self.scope(attrs).top(term_of(rel.condition))
        return node("Filter", [child], condition=condition), attrs

    def _sort(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        scope = self.scope(attrs)
        order = [scope.top(sort_term(o)) for o in rel.order]
        return node("Sort", [child], order=order), attrs

    def _join(self, rel: Any) -> tuple[Json, list[Attr]]:
        left_plan, left = self.relation(rel.left)
        right_plan, right = self.relation(rel.right)
        kind = _JOIN_TYPES.get(rel.join_type)
        if kind is None:
            raise Untranslatable(f"join type {rel.join_type}")
        join_type = {"object": f"org.apache.spark.sql.catalyst.plans.{kind}$"}
        scope = self.scope(left + right)
        keys: list[tuple[Attr, Attr]] = []
        condition: Json | None = None
        using = list(rel.using_columns)
        if using == [NATURAL_JOIN]:  # SQL's NATURAL join: USING the columns both sides have
            right_names = {a.name.lower() for a in right}
            using = list(dict.fromkeys(a.name for a in left if a.name.lower() in right_names))
        if using:
            for name in using:
                pair = (self.scope(left).lookup((name,), None)[0], self.scope(right).lookup((name,), None)[0])
                keys.append(pair)
                equal = node("EqualTo", [attr_json(pair[0]), attr_json(pair[1])])
                texts = [scope.attr_text(a) for a in pair]
                equal = with_text(equal, f"({texts[0]} = {texts[1]})" if self.describe else None)
                if condition is not None:
                    both = f"({condition[0].get('sql')} AND {equal[0].get('sql')})" if self.describe else None
                    equal = with_text(node("And", [condition, equal]), both)
                condition = equal
        elif rel.HasField("join_condition"):
            condition = scope.top(term_of(rel.join_condition))
        fields: dict[str, Any] = {"joinType": join_type}
        if condition is not None:
            fields["condition"] = condition
        plan = node("Join", [left_plan, right_plan], **fields)
        if kind in ("LeftSemi", "LeftAnti"):
            return plan, left
        if not keys:
            return plan, left + right
        # USING: the keys once (the left's; the right's for a right join; coalesced for a full one)
        named: list[tuple[Attr, Json | None]] = []
        for left_key, right_key in keys:
            if kind == "RightOuter":
                named.append((right_key, None))
            elif kind == "FullOuter":
                attr = Attr(next(self.ids), left_key.name)
                value = node("Coalesce", [attr_json(left_key), attr_json(right_key)])
                alias = node("Alias", [value], name=attr.name, exprId={"id": attr.ident})
                if self.describe:
                    keys_text = ", ".join(scope.attr_text(a) for a in (left_key, right_key))
                    alias = with_text(alias, f"coalesce({keys_text}) AS {scope.attr_text(attr)}")
                named.append((attr, alias))
            else:
                named.append((left_key, None))
        used = {a.ident for pair in keys for a in pair}
        named.extend((a, None) for a in left + right if a.ident not in used)
        return self._projection(plan, named)

    def _set_op(self, rel: Any) -> tuple[Json, list[Attr]]:
        left_plan, left = self.relation(rel.left_input)
        right_plan, right = self.relation(rel.right_input)
        op = rel.set_op_type
        if op == 2:  # UNION
            if rel.by_name:
                right_plan, right = self._by_name(right_plan, right, left, rel.allow_missing_columns)
            if len(left) != len(right):
                raise Untranslatable("a union of different widths")
            plan = node("Union", [left_plan, right_plan])
            return (plan if rel.is_all else node("Distinct", [plan])), left
        if op in (1, 3):
            cls = "Intersect" if op == 1 else "Except"
            return node(cls, [left_plan, right_plan], isAll=bool(rel.is_all)), left
        raise Untranslatable(f"set operation {op}")

    def _by_name(
        self, plan: Json, attrs: list[Attr], names: list[Attr], allow_missing: bool
    ) -> tuple[Json, list[Attr]]:
        by_name = {a.name.lower(): a for a in attrs}
        named: list[tuple[Attr, Json | None]] = []
        for target in names:
            found = by_name.get(target.name.lower())
            if found is not None:
                named.append((found, None))
            elif allow_missing:
                attr = Attr(next(self.ids), target.name)
                named.append((attr, node("Alias", [LITERAL], name=attr.name, exprId={"id": attr.ident})))
            else:
                raise Untranslatable(f"unionByName: no column {target.name}")
        return self._projection(plan, named)

    def _aggregate(self, rel: Any) -> tuple[Json, list[Attr]]:
        if rel.group_type not in (0, 1, 2, 3, 4, 5):
            raise Untranslatable(f"aggregate group type {rel.group_type}")
        child, attrs = self.relation(rel.input)
        if rel.group_type == 4:  # PIVOT: the analyzer's two aggregates (plan_pivot)
            return pivot(rel, child, attrs, scope=self.scope, items=self._items, ids=self.ids)
        # ROLLUP / CUBE / GROUPING SETS: the classic Expand under the aggregate feeds each key
        # from its column and the grouping id from nothing: the same lineage as grouping by the keys
        scope = self.scope(attrs)
        grouping = [term_of(e) for e in rel.grouping_expressions]
        named = [pair for term in grouping for pair in scope.named(term)]
        for expr in rel.aggregate_expressions:
            named += scope.named(term_of(expr), aggregating=True)
        plan = node(
            "Aggregate",
            [child],
            groupingExpressions=[scope.top(term) for term in grouping],
            aggregateExpressions=self._items(named),
        )
        return plan, [attr for attr, _ in named]

    def _deduplicate(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        if rel.all_columns_as_keys or not rel.column_names:
            keys = attrs
        else:
            scope = self.scope(attrs)
            keys = [scope.lookup((name,), None)[0] for name in rel.column_names]
        return node("Deduplicate", [child], keys=[attr_json(a) for a in keys]), attrs

    def _subquery_alias(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        alias = frozenset({rel.alias.lower()})
        return node("SubqueryAlias", [child]), [replace(a, qualifiers=alias) for a in attrs]

    def _to_df(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        if len(rel.column_names) != len(attrs):
            raise Untranslatable("toDF with another number of columns")
        return child, [replace(a, name=name) for a, name in zip(attrs, rel.column_names, strict=True)]

    def _with_columns_renamed(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        renames = [(r.col_name, r.new_col_name) for r in rel.renames] or list(rel.rename_columns_map.items())
        for old, new in renames:
            attrs = [replace(a, name=new) if a.name.lower() == old.lower() else a for a in attrs]
        return child, attrs

    def _drop(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        scope = self.scope(attrs)
        dropped = {name.lower() for name in rel.column_names}
        idents = set()
        for expr in rel.columns:
            term = term_of(expr)
            if term[0] == "col":
                try:
                    idents.add(scope.lookup(term[1], term[2])[0].ident)
                except Untranslatable:
                    continue  # dropping a column that is not there is a no-op
        kept = [a for a in attrs if a.name.lower() not in dropped and a.ident not in idents]
        return self._projection(child, [(a, None) for a in kept])

    def _with_columns(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        scope = self.scope(attrs)
        named: list[tuple[Attr, Json | None]] = [(a, None) for a in attrs]
        terms = [("alias", term_of(alias.expr), tuple(alias.name)) for alias in rel.aliases]
        child = self._generator_filters(child, scope, terms)
        for term in terms:
            for attr, rendered in self._named(scope, [term]):
                at = next((i for i, (a, _) in enumerate(named) if a.name.lower() == attr.name.lower()), None)
                if at is None:
                    named.append((attr, rendered))
                else:
                    named[at] = (attr, rendered)
        return self._projection(child, named)

    def _unpivot(self, rel: Any) -> tuple[Json, list[Attr]]:
        child, attrs = self.relation(rel.input)
        scope = self.scope(attrs)
        ids = [term_of(e) for e in rel.ids]
        values = [term_of(e) for e in rel.values.values] if rel.HasField("values") else None
        if values is not None and [t[0] for t in ids] == ["star"]:  # SQL: the columns not unpivoted
            taken = {scope.lookup(v[1], v[2])[0].ident for v in values if v[0] == "col"}
            ids = [("col", (a.name,), None) for a in attrs if a.ident not in taken]
        id_attrs = [attr for term in ids for attr, _ in scope.named(term)]
        if values is None:
            taken = {a.ident for a in id_attrs}
            values = [("col", (a.name,), None) for a in attrs if a.ident not in taken]
        output = [Attr(next(self.ids), a.name) for a in id_attrs]
        for name in (rel.variable_column_name, rel.value_column_name):
            output.append(Attr(next(self.ids), name))
        rendered = _coerced([scope.render(value) for value in values])
        rows = [[scope.render(term) for term in ids] + [LITERAL, value] for value in rendered]
        plan = node("Expand", [child], output=[attr_json(a) for a in output], projections=rows)
        return plan, output


_NUMERIC = ("byte", "short", "integer", "long", "float", "double")


def _coerced(values: list[Json]) -> list[Json]:
    """Values put in one column, with the casts Spark's type coercion adds to the widest numeric
    type (known for plain columns only; the classic rules judge whether a cast keeps the value)."""
    types = [v[0].get("dataType") if v[0].get("class") == "AttributeReference" else None for v in values]
    if len(set(types)) < 2 or not all(t in _NUMERIC for t in types):
        return values
    widest = max(types, key=_NUMERIC.index)
    return [
        v if t == widest else node("Cast", [v], dataType=widest) for v, t in zip(values, types, strict=True)
    ]


def _aggregates(term: Any) -> bool:
    """Whether a projected term computes an aggregate outside any window."""
    if not isinstance(term, tuple) or not term:
        return False
    if term[0] == "window":
        return False
    if term[0] == "fn" and term[1] in AGGREGATES:
        return True
    return any(_aggregates(part) for part in term[1:] if isinstance(part, tuple))


def translate(
    relation: Any,
    leaf_schema: LeafSchema,
    views: Mapping[str, Any] | None = None,
    ids: Iterator[int] | None = None,
    describe: bool = False,
    *,
    optimized: bool = True,
) -> Translation:
    """The :class:`Translation` of a written query; raises :class:`Untranslatable`.

    ``views``: temp view name (lower case) -> the relation that defined it. ``ids``: where the
    attribute ids come from (the caller's counter, so ids stay unique in its execution).
    ``describe``: top expressions carry their ``sql()`` text (descriptions,
    :mod:`~lineage_operators.spark.connect.columns.expr_sql`). ``optimized``: add the filters
    Spark's optimizer infers (False where the server's plan is read as analyzed, a V1 CTAS).
    """
    plan, output, leaves = translated(
        lambda t: t.relation(relation), leaf_schema, views, ids, describe, optimized=optimized
    )
    return Translation(plan=plan, output=output, leaves=leaves)


def translated(
    build: Callable[[Any], tuple[Json, list[Attr]]],
    leaf_schema: LeafSchema,
    views: Mapping[str, Any] | None = None,
    ids: Iterator[int] | None = None,
    describe: bool = False,
    *,
    optimized: bool = True,
) -> tuple[Json, list[Attr], list[tuple[Any, tuple[int, ...]]]]:
    """``build(translator)``'s plan and output, and the read leaves; errors as :class:`Untranslatable`
    (also for :mod:`~lineage_operators.spark.connect.columns.sql_merge`, which builds on two relations)."""
    counter = ids if ids is not None else itertools.count(1)
    translator = _Translator(leaf_schema, views or {}, counter, describe, optimized)
    try:
        with literals_kept(describe):
            plan, output = build(translator)
    except RecursionError as exc:
        raise Untranslatable("a plan too deep") from exc
    except (LookupError, TypeError, ValueError) as exc:
        if isinstance(exc, Untranslatable):
            raise
        raise Untranslatable(type(exc).__name__) from exc  # not the message: it may quote values
    return plan, output, translator.leaves


__all__ = ["LeafSchema", "Translation", "translate", "translated"]
