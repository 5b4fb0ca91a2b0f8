"""SQL expression strings of a Connect plan (``selectExpr``, ``filter("a > 1")``, ``F.expr``) as
:mod:`~lineage_operators.spark.connect.columns.plan_exprs` expression terms.

Pure. Connect sends these as text (``ExpressionString``) for the server to parse; column lineage
needs their structure: which columns are read, through which functions, under which alias. This is
a small recursive-descent parser of the Spark SQL expression grammar lineage cares about (columns,
literals, function calls, operators, ``CASE``, ``CAST``, ``IN``, ``BETWEEN``, ``LIKE``, ``IS NULL``,
aliases). Anything else raises :class:`ExpressionSyntaxError`, and the write then gets no column
lineage (never a wrong one).
"""

from __future__ import annotations

import re
from typing import Any

from lineage_operators.spark.connect.columns.expr_sql import keeping_literals, number_literal, string_literal

Term = tuple[Any, ...]


class ExpressionSyntaxError(ValueError):
    """An expression string this parser does not understand."""


_TOKEN = re.compile(
    r"""\s*(?:
        (?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?[a-zA-Z]{0,2}|\.\d+)
      | (?P<str>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*")
      | (?P<quoted>`(?:[^`]|``)*`)
      | (?P<word>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<op><=>|==|!=|<>|<=|>=|\|\||[-+*/%<>=(),.!\[\]:])
    )""",
    re.VERBOSE,
)

_COMPARISONS = {"=": "==", "==": "==", "<=>": "<=>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise ExpressionSyntaxError(f"unexpected text at {pos}")
        kind = match.lastgroup or ""
        value = match.group(kind)
        if kind == "quoted":
            value = value[1:-1].replace("``", "`")
        out.append((kind, value))
        pos = match.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.items = _tokens(text)
        self.pos = 0

    # -- token helpers ---------------------------------------------------------------------------

    def peek(self, offset: int = 0) -> tuple[str, str]:
        index = self.pos + offset
        return self.items[index] if index < len(self.items) else ("end", "")

    def word(self, *words: str) -> bool:
        kind, value = self.peek()
        if kind == "word" and value.lower() in words:
            self.pos += 1
            return True
        return False

    def op(self, *ops: str) -> str | None:
        kind, value = self.peek()
        if kind == "op" and value in ops:
            self.pos += 1
            return value
        return None

    def expect_op(self, op: str) -> None:
        if self.op(op) is None:
            raise ExpressionSyntaxError(f"expected {op!r}")

    def expect_word(self, word: str) -> None:
        if not self.word(word):
            raise ExpressionSyntaxError(f"expected {word}")

    def name(self) -> str:
        kind, value = self.peek()
        if kind in ("word", "quoted", "str"):
            self.pos += 1
            return value.strip("'\"") if kind == "str" else value
        raise ExpressionSyntaxError("expected a name")

    # -- grammar ---------------------------------------------------------------------------------

    def named(self) -> Term:
        """``expr [[AS] alias | AS (a, b)]``, the whole text."""
        expr = self.expr()
        if self.word("as"):
            if self.op("("):
                names = [self.name()]
                while self.op(","):
                    names.append(self.name())
                self.expect_op(")")
                expr = ("alias", expr, tuple(names))
            else:
                expr = ("alias", expr, (self.name(),))
        elif self.peek()[0] in ("word", "quoted"):
            expr = ("alias", expr, (self.name(),))
        if self.peek()[0] != "end":
            raise ExpressionSyntaxError("trailing text")
        return expr

    def expr(self) -> Term:
        left = self.conjunction()
        while self.word("or"):
            left = ("fn", "or", (left, self.conjunction()))
        return left

    def conjunction(self) -> Term:
        left = self.negation()
        while self.word("and"):
            left = ("fn", "and", (left, self.negation()))
        return left

    def negation(self) -> Term:
        if self.word("not") or self.op("!"):
            return ("fn", "not", (self.negation(),))
        return self.predicate()

    def predicate(self) -> Term:
        left = self.additive()
        while True:
            op = self.op("=", "==", "<=>", "<", "<=", ">", ">=", "!=", "<>")
            if op is not None:
                right = self.additive()
                if op in ("!=", "<>"):
                    left = ("fn", "not", (("fn", "==", (left, right)),))
                else:
                    left = ("fn", _COMPARISONS[op], (left, right))
                continue
            if self.word("is"):
                negated = self.word("not")
                self.expect_word("null")
                left = ("fn", "isnotnull" if negated else "isnull", (left,))
                continue
            negated = self.word("not")
            if self.word("in"):
                self.expect_op("(")
                items = [self.expr()]
                while self.op(","):
                    items.append(self.expr())
                self.expect_op(")")
                left = ("fn", "in", (left, *items))
            elif self.word("between"):
                low = self.additive()
                self.expect_word("and")
                high = self.additive()
                left = ("fn", "and", (("fn", ">=", (left, low)), ("fn", "<=", (left, high))))
            elif self.word("like", "rlike", "ilike", "regexp"):
                left = ("fn", "like", (left, self.additive()))
            elif negated:
                raise ExpressionSyntaxError("NOT without IN / BETWEEN / LIKE")
            else:
                return left
            if negated:
                left = ("fn", "not", (left,))

    def additive(self) -> Term:
        left = self.multiplicative()
        while True:
            op = self.op("+", "-", "||")
            if op is None:
                return left
            left = ("fn", "concat" if op == "||" else op, (left, self.multiplicative()))

    def multiplicative(self) -> Term:
        left = self.unary()
        while True:
            op = self.op("*", "/", "%")
            if op is None:
                if self.word("div"):
                    op = "div"
                else:
                    return left
            left = ("fn", op, (left, self.unary()))

    def unary(self) -> Term:
        if self.op("-"):
            return ("fn", "negative", (self.unary(),))
        if self.op("+"):
            return self.unary()
        return self.postfix()

    def postfix(self) -> Term:
        expr = self.primary()
        while True:
            if self.op("["):
                index = self.expr()
                self.expect_op("]")
                expr = ("fn", "element_at", (expr, index))
            elif self.op(":"):
                self.expect_op(":")
                expr = ("cast", expr, self.type_name())
            else:
                return expr

    def type_name(self) -> str:
        name = self.name().lower()
        if self.op("("):
            args = [self.name()]
            while self.op(","):
                args.append(self.name())
            self.expect_op(")")
            return f"{name}({','.join(args)})"
        if self.op("<"):  # array<...>, map<...>, struct<...>: kept as text
            depth, parts = 1, [name, "<"]
            while depth:
                kind, value = self.peek()
                if kind == "end":
                    raise ExpressionSyntaxError("unclosed type")
                self.pos += 1
                depth += {"<": 1, ">": -1}.get(value, 0)
                parts.append(value)
            return "".join(parts)
        return name

    def primary(self) -> Term:
        kind, value = self.peek()
        if kind in ("num", "str"):
            self.pos += 1
            return _literal(kind, value)
        if kind == "op" and value == "(":
            self.pos += 1
            inner = self.expr()
            self.expect_op(")")
            return inner
        if kind == "op" and value == "*":
            self.pos += 1
            return ("star", (), None)
        if kind == "word":
            lowered = value.lower()
            if lowered in ("true", "false", "null"):
                self.pos += 1
                if not keeping_literals():
                    return ("lit",)
                return ("lit", "NULL" if lowered == "null" else lowered)
            if lowered in ("date", "timestamp", "interval", "x") and self.peek(1)[0] == "str":
                self.pos += 2
                if lowered not in ("date", "timestamp") or not keeping_literals():
                    return ("lit",)
                return ("lit", f"{value.upper()} {_literal('str', self.items[self.pos - 1][1])[1]}")
            if lowered == "case":
                self.pos += 1
                return self.case()
            if lowered in ("cast", "try_cast") and self.peek(1) == ("op", "("):
                self.pos += 2
                child = self.expr()
                self.expect_word("as")
                target = self.type_name()
                self.expect_op(")")
                return ("cast", child, target)
        if kind in ("word", "quoted"):
            if kind == "word" and self.peek(1) == ("op", "("):
                return self.call()
            parts = [self.name()]
            while self.peek() == ("op", ".") and self.peek(1)[0] in ("word", "quoted", "op"):
                self.pos += 1
                if self.op("*"):
                    return ("star", tuple(parts), None)
                parts.append(self.name())
            return ("col", tuple(parts), None)
        raise ExpressionSyntaxError(f"unexpected {kind} token")  # never the text: it may hold values

    def case(self) -> Term:
        subject = None if self.peek() == ("word", "WHEN") or self.peek()[1].lower() == "when" else self.expr()
        args: list[Term] = []
        while self.word("when"):
            condition = self.expr()
            if subject is not None:
                condition = ("fn", "==", (subject, condition))
            self.expect_word("then")
            args.extend((condition, self.expr()))
        if self.word("else"):
            args.append(self.expr())
        self.expect_word("end")
        if not args:
            raise ExpressionSyntaxError("CASE without WHEN")
        return ("fn", "when", tuple(args))

    def call(self) -> Term:
        name = self.name().lower()
        self.expect_op("(")
        distinct = self.word("distinct")
        args: list[Term] = []
        if self.op(")") is None:
            args.append(self.expr())
            while self.op(","):
                args.append(self.expr())
            self.expect_op(")")
        if self.word("over") or self.word("filter") or self.word("within"):
            raise ExpressionSyntaxError("window or aggregate clauses in an expression string")
        return ("fn", name, tuple(args), distinct)


def _literal(kind: str, value: str) -> Term:
    """A literal's term: with its text as Spark prints it while descriptions want it (else none)."""
    if not keeping_literals():
        return ("lit",)
    if kind == "num":
        text = number_literal(value)
        return ("lit", text) if text is not None else ("lit",)
    body = value[1:-1]
    if value.startswith("'"):
        body = body.replace("''", "'")
    body = re.sub(r"\\(.)", r"\1", body)
    return ("lit", string_literal(body))


def parse_expression(text: str) -> Term:
    """The term of one expression string (``"upper(status) AS s"``); raises ExpressionSyntaxError."""
    return _Parser(text).named()


#: Generators that yield no row for a null or empty collection: the classic analyzer makes a
#: ``Generate`` of a projected one, under which Spark's optimizer infers a filter on the collection
#: when it is a column (the column lineage engine reports it as FILTER); a ``Filter`` on it here
#: gives the same lineage.
_ROW_DROPPING_GENERATORS = frozenset({"explode", "posexplode", "inline"})
#: Collections built in the query itself: never null, their size known; a column holding one gets
#: no inferred filter (the optimizer simplifies it away).
_COLLECTION_BUILDERS = frozenset({"array", "map", "create_map", "struct", "named_struct"})


def filtered_collection(term: Term) -> Term | None:
    """The column a projected row-dropping generator reads (its only argument, a ``col`` term),
    or None: Spark infers no filter for a generator of an expression (``split(a, ' ')``)."""
    while term[0] == "alias":
        term = term[1]
    if term[0] != "fn" or term[1] not in _ROW_DROPPING_GENERATORS or len(term[2]) != 1:
        return None
    collection = term[2][0]
    return collection if collection[0] == "col" else None


def holds_collection_built(term: Term) -> bool:
    """Whether ``term`` (through aliases and casts) is a collection built in the query."""
    while term[0] in ("alias", "cast"):
        term = term[1]
    return term[0] == "fn" and term[1] in _COLLECTION_BUILDERS


__all__ = [
    "ExpressionSyntaxError",
    "Term",
    "filtered_collection",
    "holds_collection_built",
    "parse_expression",
]
