"""Plan node lines -> the compact plan JSON of the column-lineage engine (pre-order node arrays).

Each node's text is its class and its arguments (``Aggregate [grouping], [aggregates]``: Spark's
``argString``, where empty lists and ``None`` are left out). Only the nodes and fields the engine
reads are rendered (:mod:`lineage_operators.column_lineage.plan_walk`); a node it would not know
is listed in :attr:`Renderer.unknown`, and the caller then gives no facet rather than a partial one.
Leaves are listed with their table name (None for a file read), the temp or persistent view they sit
under, and the exprIds of their columns, for the caller to join them to its input datasets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lineage_operators.plan_text.exprs import Expr, ExprParser, Masked, Names, alias_of, split_top
from lineage_operators.plan_text.lines import Line

#: Nodes whose output is their first child's; rendered with their class only.
PASS_THROUGH = frozenset(
    {
        "SubqueryAlias", "View", "GlobalLimit", "LocalLimit", "Limit", "Offset", "Tail", "Sample",
        "Repartition", "RepartitionByExpression", "RebalancePartitions", "ResolvedHint", "Subquery",
        "EventTimeWatermark", "WithWindowDefinition", "CollectMetrics",
    }
)  # fmt: skip
_JOIN_TYPES = frozenset({"Inner", "Cross", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti"})
_LEAF = re.compile(r"^(?:Relation|RelationV2|HiveTableRelation|LocalRelation|StreamingRelation\w*)\b")
_SUBQUERY_CLASSES = {
    "scalar-subquery": "ScalarSubquery",
    "exists": "Exists",
    "list": "ListQuery",
    "lateral-subquery": "LateralSubquery",
}


@dataclass
class Leaf:
    """A leaf relation of the plan: its table (``db.t`` as printed) or None, and its columns."""

    kind: str
    table: str | None
    file_format: str | None
    view: str | None
    columns: list[tuple[int, str]]


class Renderer:
    """Renders a :class:`Line` tree; ``leaves`` and ``unknown`` are filled as it goes."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self.leaves: list[Leaf] = []
        self.unknown: list[str] = []
        self.types: dict[int, str] = {}

    def render(self, line: Line, view: str | None = None) -> list[dict[str, Any]]:
        """The pre-order array of ``line``'s subtree (children follow each node)."""
        out: list[dict[str, Any]] = []
        stack: list[tuple[Line, str | None]] = [(line, view)]
        while stack:
            node, under = stack.pop()
            cls, _, args = node.text.partition(" ")
            if cls == "View":
                under = _view_name(args)
            item = self._node(cls, args.strip(), node, under)
            item["num-children"] = len(node.children)
            out.append(item)
            stack.extend((child, under) for child in reversed(node.children))
        return out

    # -- one node --------------------------------------------------------------------------------

    def _node(self, cls: str, args: str, line: Line, view: str | None) -> dict[str, Any]:
        if _LEAF.match(cls) or cls.startswith("Relation"):
            return self._leaf(cls, args, view)
        if cls in PASS_THROUGH or cls in ("Distinct", "OneRowRelation"):
            return {"class": cls}
        if cls == "Range":
            return {"class": cls, "output": []}
        masked = Masked(self.names)
        parser = ExprParser(masked, lambda kind, ident, index: self._subquery(kind, ident, index, line, view))
        parts = split_top(args)
        if cls == "Project":
            return {"class": cls, "projectList": self._list(parser, args)}
        if cls == "Filter":
            return {"class": cls, "condition": self._items(parser.parse(args))}
        if cls == "Aggregate":
            grouping = parser.parse_list(parts[0]) if len(parts) > 1 else []
            return {
                "class": cls,
                "groupingExpressions": [self._items(e) for e in grouping],
                "aggregateExpressions": self._list(parser, parts[-1] if parts else ""),
            }
        if cls == "Window":
            return {"class": cls, "windowExpressions": self._list(parser, parts[0] if parts else "")}
        if cls == "Sort":
            return {
                "class": cls,
                "order": [self._items(e) for e in parser.parse_list(parts[0] if parts else "")],
            }
        if cls == "Join":
            kind = parts[0] if parts else ""
            if kind not in _JOIN_TYPES:
                self.unknown.append(f"Join {kind}")
            condition = ", ".join(parts[1:])
            return {
                "class": cls,
                "joinType": {"object": kind},
                "condition": self._items(parser.parse(condition)) if condition else None,
            }
        if cls in ("Union", "Intersect", "Except"):
            return {"class": cls, "isAll": bool(parts) and parts[0] == "true"}
        if cls == "Deduplicate":
            return {
                "class": cls,
                "keys": [self._items(e) for e in parser.parse_list(parts[0] if parts else "")],
            }
        if cls == "Expand":
            rows = [[self._items(e) for e in parser.parse_list(row)] for row in split_top(parts[0][1:-1])]
            return {"class": cls, "projections": rows, "output": self._attrs(parser, parts[-1])}
        if cls == "Generate":
            return self._generate(parser, parts)
        if cls == "WithCTE":
            return {"class": cls, "plan": len(line.children) - 1}
        if cls == "CTERelationDef":
            return {"class": cls, "id": _int(parts[0]) if parts else None}
        if cls == "CTERelationRef":
            output = next((p for p in parts if p.startswith("[")), "[]")
            return {"class": cls, "cteId": _int(parts[0]), "output": self._attrs(parser, output)}
        self.unknown.append(cls)
        return {"class": cls}

    def _leaf(self, cls: str, args: str, view: str | None) -> dict[str, Any]:
        kind = cls.split("[", 1)[0]
        text = (cls + " " + args) if "[" in cls else args
        table: str | None = None
        file_format: str | None = None
        if kind == "HiveTableRelation":
            inner = text[text.find("[") + 1 : text.rfind("]")]
            table = split_top(inner)[0].replace("`", "") if inner else None
            data = re.search(r"Data Cols: (\[[^\]]*\])", inner)
            parts = re.search(r"Partition Cols: (\[[^\]]*\])", inner)
            listed = (data.group(1)[1:-1] if data else "") + "," + (parts.group(1)[1:-1] if parts else "")
        else:
            open_at, close_at = text.find("["), text.rfind("]")
            listed = text[open_at + 1 : close_at] if 0 <= open_at < close_at else ""
            if kind == "RelationV2":
                table = text[close_at + 1 :].strip() or None
            elif kind == "Relation":
                table = text[len("Relation") : open_at].strip() if text.startswith("Relation") else None
                table = (text[:open_at].strip() or None) if table is None else (table or None)
                file_format = text[close_at + 1 :].strip() or None
        columns = []
        for item in split_top(listed):
            name, _, ident = item.rpartition("#")
            long = ident.endswith("L")
            if name and ident.rstrip("L").isdigit():
                columns.append((int(ident.rstrip("L")), name.strip()))
                self.names.define(columns[-1][0], columns[-1][1], long)
        self.leaves.append(Leaf(kind, table, file_format, view, columns))
        output = [[_attr(i, n, self.types.get(i))] for i, n in columns]
        return {"class": "LogicalRelation" if kind == "Relation" else kind, "output": output}

    def _generate(self, parser: ExprParser, parts: list[str]) -> dict[str, Any]:
        generator = parser.parse(parts[0]) if parts else Expr("Literal")
        outer = any(p == "true" for p in parts[1:3])
        unrequired = parts[1] if len(parts) > 1 and parts[1].startswith("[") and len(parts) > 4 else "[]"
        return {
            "class": "Generate",
            "generator": self._items(generator),
            "outer": outer,
            "unrequiredChildIndex": [_int(i) for i in split_top(unrequired[1:-1])],
            "generatorOutput": self._attrs(parser, parts[-1] if parts else "[]"),
        }

    def _subquery(self, kind: str, ident: int, index: int, line: Line, view: str | None) -> Expr:
        cls = _SUBQUERY_CLASSES[kind]
        if index >= len(line.inner):
            self.unknown.append(cls)
            return Expr("Literal")
        return Expr(cls, [], {"plan": self.render(line.inner[index], view), "exprId": {"id": ident}})

    # -- expressions -----------------------------------------------------------------------------

    def _list(self, parser: ExprParser, text: str) -> list[list[dict[str, Any]]]:
        """A named-expression list: ``a#1`` or ``expr AS name#id`` per item."""
        body = text.strip()
        if body.startswith("[") and body.endswith("]"):
            body = body[1:-1]
        out = []
        for item in split_top(body):
            alias = alias_of(item)
            if alias is None:
                out.append(self._items(parser.parse(item)))
                continue
            expr_text, ident, name, _ = alias
            child = parser.parse(expr_text)
            kind = self._type_of(child)
            if kind is not None:
                self.types.setdefault(ident, kind)
            out.append(
                [
                    {"class": "Alias", "num-children": 1, "name": name, "exprId": {"id": ident}},
                    *self._items(child),
                ]
            )
        return out

    def _attrs(self, parser: ExprParser, text: str) -> list[list[dict[str, Any]]]:
        return [self._items(e) for e in parser.parse_list(text) if e.cls == "AttributeReference"]

    def _type_of(self, expr: Expr) -> str | None:
        if expr.cls == "Cast":
            return expr.fields.get("dataType")
        if expr.cls == "AttributeReference":
            return self.types.get(expr.fields["exprId"]["id"])
        return None

    def _items(self, expr: Expr) -> list[dict[str, Any]]:
        """The pre-order array of one expression (its attributes typed where known)."""
        out: list[dict[str, Any]] = []
        stack = [expr]
        while stack:
            node = stack.pop()
            item: dict[str, Any] = {"class": node.cls, "num-children": len(node.children), **node.fields}
            if node.cls == "AttributeReference":
                ident = node.fields["exprId"]["id"]
                kind = self.types.get(ident) or ("long" if ident in self.names.longs else None)
                if kind is not None:
                    item["dataType"] = kind
            elif node.cls == "OuterReference":
                item["e"] = self._items(node.fields["e"])
            out.append(item)
            stack.extend(reversed(node.children))
        return out


def _view_name(args: str) -> str | None:
    match = re.match(r"\(([^,]*)", args)
    return match.group(1).replace("`", "").strip() if match else None


def _attr(ident: int, name: str, kind: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "class": "AttributeReference",
        "num-children": 0,
        "name": name,
        "exprId": {"id": ident},
    }
    if kind is not None:
        item["dataType"] = kind
    return item


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


__all__ = ["PASS_THROUGH", "Leaf", "Renderer"]
