"""The analyzed logical plan's text (``explain(extended)``) as a tree of node lines.

Spark prints a plan one node per line, each child under its parent with a prefix of three-character
pieces (``:- `` / ``+- `` before the node, ``:  `` / ``   `` for the levels above). A node's
*inner* children (the plans of its subquery expressions, a V1 CTAS command's query) are printed
before its children, two levels deeper (``TreeNode.generateTreeString``). So a line two levels
under the last open node, before any child of it, is an inner child: that is how the plan of
``scalar-subquery#12`` is told from the node's own children. Pure, never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ANALYZED = "== Analyzed Logical Plan =="
_PREFIX = re.compile(r"^((?::  |   |\+- |:- )*)")


@dataclass
class Line:
    """One plan node's text, its children and its inner children (subquery plans), in order."""

    text: str
    depth: int
    children: list[Line] = field(default_factory=list)
    inner: list[Line] = field(default_factory=list)


def analyzed_section(explain: str) -> list[str]:
    """The lines of the analyzed plan, without the output-schema line a query's plan starts with."""
    start = explain.find(ANALYZED)
    if start < 0:
        return []
    body = explain[start + len(ANALYZED) :].lstrip("\n")
    end = body.find("\n== ")
    lines = [line for line in (body if end < 0 else body[:end]).split("\n") if line.strip()]
    if len(lines) > 1 and not _prefix(lines[1]) and not _prefix(lines[0]):
        lines = lines[1:]  # "a: bigint, b: string": the query's output schema, not a node
    return lines


def _prefix(line: str) -> str:
    match = _PREFIX.match(line)
    return match.group(1) if match else ""


def line_tree(lines: list[str]) -> Line | None:
    """The root node line of a plan's lines; None when they are not one tree."""
    root: Line | None = None
    stack: list[Line] = []
    for raw in lines:
        prefix = _prefix(raw)
        if len(prefix) % 3:
            return None
        line = Line(raw[len(prefix) :], len(prefix) // 3)
        while stack and stack[-1].depth >= line.depth:
            stack.pop()
        if not stack:
            if root is not None:
                return None
            root = line
        elif stack[-1].depth == line.depth - 1:
            stack[-1].children.append(line)
        elif stack[-1].depth == line.depth - 2 and not stack[-1].children:
            stack[-1].inner.append(line)
        else:
            return None
        stack.append(line)
    return root


__all__ = ["ANALYZED", "Line", "analyzed_section", "line_tree"]
