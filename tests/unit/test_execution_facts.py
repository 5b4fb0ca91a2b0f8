"""The one function turning what was read of an execution (``plan.execution.ExecutionRead``, the same
from the one-call and the step-by-step reading) into its facts, without Spark: the JVM's answers come
from a stub source, one case per rule of the assembly."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from lineage_operators.spark.facts import ExecutionFacts, RelationFacts, TableRef
from lineage_operators.spark.jvm.text import CTSEP, RSEP, SEP, SEP3
from lineage_operators.spark.plan.execution import ExecutionRead, Observation, execution_facts
from lineage_operators.spark.tables.iceberg_scans import ScanFacts

_WRITE = "org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand"


def _root(cls: str, fields: tuple[str, ...] = (), sql: str | None = None, view_sql: str | None = None) -> str:
    """A root record: class, the command's fields, SQL candidates (text, object type)."""
    candidates = [f"{view_sql}{CTSEP}VIEW"] if view_sql else []
    candidates += [sql] if sql else []
    return SEP.join([cls, SEP3.join(fields), SEP3.join(candidates)])


def _leaf(
    location: str = "", table: str = "", relation_id: str = "", expr_id: str = "", provider: str = ""
) -> list[str | None]:
    """A leaf record as the stub source parses it (the real layout is the leaves module's)."""
    return [location or None, table or None, relation_id or None, expr_id or None, provider or None]


def _stats(relation_id: str, rows: int, size: int, files: int) -> str:
    return SEP.join([relation_id, "", "", str(size), str(files), "", str(rows)])


@dataclass
class _Source:
    """The JVM's answers: outputs and RDD files given per case; every question recorded."""

    outputs_: list[RelationFacts] = field(default_factory=list)
    rdd_: list[str] = field(default_factory=list)
    lineage: Any = None
    asked: list[tuple[Any, ...]] = field(default_factory=list)

    def inputs(self, records: list[list[str | None]], schema_text: str | None) -> list[RelationFacts]:
        self.asked.append(("inputs", len(records), schema_text))
        return [
            RelationFacts(
                location=r[0],
                table=TableRef("db", r[1]) if r[1] else None,
                relation_id=r[2],
                expr_ids=(int(r[3]),) if r[3] else (),
                provider=r[4],
            )
            for r in records
        ]

    def outputs(
        self, cls: str, fields: list[str | None], facts: ExecutionFacts, metrics_text: str | None
    ) -> list[RelationFacts]:
        self.asked.append(("outputs", cls, tuple(fields), metrics_text, len(facts.inputs)))
        return [RelationFacts(**vars(o)) for o in self.outputs_]

    def rdd_locations(self, cls: str | None) -> list[str]:
        self.asked.append(("rdd", cls))
        return self.rdd_

    def column_lineage(
        self, cls: str | None, facts: ExecutionFacts, query_facts: str | None, plan_json: str | None
    ) -> Any:
        self.asked.append(("lineage", cls, query_facts, plan_json))
        return self.lineage


def _summary(facts: ExecutionFacts | None) -> Any:
    if facts is None:
        return None

    def rel(r: RelationFacts) -> dict[str, Any]:
        keys = ("location", "table", "rows", "size", "files", "observed", "version", "scan_report")
        return {k: getattr(r, k) for k in keys if getattr(r, k) is not None}

    return {
        "ids": (facts.qe_id, facts.query_id),
        "root": facts.root,
        "sql": facts.sql,
        "inputs": [rel(r) for r in facts.inputs],
        "outputs": [rel(r) for r in facts.outputs],
        "lineage": facts.column_lineage,
    }


_REPORT: Any = object()  # a scan report stands in for its content: only where it goes matters
_OUT = RelationFacts(location="/out", table=TableRef("db", "t"), written_version="7")

CASES: list[tuple[str, ExecutionRead, _Source, Any, list[tuple[Any, ...]]]] = [
    (
        "analysis failed: no facts, nothing asked",
        ExecutionRead(3, "qe:3", analyzed=False),
        _Source(),
        None,
        [],
    ),
    (
        "a read: its inputs, the SQL not from a view; its root asked for outputs (none)",
        ExecutionRead(4, "qe:4", True, _root("Project", sql="SELECT 1", view_sql="SELECT v"), [_leaf("/in")]),
        _Source(),
        {
            "ids": (4, "qe:4"),
            "root": "Project",
            "sql": "SELECT 1",
            "inputs": [{"location": "/in"}],
            "outputs": [],
            "lineage": None,
        },
        [("inputs", 1, None), ("outputs", "Project", (), None, 1)],
    ),
    (
        "a write: the command's fields and metrics to its handler, then column lineage",
        ExecutionRead(
            5,
            "q",
            True,
            _root(_WRITE, ("/out", "parquet")),
            [_leaf("/in")],
            "h" + SEP + "{}",
            query_facts="2" + SEP + "a",
            metrics_text="Map()",
            plan_json="={}",
        ),
        _Source(outputs_=[RelationFacts(location="/out")], lineage="L"),
        {
            "ids": (5, "q"),
            "root": _WRITE,
            "sql": None,
            "inputs": [{"location": "/in"}],
            "outputs": [{"location": "/out"}],
            "lineage": "L",
        },
        [
            ("inputs", 1, "h" + SEP + "{}"),
            ("outputs", _WRITE, ("/out", "parquet"), "Map()", 1),
            ("lineage", _WRITE, "2" + SEP + "a", "={}"),
        ],
    ),
    (
        "relation statistics go to the input of the same relation",
        ExecutionRead(
            6,
            None,
            True,
            _root("Aggregate"),
            [_leaf("/a", relation_id="11"), _leaf("/b", relation_id="12")],
            stats_text=_stats("12", 5, 100, 1) + RSEP + _stats("99", 1, 1, 1),
        ),
        _Source(),
        {
            "ids": (6, None),
            "root": "Aggregate",
            "sql": None,
            "inputs": [{"location": "/a"}, {"location": "/b", "rows": 5, "size": 100, "files": 1}],
            "outputs": [],
            "lineage": None,
        },
        [("inputs", 2, None), ("outputs", "Aggregate", (), None, 2)],
    ),
    (
        "an observation on a read goes to that input, one on the write to the outputs",
        ExecutionRead(
            7,
            None,
            True,
            _root(_WRITE),
            [_leaf("/in", expr_id="4")],
            observations=[Observation("r", {"rowCount": 3}, 4), Observation("w", {"rowCount": 2})],
        ),
        _Source(outputs_=[RelationFacts(location="/out")]),
        {
            "ids": (7, None),
            "root": _WRITE,
            "sql": None,
            "inputs": [{"location": "/in", "observed": {"r": {"rowCount": 3}}}],
            "outputs": [{"location": "/out", "observed": {"w": {"rowCount": 2}}}],
            "lineage": None,
        },
        [("inputs", 1, None), ("outputs", _WRITE, (), None, 1), ("lineage", _WRITE, None, None)],
    ),
    (
        "a DataFrame over an RDD: the files behind it are inputs too",
        ExecutionRead(8, None, True, _root(_WRITE), [], has_logical_rdd=True),
        _Source(rdd_=["/rdd/part-0"]),
        {
            "ids": (8, None),
            "root": _WRITE,
            "sql": None,
            "inputs": [{"location": "/rdd/part-0"}],
            "outputs": [],
            "lineage": None,
        },
        [("outputs", _WRITE, (), None, 0), ("rdd", _WRITE)],
    ),
    (
        "a row-level command's target read without location is the table written",
        ExecutionRead(9, None, True, _root(_WRITE), [_leaf(table="t")]),
        _Source(outputs_=[_OUT]),
        {
            "ids": (9, None),
            "root": _WRITE,
            "sql": None,
            "inputs": [{"location": "/out", "table": TableRef("db", "t"), "version": "7"}],
            "outputs": [{"location": "/out", "table": TableRef("db", "t")}],
            "lineage": None,
        },
        [("inputs", 1, None), ("outputs", _WRITE, (), None, 1), ("lineage", _WRITE, None, None)],
    ),
    (
        "an Iceberg input takes its scan's figures, others do not",
        ExecutionRead(
            10,
            None,
            True,
            _root("Project"),
            [_leaf("/ice/t", provider="iceberg"), _leaf("/ice/t2")],
            scans=[ScanFacts("/ice/t/", 2, 300, 9, _REPORT), ScanFacts("/ice/t2", 1, 1, 1)],
        ),
        _Source(),
        {
            "ids": (10, None),
            "root": "Project",
            "sql": None,
            "inputs": [
                {"location": "/ice/t", "rows": 9, "size": 300, "files": 2, "scan_report": _REPORT},
                {"location": "/ice/t2"},
            ],
            "outputs": [],
            "lineage": None,
        },
        [("inputs", 2, None), ("outputs", "Project", (), None, 2)],
    ),
]


@pytest.mark.parametrize(
    ("read", "source", "expected", "asked"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_execution_facts(
    read: ExecutionRead, source: _Source, expected: Any, asked: list[tuple[Any, ...]]
) -> None:
    facts = execution_facts(read, "save", True, source)
    assert _summary(facts) == expected
    assert source.asked == asked
    if facts is not None:
        assert (facts.func_name, facts.succeeded) == ("save", True)
