"""Spark's analyzed logical plan as text (``explain(extended)``, what a Spark Connect server gives a
client through ``AnalyzePlan``) -> the compact plan JSON the column-lineage engine reads.

Over Spark Connect the client holds no analyzed plan; the server prints one on request, every
attribute resolved to its ``#exprId``. Parsed here (pure, table-tested on plan texts), the classic
engine (:func:`lineage_operators.column_lineage.lineage_of_plan`) walks the same plan the classic
capture walks, analyzed by the same Spark: no client-side reimplementation of the analyzer.

    plan = parse_analyzed(explain_text, types)   # None: no analyzed plan in the text
    plan.items     # the written query's plan JSON (a write command's query; its leaves' columns)
    plan.leaves    # Leaf per leaf relation: table name or None (a file), view above it, columns
    plan.unknown   # node classes the text parser does not render (the caller gives no facet)
    plan.truncated # Spark cut a list ("... 3 more fields"): ask again with a wider plan string

``types``: ``{exprId: JSON type}`` of leaf columns when the caller knows them (the server's
schemas), so a cast that keeps the value reads as IDENTITY, as in the classic plan JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lineage_operators.plan_text.exprs import Names
from lineage_operators.plan_text.lines import Line, analyzed_section, line_tree
from lineage_operators.plan_text.nodes import Leaf, Renderer

_TRUNCATED = re.compile(r"\.\.\. \d+ more fields")
#: Root nodes that are write commands: their query is their only child or inner child.
_COMMAND = re.compile(r"^\w*(Command|AsSelect|Insert\w*|AppendData|Overwrite\w*|ReplaceData|WriteDelta)\b")


@dataclass
class AnalyzedPlan:
    items: list[dict[str, Any]]
    leaves: list[Leaf] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    truncated: bool = False


def query_line(root: Line) -> Line:
    """The written query of a write command's line (its only child or inner child)."""
    while _COMMAND.match(root.text) and len(root.children) + len(root.inner) == 1:
        root = (root.children or root.inner)[0]
    return root


def parse_analyzed(explain: str, types: Mapping[int, str] | None = None) -> AnalyzedPlan | None:
    """See the module docstring. Never raises: odd text gives None or a plan listing ``unknown``."""
    try:
        lines = analyzed_section(explain)
        root = line_tree(lines)
        if root is None:
            return None
        truncated = any(_TRUNCATED.search(line) for line in lines)
        names = Names()
        for line in lines:
            names.define_from(line)
        renderer = Renderer(names)
        renderer.types.update(names.types)
        renderer.types.update(types or {})
        items = renderer.render(query_line(root))
        return AnalyzedPlan(items, renderer.leaves, renderer.unknown, truncated)
    except Exception as exc:  # a shape no rule foresaw: no plan, never an exception
        return AnalyzedPlan([], [], [f"<unparsable plan text: {type(exc).__name__}>"])


__all__ = ["AnalyzedPlan", "Leaf", "parse_analyzed", "query_line"]
