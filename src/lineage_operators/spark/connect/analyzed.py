"""Column lineage of SQL over Spark Connect from the server's own analyzer.

The server analyzes every statement it runs and prints the analyzed logical plan on request
(``AnalyzePlan`` explain, extended mode; nothing runs). That text, parsed
(:mod:`lineage_operators.plan_text`), is the plan the classic capture walks, analyzed by the same
Spark, so the classic engine gives the classic facet for whatever SQL the server accepts. One
round trip per written statement; a plan whose lists Spark cut (more than
``spark.sql.debug.maxToStringFields`` items) is asked for once more with a wider setting, restored
right after. Leaves are joined to the statement's input datasets: a table by its name, a file read
by the temp view it sits under (or the one path the statement names) and its columns. A leaf that
cannot be joined, a node the parser does not render or a plan still cut gives None: the caller
keeps its translation (spark/connect/columns), never a partial facet.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger, log_once
from lineage_operators.column_lineage import PlanColumnLineage, SourceColumn, lineage_of_plan
from lineage_operators.plan_text import AnalyzedPlan, Leaf, parse_analyzed
from lineage_operators.spark.facts import RelationFacts

log = get_logger(__name__)

#: ``spark.sql.debug.maxToStringFields`` for the second ask of a plan Spark cut.
WIDE_FIELDS = 100_000
#: Plan texts longer than this give no facet (one log line): parsing costs about 2 s a MB, and the
#: server's explain of such a plan took tens of seconds (docs/history.md, 2026-11-29 evening).
MAX_PLAN_CHARS = 2_000_000
#: Plan text per character of SQL and per (output column x SELECT) the size guess before asking
#: assumes: TPC-H's statements (0.5-2 KB) give 3-13 KB of plan text; a 50-way ``UNION ALL`` of 300
#: computed columns gave 3.1 MB (about 200 characters per column and branch).
CHARS_PER_SQL_CHAR = 10
CHARS_PER_COLUMN_AND_SELECT = 200
_SELECT = re.compile(r"\bselect\b", re.IGNORECASE)
#: Leaves with no dataset (VALUES, ranges, a row of literals): their columns are nobody's inputs.
NO_DATASET = frozenset({"LocalRelation", "Range", "OneRowRelation"})


def analyzed_column_lineage(
    explain: Callable[[bool], str],
    output_names: Sequence[str] | None,
    inputs: Sequence[RelationFacts],
    file_candidates: Callable[[str | None], list[list[RelationFacts]]],
    ids: Iterator[int],
    *,
    optimized: bool = True,
    statement: str = "",
) -> PlanColumnLineage | None:
    """The written query's column lineage from the server's analyzed plan, or None (logged once).

    ``explain(wide)``: the statement's ``explain(extended)`` text from the server (``wide``: with
    lists uncut); ``inputs``: the execution's input relations; ``file_candidates(view)``: the
    relation lists a file leaf under that temp view (None: under none) may be; ``ids``: the
    capture's id counter (the server's exprIds are renumbered into it); ``statement``: the SQL text,
    whose guessed plan size (:func:`expected_plan_chars`) decides before asking: the server analyzes,
    optimizes and plans the statement for explain, tens of seconds for a plan of megabytes, which the
    capture's stop at the task's end waits for.
    """
    try:
        guess = expected_plan_chars(statement, len(output_names or ()))
        if guess > MAX_PLAN_CHARS:
            _skip(f"the statement's plan text would be about {guess} characters (more than {MAX_PLAN_CHARS})")
            return None
        plan = _plan(explain)
        if plan is None:
            return None
        joined = _join_leaves(plan.leaves, inputs, file_candidates)
        if joined is None:
            return None
        types = {ident: kind for leaf, rels in joined for ident, kind in _types(leaf, rels).items()}
        typed = parse_analyzed(plan.source, types) if types else plan.plan
        if typed is None:
            return None
        lineage = lineage_of_plan(typed.items, output_names, optimized)
        if lineage.unknown_nodes:
            _skip("the engine does not know " + ", ".join(lineage.unknown_nodes))
            return None
    except Exception as exc:  # a lookup or a parse that failed: this write's lineage only
        _skip(describe(exc))
        return None
    return _renumbered(lineage, joined, ids)


def explains_without_running(server_version: str) -> bool:
    """Whether the server only analyzes a SQL command it is asked to explain: a 4.0 server runs it
    (an ``INSERT`` explained there inserted its rows once more), 4.1 and later do not (measured
    2026-11-29 on 4.0, 4.1 and 4.3)."""
    parts = re.findall(r"\d+", server_version)[:2]
    return len(parts) == 2 and (int(parts[0]), int(parts[1])) >= (4, 1)


def expected_plan_chars(statement: str, output_columns: int) -> int:
    """A guess, from what the client knows before asking, of the plan text's length: the larger of
    the SQL text's length and the output columns times its SELECTs (each a node listing about that
    many columns), scaled by the measured ratios above."""
    selects = max(1, len(_SELECT.findall(statement)))
    return max(CHARS_PER_SQL_CHAR * len(statement), CHARS_PER_COLUMN_AND_SELECT * output_columns * selects)


class _Fetched:
    def __init__(self, source: str, plan: AnalyzedPlan) -> None:
        self.source = source
        self.plan = plan
        self.leaves = plan.leaves


def _plan(explain: Callable[[bool], str]) -> _Fetched | None:
    text = explain(False)
    plan = parse_analyzed(text) if len(text) <= MAX_PLAN_CHARS else None
    if plan is not None and plan.truncated:
        text = explain(True)
        plan = parse_analyzed(text) if len(text) <= MAX_PLAN_CHARS else None
    if len(text) > MAX_PLAN_CHARS:
        _skip(f"the server's plan text has {len(text)} characters (more than {MAX_PLAN_CHARS})")
        return None
    if plan is None or not plan.items:
        _skip("no analyzed plan in the server's answer")
        return None
    if plan.truncated:
        _skip("the server's plan text is cut")
        return None
    if plan.unknown:
        _skip("plan text not understood: " + ", ".join(plan.unknown[:5]))
        return None
    return _Fetched(text, plan)


def _join_leaves(
    leaves: list[Leaf],
    inputs: Sequence[RelationFacts],
    file_candidates: Callable[[str | None], list[list[RelationFacts]]],
) -> list[tuple[Leaf, list[RelationFacts]]] | None:
    joined = []
    for leaf in leaves:
        if leaf.kind in NO_DATASET:
            continue
        rels = _table_rels(leaf.table, inputs) if leaf.table else _file_rels(leaf, file_candidates)
        if not rels:
            _skip(f"a leaf of the plan is not one of the statement's inputs ({leaf.table or 'a file'})")
            return None
        joined.append((leaf, rels))
    return joined


def _table_rels(table: str, inputs: Sequence[RelationFacts]) -> list[RelationFacts]:
    parts = [p.strip("`").lower() for p in table.split(".")]
    found = []
    for rel in inputs:
        ref = rel.table
        if ref is None:
            continue
        known = [p.lower() for p in (ref.database, ref.table) if p]
        if len(parts) >= len(known) and parts[-len(known) :] == known:
            found.append(rel)
    return found


def _file_rels(
    leaf: Leaf, file_candidates: Callable[[str | None], list[list[RelationFacts]]]
) -> list[RelationFacts]:
    """The one candidate relation list whose schema has the leaf's columns."""
    columns = [name.lower() for _, name in leaf.columns]
    fitting = [rels for rels in file_candidates(leaf.view) if rels and _names(rels[0]) == columns]
    distinct = {tuple(id(r) for r in rels): rels for rels in fitting}
    return next(iter(distinct.values())) if len(distinct) == 1 else []


def _names(rel: RelationFacts) -> list[str] | None:
    fields = _fields(rel)
    return None if fields is None else [str(f.get("name", "")).lower() for f in fields]


def _fields(rel: RelationFacts) -> list[dict[str, Any]] | None:
    try:
        spec = json.loads(rel.schema_text or "")
    except ValueError:
        return None
    if not isinstance(spec, dict):
        return None
    return [f for f in spec.get("fields") or [] if isinstance(f, dict)]


def _types(leaf: Leaf, rels: list[RelationFacts]) -> dict[int, Any]:
    """The leaf's columns' JSON types, from the server's schema of the dataset it reads."""
    fields = {str(f.get("name", "")).lower(): f.get("type") for f in _fields(rels[0]) or []}
    return {ident: fields[name.lower()] for ident, name in leaf.columns if name.lower() in fields}


def _renumbered(
    lineage: PlanColumnLineage, joined: list[tuple[Leaf, list[RelationFacts]]], ids: Iterator[int]
) -> PlanColumnLineage:
    """The server's exprIds as the capture's own ids (unique across the task's executions), put
    on the input relations each leaf was joined to."""
    mapping: dict[int, int] = {}
    for leaf, rels in joined:
        fresh = []
        for ident, _ in leaf.columns:
            mapping.setdefault(ident, next(ids))
            fresh.append(mapping[ident])
        for rel in rels:
            rel.expr_ids = (*rel.expr_ids, *fresh)

    def moved(columns: dict[SourceColumn, Any]) -> dict[SourceColumn, Any]:
        return {
            replace(column, expr_id=mapping[column.expr_id]): kinds
            for column, kinds in columns.items()
            if column.expr_id in mapping
        }

    return replace(
        lineage,
        fields={name: moved(columns) for name, columns in lineage.fields.items()},
        dataset=moved(lineage.dataset),
    )


def _skip(reason: str) -> None:
    log_once(
        log,
        f"analyzed:{reason[:40]}",
        logging.INFO,
        "lineage capture: SQL column lineage over Spark Connect without the server's plan: %s",
        reason[:300],
    )


__all__ = ["WIDE_FIELDS", "analyzed_column_lineage", "expected_plan_chars", "explains_without_running"]
