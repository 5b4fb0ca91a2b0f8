"""One node's expression text (Spark's ``Expression.toString``) -> expression trees the engine reads.

The text is loose: string literals are printed without quotes, names may hold spaces or
parentheses (``my total#12``, ``sum(x)#31``), and a literal may look like an attribute
(``Brand#45``). So attributes are found first, by exprId *and* name: ``name#id`` is an attribute
only where the plan defines ``id`` with that ``name`` (:class:`Names`); each is masked into one
token, as are subquery markers (``scalar-subquery#5 [outer]``). The rest is split into calls,
groups and operator words; only what the column-lineage engine tells apart gets a class of its own
(aggregates, casts, conditionals, masking functions, ranking functions, windows, subqueries,
null-intolerant operators); every other function is a plain transformation of its arguments,
as the engine reads any class it does not know. Pure, never raises on odd text.

Size: one table of the function and operator names the engine tells apart, and the few shapes
Spark prints that are not ``name(args)`` (CASE, if/else, cast, FILTER, OVER specs, sort orders).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

ATTR, SUB = "\x01", "\x03"
_END = "\x02"
_MARKER = re.compile(r"(scalar-subquery|exists|list|lateral-subquery)#(\d+)")
_REF = re.compile(r"#(\d+)(L?)")
_TOKEN = re.compile(r"\x01\d+\x02|\x03\d+\x02|[()\[\],]|[^\s()\[\],\x01\x03]+")

#: Aggregate functions (printed bare: ``sum(x)``; the engine reads them under an AggregateExpression).
AGGREGATES = {
    "sum": "Sum", "avg": "Average", "mean": "Average", "count": "Count", "min": "Min", "max": "Max",
    "first": "First", "last": "Last", "first_value": "First", "last_value": "Last", "any_value": "AnyValue",
    "collect_list": "CollectList", "collect_set": "CollectSet", "stddev": "StddevSamp",
    "stddev_samp": "StddevSamp", "stddev_pop": "StddevPop", "variance": "VarianceSamp",
    "var_samp": "VarianceSamp", "var_pop": "VariancePop", "approx_count_distinct": "HyperLogLogPlusPlus",
    "percentile": "Percentile", "percentile_approx": "ApproximatePercentile", "median": "Median",
    "approx_percentile": "ApproximatePercentile", "mode": "Mode", "corr": "Corr",
    "covar_pop": "CovPopulation",
    "covar_samp": "CovSample", "bool_and": "BoolAnd", "bool_or": "BoolOr", "every": "BoolAnd",
    "any": "BoolOr", "some": "BoolOr", "max_by": "MaxBy", "min_by": "MinBy", "count_if": "CountIf",
    "pivotfirst": "PivotFirst", "skewness": "Skewness", "kurtosis": "Kurtosis", "listagg": "ListAgg",
    "string_agg": "ListAgg", "array_agg": "CollectList", "bit_and": "BitAndAgg", "bit_or": "BitOrAgg",
    "bit_xor": "BitXorAgg",
}  # fmt: skip
#: Functions whose class the engine reads (masking, ranking, conditionals, windows, casts...).
FUNCTIONS = {
    "sha2": "Sha2", "md5": "Md5", "sha1": "Sha1", "sha": "Sha1", "crc32": "Crc32", "hash": "Murmur3Hash",
    "xxhash64": "XxHash64", "mask": "Mask", "rank": "Rank", "dense_rank": "DenseRank",
    "percent_rank": "PercentRank", "row_number": "RowNumber", "cume_dist": "CumeDist", "ntile": "NTile",
    "coalesce": "Coalesce", "windowspecdefinition": "WindowSpecDefinition", "isnotnull": "IsNotNull",
    "isnull": "IsNull", "abs": "Abs", "pmod": "Pmod", "explode": "Explode", "explode_outer": "Explode",
    "posexplode": "PosExplode", "posexplode_outer": "PosExplode", "inline": "Inline",
    "inline_outer": "Inline", "array": "CreateArray", "map": "CreateMap", "named_struct": "CreateNamedStruct",
    "struct": "CreateNamedStruct", "upcast": "UpCast",
}  # fmt: skip
#: Binary operators by precedence, loosest first (Spark parenthesizes its BinaryOperators; In, Like
#: and Not are printed bare, so ``(a IN (1,2) AND b)`` needs the order).
_LEVELS: tuple[dict[str, str], ...] = (
    {"OR": "Or"},
    {"AND": "And"},
    {"=": "EqualTo", "<=>": "EqualNullSafe", "<": "LessThan", "<=": "LessThanOrEqual", ">": "GreaterThan",
     ">=": "GreaterThanOrEqual", "!=": "NotEqual", "<>": "NotEqual", "LIKE": "Like", "RLIKE": "RLike",
     "ILIKE": "ILike", "IN": "In"},
    {"|": "BitwiseOr", "^": "BitwiseXor", "&": "BitwiseAnd"},
    {"+": "Add", "-": "Subtract", "||": "Concat"},
    {"*": "Multiply", "/": "Divide", "%": "Remainder", "div": "IntegralDivide"},
)  # fmt: skip
#: Spark's simpleString type names -> the JSON names the engine compares (casts that keep the value).
TYPES = {"int": "integer", "bigint": "long", "smallint": "short", "tinyint": "byte"}
_SORT_WORDS = frozenset({"ASC", "DESC", "NULLS", "FIRST", "LAST"})


@dataclass
class Expr:
    """An expression node: the engine's short class, its JSON fields and children."""

    cls: str
    children: list[Expr] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)


class Names:
    """exprId -> name of every attribute the plan defines (leaf outputs, aliases, node outputs)."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.longs: set[int] = set()
        #: exprId -> JSON type of the aliases of a cast (``cast(x as string) AS s#5``), found before any
        #: node is rendered: a parent's cast of that alias keeps the value when the types are the same
        #: (a persistent view's column list casts every column to its own type, twice when views nest)
        self.types: dict[int, str] = {}

    def define(self, ident: int, name: str, long: bool = False) -> None:
        if name and ident not in self.names:
            self.names[ident] = name
        if long:
            self.longs.add(ident)

    def define_from(self, text: str) -> None:
        """Definitions in one node's text: the items of its bracketed lists, ``name#id`` (an
        output, a leaf's column) or ``expr AS name#id`` (an alias)."""
        for inner in _bracketed(text):
            for item in split_top(inner):
                alias = alias_of(item)
                if alias is not None:
                    self.define(alias[1], alias[2], alias[3])
                    kind = cast_type(alias[0])
                    if kind is not None:
                        self.types.setdefault(alias[1], kind)
                    continue
                match = _PLAIN.match(item)
                if match is not None:
                    self.define(int(match.group(2)), match.group(1).strip(), bool(match.group(3)))


_PLAIN = re.compile(r"^([^()\[\],]+)#(\d+)(L?)$")


def _bracketed(text: str) -> list[str]:
    """The insides of every balanced ``[...]`` of ``text``, nested ones too."""
    found, opened = [], []
    for index, char in enumerate(text):
        if char == "[":
            opened.append(index)
        elif char == "]" and opened:
            found.append(text[opened.pop() + 1 : index])
    return found


def cast_type(text: str) -> str | None:
    """The JSON type of ``text`` when it is one cast (``cast(x#1 as string)``), else None."""
    text = text.strip()
    lowered = text.lower()
    if not (lowered.startswith("cast(") and text.endswith(")")):
        return None
    depth = 0
    for index in range(4, len(text) - 1):  # from the cast's "(" to before the last ")"
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return None  # the cast's parenthesis closes before the end: more than one cast
    cut = lowered.rfind(" as ")
    if cut < 0:
        return None
    target = text[cut + 4 : -1].strip().lower().replace(", ", ",")
    return TYPES.get(target, target)


def alias_of(item: str) -> tuple[str, int, str, bool] | None:
    """``expr AS name#id`` -> (expr, id, name, long): the leftmost `` AS `` whose left side is
    balanced and whose right side names no other attribute. A name may hold `` AS ``
    (``CAST(a AS INT)#5``, a pivot's ``__pivot_sum(x) AS `sum(x)`#11``), and so may an expression
    (``__pivot_sum(x) AS `sum(x)`#11[0] AS paid#12``)."""
    match = re.search(r"#(\d+)(L?)$", item)
    if match is None:
        return None
    position = -1
    while True:
        position = item.find(" AS ", position + 1, match.start())
        if position < 0:
            return None
        left, name = item[:position], item[position + 4 : match.start()]
        balanced = left.count("(") == left.count(")") and left.count("[") == left.count("]")
        if balanced and not _REFERENCE_IN_NAME.search(name):
            return left, int(match.group(1)), name, bool(match.group(2))


#: An attribute reference (``#12``) inside what would be an alias's name: that `` AS `` is not the alias's.
_REFERENCE_IN_NAME = re.compile(r"#\d")


class Masked:
    """Masks a node's texts, in order: each attribute and subquery marker becomes one token."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self.attrs: list[tuple[int, str]] = []
        self.subqueries: list[tuple[str, int]] = []

    def mask(self, text: str) -> str:
        return self._mask(_MARKER.sub(self._marker, _strip_outer_lists(text)))

    def _marker(self, match: re.Match[str]) -> str:
        self.subqueries.append((match.group(1), int(match.group(2))))
        return f" {SUB}{len(self.subqueries) - 1}{_END} "

    def _mask(self, text: str) -> str:
        out, last = [], 0
        for match in _REF.finditer(text):
            ident = int(match.group(1))
            name = self.names.names.get(ident)
            start = match.start()
            if name is None or start < last or not text.endswith(name, 0, start):
                continue
            begin = start - len(name)
            out.append(text[last:begin])
            self.attrs.append((ident, name))
            out.append(f" {ATTR}{len(self.attrs) - 1}{_END} ")
            last = match.end()
        out.append(text[last:])
        return "".join(out)


def _strip_outer_lists(text: str) -> str:
    """``scalar-subquery#5 [a#1, b#2]``: the bracket lists the outer attributes a subquery reads;
    the subquery's plan reads them itself (``outer(a#1)``), so the list is dropped."""
    out, index = [], 0
    for match in _MARKER.finditer(text):
        out.append(text[index : match.end()])
        index = match.end()
        if text.startswith(" [", index):
            depth, cursor = 0, index + 1
            while cursor < len(text):
                depth += {"[": 1, "]": -1}.get(text[cursor], 0)
                cursor += 1
                if depth == 0:
                    break
            index = cursor
    out.append(text[index:])
    return "".join(out)


class ExprParser:
    """Parses the masked text of one node into :class:`Expr` trees."""

    def __init__(self, masked: Masked, subquery: Any) -> None:
        self.masked = masked
        self.subquery = subquery  # (kind, exprId, index) -> Expr of the subquery with its plan

    def parse(self, text: str) -> Expr:
        """One expression of the node's raw text."""
        tokens = _TOKEN.findall(self.masked.mask(text))
        items, _ = self._sequence(tokens, 0)
        return self._combine(items)

    def parse_list(self, text: str) -> list[Expr]:
        """A bracketed list (``[a, b]``) or a comma list of the raw text: one expression per item."""
        tokens = _TOKEN.findall(self.masked.mask(text.strip()))
        if tokens and tokens[0] == "[" and tokens[-1] == "]":
            tokens = tokens[1:-1]
        out, index = [], 0
        while index < len(tokens):
            items, index = self._sequence(tokens, index)
            if items:
                out.append(self._combine(items))
            index += 1  # the comma
        return out

    # -- tokens -> terms -------------------------------------------------------------------------

    def _sequence(self, tokens: list[str], index: int) -> tuple[list[Any], int]:
        """Terms up to the next top-level ``,`` / ``)`` / ``]`` (index of that token)."""
        items: list[Any] = []
        while index < len(tokens):
            token = tokens[index]
            if token in (",", ")", "]"):
                return items, index
            if token[0] == ATTR:
                ident, name = self.masked.attrs[int(token[1:-1])]
                items.append(_attribute(ident, name))
            elif token[0] == SUB:
                kind, ident = self.masked.subqueries[int(token[1:-1])]
                items.append(self.subquery(kind, ident, int(token[1:-1])))
            elif token in ("(", "["):
                args, index = self._arguments(tokens, index + 1)
                if token == "(" and items and isinstance(items[-1], str) and items[-1] not in _OPERATORS:
                    items.append(self._call(items.pop(), args))
                else:
                    items.append(("list", args) if token == "[" or len(args) != 1 else ("group", args))
            else:
                items.append(token)
            index += 1
        return items, index

    def _arguments(self, tokens: list[str], index: int) -> tuple[list[list[Any]], int]:
        args = []
        while index < len(tokens):
            items, index = self._sequence(tokens, index)
            args.append(items)
            if index >= len(tokens) or tokens[index] in (")", "]"):
                break
            index += 1
        return args, index

    def _call(self, name: str, args: list[list[Any]]) -> Expr:
        lowered = name.lower()
        if lowered in ("cast", "try_cast") and args:
            words = args[0]
            cut = max((i for i, w in enumerate(words) if w == "as"), default=-1)
            if cut > 0:
                target = " ".join(_type_text(w) for w in words[cut + 1 :])
                return Expr("Cast", [self._combine(words[:cut])], {"dataType": TYPES.get(target, target)})
        parsed = [self._combine(arg[1:] if arg[:1] == ["distinct"] else arg) for arg in args if arg]
        if lowered == "outer" and len(parsed) == 1:
            return Expr("OuterReference", [], {"e": parsed[0]})
        if lowered == "nullif" and len(parsed) == 2:  # RuntimeReplaceable: what it evaluates to
            return Expr("If", [Expr("EqualTo", parsed[:]), Expr("Literal"), parsed[0]])
        if lowered == "nvl2" and len(parsed) == 3:
            return Expr("If", [Expr("IsNotNull", [parsed[0]]), parsed[1], parsed[2]])
        if lowered in ("nvl", "ifnull"):
            return Expr("Coalesce", parsed)
        if lowered in AGGREGATES:
            return Expr("AggregateExpression", [Expr(AGGREGATES[lowered], parsed)])
        return Expr(FUNCTIONS.get(lowered, "Function"), parsed, {"name": lowered})

    # -- terms -> one expression -----------------------------------------------------------------

    def _term(self, item: Any) -> Expr:
        if isinstance(item, Expr):
            return item
        if isinstance(item, tuple):
            kind, args = item
            parts = [self._combine(arg) for arg in args if arg]
            return parts[0] if kind == "group" and len(parts) == 1 else Expr("CreateArray", parts)
        return Expr("Literal", [], {"text": item} if isinstance(item, str) else {})

    def _combine(self, items: list[Any]) -> Expr:
        if not items:
            return Expr("Literal")
        if "AS" in items[1:]:  # ``x AS name`` left in a name (pivot's): the expression is x
            items = items[: items.index("AS", 1)]
        if len(items) > 1 and isinstance(items[-1], str) and items[-1] in _SORT_WORDS:
            while len(items) > 1 and isinstance(items[-1], str) and items[-1] in _SORT_WORDS:
                items = items[:-1]
            return Expr("SortOrder", [self._combine(items)])
        if items[0] == "CASE" and items[-1] == "END":
            return self._case(items[1:-1])
        if items[0] == "if" and "else" in items:
            cut = items.index("else")
            return Expr(
                "If", [self._term(items[1]), self._combine(items[2:cut]), self._combine(items[cut + 1 :])]
            )
        for level in _LEVELS:
            cuts = [i for i, item in enumerate(items) if isinstance(item, str) and item in level]
            if cuts and items[0] == "NOT" and level is not _LEVELS[0] and level is not _LEVELS[1]:
                break
            if cuts:
                parts, start = [], 0
                for cut in [*cuts, len(items)]:
                    parts.append(items[start:cut])
                    start = cut + 1
                op = level[items[cuts[0]]]
                if op == "Subtract" and not parts[0] and len(parts) == 2:
                    return Expr("UnaryMinus", [self._combine(parts[1])])
                return Expr(op, [self._combine(part) for part in parts if part])
        if items[0] == "NOT":
            return Expr("Not", [self._combine(items[1:])])
        if items[0] in ("-", "~") and len(items) > 1:
            return Expr("UnaryMinus" if items[0] == "-" else "BitwiseNot", [self._combine(items[1:])])
        if len(items) > 1 and items[1] in ("IS", "is"):
            return Expr("IsNotNull" if "NOT" in items else "IsNull", [self._term(items[0])])
        head = self._term(items[0])
        rest = items[1:]
        while rest:  # juxtaposed: OVER spec, FILTER (WHERE ...), [index]
            nxt = rest[0]
            if isinstance(nxt, Expr) and nxt.cls == "WindowSpecDefinition":
                head = Expr("WindowExpression", [head, nxt])
            elif nxt == "FILTER" and len(rest) > 1 and head.cls == "AggregateExpression":
                condition = rest[1]
                words = condition[1][0] if isinstance(condition, tuple) and condition[1] else []
                head.children.append(self._combine(words[1:] if words[:1] == ["WHERE"] else words))
                rest = rest[1:]
            elif isinstance(nxt, tuple) and nxt[0] == "list":
                head = Expr("GetItem", [head, self._term(nxt)])
            elif not isinstance(nxt, str):
                head = Expr("Function", [head, self._term(nxt)])
            rest = rest[1:]
        return head

    def _case(self, items: list[Any]) -> Expr:
        children: list[Expr] = []
        part: list[Any] = []
        keyword: str | None = None
        for item in [*items, "WHEN"]:
            if isinstance(item, str) and item in ("WHEN", "THEN", "ELSE"):
                if keyword is not None:
                    children.append(self._combine(part))
                keyword, part = item, []
            else:
                part.append(item)
        return Expr("CaseWhen", children)


_KEYWORDS = frozenset({"NOT", "CASE", "WHEN", "THEN", "ELSE", "END", "AS", "if", "else", "FILTER", "WHERE"})
#: Words after which ``(`` opens a group, not a function call's arguments.
_OPERATORS = frozenset({op for level in _LEVELS for op in level} | _KEYWORDS)


def _type_text(item: Any) -> str:
    """A cast's target type as Spark prints it (``decimal(12,2)``), from its parsed words."""
    if isinstance(item, str):
        return item
    if isinstance(item, Expr) and item.cls == "Function":
        args = ",".join(str(child.fields.get("text", "")) for child in item.children)
        return f"{item.fields.get('name', '')}({args})"
    return ""


def _attribute(ident: int, name: str) -> Expr:
    return Expr("AttributeReference", [], {"name": name, "exprId": {"id": ident}})


def split_top(text: str, separator: str = ",") -> list[str]:
    """``text`` split at the separators outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


__all__ = ["AGGREGATES", "FUNCTIONS", "Expr", "ExprParser", "Masked", "Names", "alias_of", "split_top"]
