"""``MERGE INTO`` over Spark Connect as the plan a classic session's Delta ``MERGE`` gives the
column-lineage engine: ``MergeRows`` over ``Join(target, source, condition)``.

Why a module of its own: Connect has no ``Relation`` for a MERGE (it is a command), so the
statement cannot go through :mod:`~lineage_operators.spark.connect.columns.sql_relation` alone. The
two sides are Relations (the target a named-table read under its alias, the source as any ``FROM``
item: a table, a subquery, a CTE-free query), translated by
:mod:`~lineage_operators.spark.connect.columns.plan_translate`'s translator, so their columns resolve
against the server's schemas exactly as every other SQL statement's; the merge condition, the WHEN
conditions and the assigned values are rendered by that translator's scope over the join's columns.
The rows are then built as :mod:`lineage_operators.spark.tables.delta_columns` builds them from Delta's
``MergeIntoCommand`` on a classic session (one ``Keep`` per clause, a value per target column: the
set value, else the column itself for an update and null for an insert; ``UPDATE SET *`` /
``INSERT *`` the source column of the same name; the untouched target rows kept as they are; a left
outer join without ``WHEN NOT MATCHED``, else full outer), so both sessions give the same facet.

Pure (pyspark's protobufs and sqlglot imported lazily). Not mapped (:class:`Unsupported`, the
statement keeps openlineage-sql's lineage): a target that is not a table name, a source with a
``WITH`` clause, assignments to nested fields, ``INSERT`` without a column list but with values,
sqlglot trees of another shape.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from lineage_operators.spark.connect.columns.plan_exprs import Untranslatable, attr_json, node, term_of
from lineage_operators.spark.connect.columns.plan_translate import Translation, translated
from lineage_operators.spark.connect.columns.sql_protos import Unsupported, text_expr
from lineage_operators.spark.connect.columns.sql_relation import source_relation

_PLANS = "org.apache.spark.sql.catalyst.plans"
_NULL = [{"class": "Literal", "num-children": 0, "value": None, "dataType": "null"}]
_TRUE = [{"class": "Literal", "num-children": 0, "value": "true", "dataType": "boolean"}]


@dataclass(frozen=True)
class MergeClause:
    """One WHEN clause. ``kind``: matched / not_matched / not_matched_by_source; ``action``:
    update / delete / insert; ``values``: (target column, value text), None for ``*``."""

    kind: str
    action: str
    condition: str | None
    values: tuple[tuple[str, str], ...] | None


@dataclass(frozen=True)
class SqlMerge:
    """A parsed ``MERGE INTO``: the two sides as Relations, the condition, the clauses in order."""

    target: Any
    source: Any
    condition: str
    clauses: tuple[MergeClause, ...]


def parse_merge(text: str) -> SqlMerge:
    """The parts of a ``MERGE INTO`` statement; raises :class:`Unsupported`."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(text, dialect="spark")
    except sqlglot.errors.SqlglotError as exc:
        raise Unsupported("SQL the parser does not read") from exc
    if not isinstance(tree, exp.Merge):
        raise Unsupported(f"a {type(tree).__name__} statement, not a MERGE")
    target = tree.this
    if not isinstance(target, exp.Table) or not isinstance(target.this, exp.Identifier):
        raise Unsupported("a MERGE target that is not a table name")
    source, on = tree.args.get("using"), tree.args.get("on")
    if source is None or on is None or source.find(exp.With) is not None:
        raise Unsupported("a MERGE without ON, or with a WITH clause in its source")
    whens = tree.args.get("whens")
    clauses = tuple(_clause(w) for w in (whens.expressions if whens is not None else []))
    return SqlMerge(
        target=source_relation(target),
        source=source_relation(source),
        condition=on.sql(dialect="spark"),
        clauses=clauses,
    )


def _clause(when: Any) -> MergeClause:
    from sqlglot import exp

    if when.args.get("matched"):
        kind = "matched"
    else:
        kind = "not_matched_by_source" if when.args.get("source") else "not_matched"
    found = when.args.get("condition")
    condition = found.sql(dialect="spark") if found is not None else None
    then = when.args.get("then")
    if isinstance(then, exp.Var) and then.name.upper() == "DELETE":
        return MergeClause(kind, "delete", condition, ())
    if isinstance(then, exp.Update):
        if any(isinstance(e, exp.Star) for e in then.expressions):
            return MergeClause(kind, "update", condition, None)
        pairs = []
        for assignment in then.expressions:
            column = assignment.this
            if not isinstance(assignment, exp.EQ) or not isinstance(column, exp.Column):
                raise Unsupported("an UPDATE SET that is not column = value")
            if isinstance(column.this, exp.Dot) or len(column.parts) > 2:
                raise Unsupported("an UPDATE SET of a nested field")
            pairs.append((column.name, assignment.expression.sql(dialect="spark")))
        return MergeClause(kind, "update", condition, tuple(pairs))
    if isinstance(then, exp.Insert):
        if isinstance(then.this, exp.Star):
            return MergeClause(kind, "insert", condition, None)
        columns, values = then.this, then.expression
        if not isinstance(columns, exp.Tuple) or not isinstance(values, exp.Tuple):
            raise Unsupported("an INSERT without a column list")
        if len(columns.expressions) != len(values.expressions):
            raise Unsupported("an INSERT whose columns and values differ in number")
        names = [c.name for c in columns.expressions]
        texts = [v.sql(dialect="spark") for v in values.expressions]
        return MergeClause(kind, "insert", condition, tuple(zip(names, texts, strict=True)))
    raise Unsupported(f"a WHEN clause doing {type(then).__name__}")


def merge_translation(
    merge: SqlMerge,
    leaf_schema: Any,
    views: Mapping[str, Any] | None = None,
    ids: Iterator[int] | None = None,
    describe: bool = False,
    *,
    optimized: bool = True,
) -> Any:
    """The :class:`~.plan_translate.Translation` of a parsed MERGE (its output: the target's
    columns); raises :class:`~.plan_exprs.Untranslatable`. ``optimized``: as ``translate``'s."""

    def build(translator: Any) -> tuple[Any, Any]:
        target_plan, columns = translator.relation(merge.target)
        source_plan, source = translator.relation(merge.source)
        scope = translator.scope(columns + source)

        def render(text: str) -> Any:
            return scope.top(term_of(text_expr(text)))

        def source_column(name: str) -> Any:
            found = [a for a in source if a.name.lower() == name.lower()]
            if len(found) != 1:
                raise Untranslatable("a MERGE * whose source lacks a target column")
            return attr_json(found[0])

        def keep(clause: MergeClause) -> Any:
            condition = render(clause.condition) if clause.condition else _TRUE
            if clause.action == "delete":
                return node("Keep", [condition])
            if clause.values is None:
                row = [source_column(c.name) for c in columns]
            else:
                values = {name.lower(): render(text) for name, text in reversed(clause.values)}
                unknown = set(values) - {c.name.lower() for c in columns}
                if unknown:
                    raise Untranslatable("a MERGE assignment to a column the target lacks")
                update = clause.action == "update"
                row = [values.get(c.name.lower()) or (attr_json(c) if update else _NULL) for c in columns]
            return node("Keep", [condition, *row])

        instructions: dict[str, list[Any]] = {"matched": [], "not_matched": [], "not_matched_by_source": []}
        for clause in merge.clauses:
            instructions[clause.kind].append(keep(clause))
        # rows of the target no clause touches are copied as they are
        instructions["not_matched_by_source"].append(node("Keep", [_TRUE, *map(attr_json, columns)]))
        kind = "FullOuter" if instructions["not_matched"] else "LeftOuter"
        join = node(
            "Join",
            [target_plan, source_plan],
            joinType={"object": f"{_PLANS}.{kind}$"},
            condition=render(merge.condition),
        )
        rows = node(
            "MergeRows",
            [join],
            output=[attr_json(c) for c in columns],
            matchedInstructions=instructions["matched"],
            notMatchedInstructions=instructions["not_matched"],
            notMatchedBySourceInstructions=instructions["not_matched_by_source"],
        )
        return rows, columns

    plan, output, leaves = translated(build, leaf_schema, views, ids, describe, optimized=optimized)
    return Translation(plan=plan, output=output, leaves=leaves)


__all__ = ["MergeClause", "SqlMerge", "merge_translation", "parse_merge"]
