"""Connect expressions -> the analyzed-expression JSON the classic column-lineage engine reads.

Pure. Two steps:

1. :func:`term_of` turns an ``Expression`` protobuf into a small tuple *term*, the same form
   :mod:`~lineage_operators.spark.connect.columns.expr_text` parses expression strings into:
   ``("col", parts, plan_id)``, ``("lit",)``, ``("star", parts, plan_id)``,
   ``("fn", name, args[, distinct])``, ``("alias", child, names)``, ``("cast", child, type)``,
   ``("sort", child)``, ``("window", function, partitions, orders)``.
2. :class:`Scope` resolves a term's column names against the attributes a relation outputs and
   renders it as Spark's ``TreeNode.toJSON()`` shape (pre-order node lists) with the *class names
   the classic rules key on* (:mod:`lineage_operators.column_lineage.expressions`): ``Alias``,
   ``Cast``, ``CaseWhen``, ``If``, ``Coalesce``, ``AggregateExpression``, ``WindowExpression``,
   masking functions (``Sha2``, ``Md5``, ``Count``...), ranking functions. Every other function is
   a generic node (a TRANSFORMATION of its arguments), as in the classic engine.

Anything not understood raises :class:`Untranslatable`: that write gets no column lineage.

Size: one translation per Connect expression kind (functions, casts, windows, lambdas...),
each small; they share the resolution of names against the plan's scope.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from lineage_operators.spark.connect.columns.expr_sql import (
    keeping_literals,
    proto_literal,
    quoted,
    sort_text,
    sql_of,
)
from lineage_operators.spark.connect.columns.expr_text import Term, parse_expression

Json = list[dict[str, Any]]


class Untranslatable(ValueError):
    """A plan or expression the translation does not understand."""


#: Connect / SQL function names -> the catalyst class whose classic rule differs from the generic one.
AGGREGATES = {
    "sum": "Sum",
    "count": "Count",
    "avg": "Average",
    "mean": "Average",
    "min": "Min",
    "max": "Max",
    "first": "First",
    "last": "Last",
    "first_value": "First",
    "last_value": "Last",
    "any_value": "AnyValue",
    "collect_list": "CollectList",
    "collect_set": "CollectSet",
    "array_agg": "CollectList",
    "stddev": "StddevSamp",
    "stddev_samp": "StddevSamp",
    "stddev_pop": "StddevPop",
    "std": "StddevSamp",
    "variance": "VarianceSamp",
    "var_samp": "VarianceSamp",
    "var_pop": "VariancePop",
    "approx_count_distinct": "HyperLogLogPlusPlus",
    "count_distinct": "Count",
    "sum_distinct": "Sum",
    "corr": "Corr",
    "covar_pop": "CovPopulation",
    "covar_samp": "CovSample",
    "skewness": "Skewness",
    "kurtosis": "Kurtosis",
    "median": "Median",
    "percentile": "Percentile",
    "percentile_approx": "ApproximatePercentile",
    "approx_percentile": "ApproximatePercentile",
    "max_by": "MaxBy",
    "min_by": "MinBy",
    "bool_and": "BoolAnd",
    "bool_or": "BoolOr",
    "every": "BoolAnd",
    "some": "BoolOr",
    "any": "BoolOr",
    "count_if": "CountIf",
    "bit_and": "BitAndAgg",
    "bit_or": "BitOrAgg",
    "bit_xor": "BitXorAgg",
    "string_agg": "ListAgg",
    "listagg": "ListAgg",
}
FUNCTIONS = {
    "md5": "Md5",
    "sha": "Sha1",
    "sha1": "Sha1",
    "sha2": "Sha2",
    "crc32": "Crc32",
    "hash": "Murmur3Hash",
    "xxhash64": "XxHash64",
    "mask": "Mask",
    "when": "CaseWhen",
    "if": "If",
    "iff": "If",
    "coalesce": "Coalesce",
    "nvl": "Coalesce",
    "ifnull": "Coalesce",
    "rank": "Rank",
    "dense_rank": "DenseRank",
    "percent_rank": "PercentRank",
    "row_number": "RowNumber",
    "cume_dist": "CumeDist",
    "ntile": "NTile",
    "==": "EqualTo",
    "<=>": "EqualNullSafe",
    "<": "LessThan",
    "<=": "LessThanOrEqual",
    ">": "GreaterThan",
    ">=": "GreaterThanOrEqual",
    "and": "And",
    "or": "Or",
    "not": "Not",
    "!": "Not",
    "+": "Add",
    "-": "Subtract",
    "*": "Multiply",
    "/": "Divide",
    "%": "Remainder",
    "negative": "UnaryMinus",
    "abs": "Abs",
    "isnotnull": "IsNotNull",
    "isnull": "IsNull",
}
#: Spark's short type names (``CAST(x AS bigint)``) -> the ``DataType.json`` names of a schema.
_TYPE_NAMES = {"int": "integer", "bigint": "long", "smallint": "short", "tinyint": "byte", "real": "float"}


def type_name(name: str) -> str:
    text = name.strip().lower().replace(" ", "")
    return _TYPE_NAMES.get(text, text)


def _proto_type(data_type: Any) -> str:
    kind = data_type.WhichOneof("kind")
    if kind == "decimal":
        dec = data_type.decimal
        precision = dec.precision if dec.HasField("precision") else 10
        return f"decimal({precision},{dec.scale if dec.HasField('scale') else 0})"
    if kind == "unparsed":
        return type_name(data_type.unparsed.data_type_string)
    return str(kind)


def _parts(identifier: str) -> tuple[str, ...]:
    """``a.b``, ```a.b`.c`` -> name parts."""
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    index = 0
    while index < len(identifier):
        char = identifier[index]
        if char == "`":
            if quoted and identifier[index + 1 : index + 2] == "`":
                current.append("`")
                index += 2
                continue
            quoted = not quoted
        elif char == "." and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return tuple(parts)


def term_of(expr: Any) -> Term:
    """The term of an ``Expression`` protobuf (see the module docstring)."""
    kind = expr.WhichOneof("expr_type")
    if kind == "literal":
        text = proto_literal(expr.literal) if keeping_literals() else None
        return ("lit", text) if text is not None else ("lit",)
    if kind == "unresolved_attribute":
        attr = expr.unresolved_attribute
        plan_id = attr.plan_id if attr.HasField("plan_id") else None
        return ("col", _parts(attr.unparsed_identifier), plan_id)
    if kind == "unresolved_star":
        star = expr.unresolved_star
        target = star.unparsed_target if star.HasField("unparsed_target") else ""
        parts = _parts(target.removesuffix(".*")) if target else ()
        return ("star", parts, star.plan_id if star.HasField("plan_id") else None)
    if kind == "unresolved_function":
        fn = expr.unresolved_function
        return ("fn", fn.function_name.lower(), tuple(term_of(a) for a in fn.arguments), fn.is_distinct)
    if kind == "call_function":
        call = expr.call_function
        return ("fn", call.function_name.lower(), tuple(term_of(a) for a in call.arguments), False)
    if kind == "expression_string":
        return parse_expression(expr.expression_string.expression)
    if kind == "alias":
        return ("alias", term_of(expr.alias.expr), tuple(expr.alias.name))
    if kind == "cast":
        cast = expr.cast
        target = _proto_type(cast.type) if cast.HasField("type") else type_name(cast.type_str)
        return ("cast", term_of(cast.expr), target)
    if kind == "sort_order":
        return sort_term(expr.sort_order)
    if kind == "window":
        window = expr.window
        return (
            "window",
            term_of(window.window_function),
            tuple(term_of(p) for p in window.partition_spec),
            tuple(("sort", term_of(o.child)) for o in window.order_spec),
        )
    if kind == "unresolved_extract_value":
        return ("fn", "getfield", (term_of(expr.unresolved_extract_value.child),))
    if kind == "common_inline_user_defined_function":
        udf = expr.common_inline_user_defined_function
        return ("fn", f"udf:{udf.function_name}", tuple(term_of(a) for a in udf.arguments))
    if kind == "named_argument_expression":
        return term_of(expr.named_argument_expression.value)
    raise Untranslatable(f"expression {kind}")


def sort_term(order: Any) -> Term:
    """A ``SortOrder``'s term; its direction kept (``ASC NULLS FIRST``) while texts are wanted."""
    child = term_of(order.child)
    if not keeping_literals():
        return ("sort", child)
    nulls = {1: True, 2: False}.get(order.null_ordering)
    return ("sort", child, sort_text(order.direction != 2, nulls))  # 2: DESCENDING


def auto_name(term: Term) -> str:
    """The column name Spark gives an unaliased expression (``sum(amount)``), approximately."""
    kind = term[0]
    if kind == "col":
        return str(term[1][-1])
    if kind == "alias":
        return str(term[2][0])
    if kind == "cast":
        return auto_name(term[1])
    if kind == "fn":
        return f"{term[1]}({', '.join(auto_name(a) for a in term[2])})"
    if kind == "star":
        return "*"
    return "col"


@dataclass
class Attr:
    """An output attribute of a translated relation."""

    ident: int
    name: str
    data_type: Any = None
    qualifiers: frozenset[str] = frozenset()


def attr_json(attr: Attr) -> Json:
    return [
        {
            "class": "AttributeReference",
            "num-children": 0,
            "name": attr.name,
            "exprId": {"id": attr.ident},
            "dataType": attr.data_type,
        }
    ]


def node(cls: str, children: Sequence[Json], **fields: Any) -> Json:
    out: Json = [{"class": cls, "num-children": len(children), **fields}]
    for child in children:
        out.extend(child)
    return out


LITERAL: Json = [{"class": "Literal", "num-children": 0}]


@dataclass
class Scope:
    """Resolves terms against the attributes visible to an operator; renders them as JSON."""

    attrs: list[Attr]
    by_plan: dict[int, list[Attr]]
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    #: Descriptions wanted: top expressions get their ``sql()`` text
    #: (:mod:`~lineage_operators.spark.connect.columns.expr_sql`).
    describe: bool = False
    #: Inside a subquery: the enclosing queries' attributes (read as ``OuterReference``).
    outer: list[Attr] = field(default_factory=list)
    #: Renders a subquery placeholder call (name, rendered values) as its subquery expression.
    subquery: Any = None

    def lookup(self, parts: Sequence[str], plan_id: int | None) -> tuple[Attr, int]:
        """The attribute a name means, and how many trailing parts are nested-field accesses."""
        candidates = self.attrs
        if plan_id is not None and plan_id in self.by_plan:
            planned = {a.ident for a in self.by_plan[plan_id]}
            within = [a for a in self.attrs if a.ident in planned]
            candidates = within or self.by_plan[plan_id]
        lowered = [p.lower() for p in parts]
        for scope in (candidates, self.outer):
            for qualified in (2, 1) if len(parts) > 1 else (1,):
                if qualified == 2:
                    qualifier, name = lowered[0], lowered[1]
                    found = [a for a in scope if a.name.lower() == name and qualifier in a.qualifiers]
                else:
                    found = [a for a in scope if a.name.lower() == lowered[0]]
                if found:
                    return found[0], len(parts) - qualified
        raise Untranslatable(f"column {'.'.join(parts)} not found")

    def attr_text(self, attr: Attr) -> str:
        """An attribute's ``sql()``: its name, qualified as the analyzer qualifies it."""
        prefix = "".join(f"{quoted(q)}." for q in sorted(attr.qualifiers)[:1])
        return prefix + quoted(attr.name)

    def _column_text(self, parts: Sequence[str], plan_id: int | None) -> str | None:
        attr, nested = self.lookup(parts, plan_id)
        return None if nested else self.attr_text(attr)

    def text(self, term: Term) -> str | None:
        """The ``sql()`` text of a term over this scope, or None."""
        try:
            return sql_of(term, self._column_text)
        except Untranslatable:
            return None

    def top(self, term: Term, aggregating: bool = False) -> Json:
        """:meth:`render` of a top expression (a condition, key or sort order), with its text."""
        return with_text(self.render(term, aggregating), self.text(term) if self.describe else None)

    def item(self, attr: Attr, rendered: Json | None) -> Json:
        """A project list entry: the rendered expression or the attribute as is (with its text)."""
        if rendered is not None:
            return rendered
        return with_text(attr_json(attr), self.attr_text(attr) if self.describe else None)

    def star(self, parts: Sequence[str], plan_id: int | None) -> list[Attr]:
        if plan_id is not None and plan_id in self.by_plan:
            planned = {a.ident for a in self.by_plan[plan_id]}
            return [a for a in self.attrs if a.ident in planned] or self.by_plan[plan_id]
        if parts:
            qualifier = parts[-1].lower()
            return [a for a in self.attrs if qualifier in a.qualifiers]
        return list(self.attrs)

    def render(self, term: Term, aggregating: bool = False) -> Json:
        """The expression JSON of a term; ``aggregating``: aggregate functions are aggregates here."""
        kind = term[0]
        if kind == "lit":
            return LITERAL
        if kind == "col":
            attr, nested = self.lookup(term[1], term[2])
            rendered = attr_json(attr)
            if self.outer and all(a.ident != attr.ident for a in self.attrs):
                rendered = node("OuterReference", [], e=rendered)  # a correlated subquery's column
            for _ in range(nested):
                rendered = node("GetStructField", [rendered])
            return rendered
        if kind == "star":
            return LITERAL  # count(*): reads no column
        if kind == "alias":
            child = self.render(term[1], aggregating)
            return node("Alias", [child], name=term[2][0], exprId={"id": next(self.ids)})
        if kind == "cast":
            return node("Cast", [self.render(term[1], aggregating)], dataType=term[2])
        if kind == "sort":
            return node("SortOrder", [self.render(term[1], aggregating)])
        if kind == "window":
            spec = node("WindowSpecDefinition", [self.render(t) for t in (*term[2], *term[3])])
            return node("WindowExpression", [self.render(term[1], aggregating=True), spec])
        if kind == "fn":
            name = term[1]
            args = [self.render(arg, aggregating) for arg in term[2]]
            if name.startswith("__lineage_") and self.subquery is not None:
                return self.subquery(name, args, self)  # type: ignore[no-any-return]
            if name == "count" and len(term[2]) == 1 and term[2][0][0] == "star":
                args = [LITERAL]
            if name in ("!=", "<>"):
                return node("Not", [node("EqualTo", args)])
            if aggregating and name in AGGREGATES:
                return node("AggregateExpression", [node(AGGREGATES[name], args)])
            replaced = _replacement(name, args)
            if replaced is not None:
                return replaced
            return node(FUNCTIONS.get(name, _generic_class(name)), args)
        raise Untranslatable(f"expression term {kind}")

    def named(self, term: Term, aggregating: bool = False) -> list[tuple[Attr, Json | None]]:
        """Output attributes of a projected term: (attribute, its JSON; None: a column passed as is).

        A star expands to the columns it names; a multi-name alias (``posexplode(...).alias("p",
        "v")``) gives one attribute per name, each with the whole expression's lineage.
        """
        kind = term[0]
        if kind == "star":
            return [(attr, None) for attr in self.star(term[1], term[2])]
        if kind == "col":
            attr, nested = self.lookup(term[1], term[2])
            if not nested:
                return [(attr, None)]
        if kind == "alias" and len(term[2]) > 1:
            inner = self.render(term[1], aggregating)
            return [self._alias(name, inner, None) for name in term[2]]
        if kind == "alias":
            return [self._alias(term[2][0], self.render(term[1], aggregating), term[1])]
        generated = _GENERATOR_NAMES.get(term[1]) if kind == "fn" else None
        inner = self.render(term, aggregating)
        names = generated or (auto_name(term),)
        return [self._alias(name, inner, term if len(names) == 1 else None) for name in names]

    def _alias(self, name: str, child: Json, term: Term | None) -> tuple[Attr, Json]:
        attr = Attr(next(self.ids), name)
        rendered = node("Alias", [child], name=name, exprId={"id": attr.ident})
        if self.describe and term is not None:
            text = self.text(term)
            rendered = with_text(rendered, f"{text} AS {quoted(name)}" if text is not None else None)
        return attr, rendered


def with_text(rendered: Json, text: str | None) -> Json:
    """``rendered`` with ``text`` as its top node's ``"sql"`` (a copy: nodes may be shared)."""
    if text is None:
        return rendered
    return [{**rendered[0], "sql": text}, *rendered[1:]]


#: Generators' default output names (an unaliased ``explode(x)`` is a column ``col``).
_GENERATOR_NAMES = {
    "explode": ("col",),
    "explode_outer": ("col",),
    "posexplode": ("pos", "col"),
    "posexplode_outer": ("pos", "col"),
}


def _replacement(name: str, args: list[Json]) -> Json | None:
    """``nullif`` / ``nvl2`` as the analyzer makes them: a RuntimeReplaceable whose one child is
    the ``If`` it evaluates to (the classic rules read the condition as CONDITIONAL)."""
    if name == "nullif" and len(args) == 2:
        value = node("If", [node("EqualTo", args), LITERAL, args[0]])
    elif name == "nvl2" and len(args) == 3:
        value = node("If", [node("IsNotNull", [args[0]]), args[1], args[2]])
    else:
        return None
    return node(f"Fn{name.capitalize()}", [value], replacement=True)


def _generic_class(name: str) -> str:
    """A function without a rule of its own: a generic node (TRANSFORMATION of its inputs)."""
    # prefixed: a function named like a class with a rule of its own (``exists``) stays generic
    return "Fn" + "".join(part.capitalize() for part in name.replace(":", "_").split("_") if part)


__all__ = [
    "AGGREGATES",
    "FUNCTIONS",
    "LITERAL",
    "Attr",
    "Json",
    "Scope",
    "Untranslatable",
    "attr_json",
    "auto_name",
    "node",
    "sort_term",
    "term_of",
    "type_name",
    "with_text",
]
