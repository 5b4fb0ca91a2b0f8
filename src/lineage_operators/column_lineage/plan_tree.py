"""Spark's ``TreeNode.toJSON()`` as a small tree of :class:`Node`, tolerant of anything odd.

The JSON is a pre-order array: each object names its ``class`` and ``num-children``, and its children
follow it. Constructor fields holding an expression (or a plan that is not a child, like a subquery's)
are themselves such arrays; a list of expressions is a list of arrays. Parsing is iterative (plans and
expressions can be thousands of levels deep) and stops quietly at the first malformed object, so a
truncated or foreign document yields a partial tree, never an exception.
"""

from __future__ import annotations

from typing import Any


class Node:
    """One plan or expression node: short class name, raw constructor fields, parsed children."""

    __slots__ = ("children", "cls", "fields")

    def __init__(self, cls: str, fields: dict[str, Any]) -> None:
        self.cls = cls
        self.fields = fields
        self.children: list[Node] = []

    def __repr__(self) -> str:
        return f"Node({self.cls}, {len(self.children)} children)"


_SHORT: dict[str, str] = {}


def short_class(name: str) -> str:
    """``org.apache.spark.sql.catalyst.plans.logical.Project`` -> ``Project`` (``Inner$`` -> ``Inner``)."""
    short = _SHORT.get(name)
    if short is None:
        short = name.rsplit(".", 1)[-1].rstrip("$")
        if len(_SHORT) < 10_000:
            _SHORT[name] = short
    return short


def parse_tree(items: Any) -> Node | None:
    """The tree of a pre-order node array; None when ``items`` does not start with a node."""
    if not isinstance(items, list):
        return None
    if len(items) == 1:  # fast path: a lone attribute or literal, most of a big plan's arrays
        item = items[0]
        if isinstance(item, dict) and item.get("num-children") == 0:
            cls = item.get("class")
            return Node(short_class(cls), item) if isinstance(cls, str) else None
    root: Node | None = None
    stack: list[list[Any]] = []  # [node, children still expected]
    for item in items:
        if not isinstance(item, dict):
            break
        cls = item.get("class")
        count = item.get("num-children", 0)
        if not isinstance(cls, str) or not isinstance(count, int) or count < 0:
            break
        node = Node(short_class(cls), item)
        if stack:
            parent = stack[-1]
            parent[0].children.append(node)
            parent[1] -= 1
            if parent[1] == 0:
                stack.pop()
        elif root is None:
            root = node
        else:
            break  # trailing objects after a complete tree
        if count:
            stack.append([node, count])
    return root


def expr_field(node: Node, name: str) -> Node | None:
    """The expression held by a field (an ``Option`` serialises as the array or null)."""
    return parse_tree(node.fields.get(name))


def expr_list_field(node: Node, name: str) -> list[Node]:
    """The expressions of a ``Seq[Expression]`` field, skipping anything unparsable."""
    value = node.fields.get(name)
    if not isinstance(value, list):
        return []
    parsed = (parse_tree(item) for item in value)
    return [expr for expr in parsed if expr is not None]


def head_class(items: Any) -> str:
    """Short class of the first node of a node array, without parsing the rest."""
    if isinstance(items, list) and items and isinstance(items[0], dict):
        cls = items[0].get("class")
        if isinstance(cls, str):
            return short_class(cls)
    return ""


def attribute_list(value: Any) -> list[tuple[int, str]]:
    """``(exprId, name)`` of each attribute of a ``Seq[Attribute]`` field, straight from the JSON."""
    attrs: list[tuple[int, str]] = []
    for item in value if isinstance(value, list) else ():
        attr = raw_attribute(item)
        if attr is not None:
            attrs.append(attr)
    return attrs


def raw_attribute(items: Any) -> tuple[int, str] | None:
    """``(exprId, name)`` of a named expression array (its first node), or None."""
    try:
        head = items[0]
        ident = head["exprId"]["id"]
        name = head["name"]
    except (LookupError, TypeError):
        return None
    if type(ident) is int and type(name) is str:
        return ident, name
    return None


def raw_expr_id(fields: dict[str, Any], field: str = "exprId") -> int | None:
    value = fields.get(field)
    if isinstance(value, dict):
        ident = value.get("id")
        if type(ident) is int:
            return ident
    return None


def expr_id(node: Node, field: str = "exprId") -> int | None:
    """The ``id`` of an ``ExprId`` field (attributes, aliases, subquery results)."""
    return raw_expr_id(node.fields, field)


def name_of(node: Node) -> str:
    name = node.fields.get("name")
    return name if isinstance(name, str) else ""


def object_name(value: Any) -> str:
    """Short name of a serialised Scala object or case class (``{"object": "...Inner$"}``)."""
    if isinstance(value, dict):
        for key in ("object", "product-class"):
            name = value.get(key)
            if isinstance(name, str):
                return short_class(name)
    return ""
