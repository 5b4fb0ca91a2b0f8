"""The SQL corpus (sql_corpus.py: TPC-H's 22 queries and statements of our own over its schema,
each writing one table) run through a classic session and through the real local Connect server:
every output table's ``columnLineage`` must be the classic one (fields, input fields, type,
subtype, masking and the dataset-wide list), but for :data:`REVIEWED` (with the reason per entry).

Over Connect the lineage of these statements comes from the server's analyzed plan
(spark/connect/analyzed.py). ``LINEAGE_COMPARE_MECHANISMS=1`` also runs the corpus with the
client-side translation alone and prints both counts and the cost of the server's plan (the
figures of docs/history.md).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from spark_helpers import PATIENT, comparable_column_lineage, run_captured
from sql_corpus import CORPUS, DATABASE, TPCH_SCHEMA

pytestmark = pytest.mark.filterwarnings("ignore")

#: Output tables whose Connect facet may differ from the classic one: name -> (Spark lines where
#: it differs, None for all; why). The test fails when a listed one becomes identical.
REVIEWED: dict[str, tuple[frozenset[str] | None, str]] = {
    "lateral_view_words": (
        None,
        "a CTAS with LATERAL VIEW: openlineage-sql does not parse the statement, so over Connect it has no "
        "output dataset at all (spark/connect/sql.py), whatever its column lineage",
    ),
}


def _line() -> str:
    import pyspark

    return ".".join(pyspark.__version__.split(".")[:2])


@pytest.fixture(scope="module")
def corpus(spark: Any, connect_spark: Any) -> Iterator[dict[str, tuple[Any, str]]]:
    """Per side: (session, its warehouse), with the TPC-H tables created empty (once) and current."""
    sides = {}
    for label, session in (("classic", spark), ("connect", connect_spark)):
        session.sql(f"CREATE DATABASE IF NOT EXISTS {DATABASE}")
        for table, columns in TPCH_SCHEMA.items():
            # a temporary view of an earlier module's (`orders`) would hide the table from the queries
            session.catalog.dropTempView(table)
            session.sql(f"CREATE TABLE IF NOT EXISTS {DATABASE}.{table} ({columns}) USING parquet")
        session.sql(f"USE {DATABASE}")
        warehouse = str(session.conf.get("spark.sql.warehouse.dir")).removeprefix("file:").rstrip("/")
        sides[label] = (session, warehouse)
    yield sides
    for session, _ in sides.values():
        session.sql("USE default")
        session.sql(f"DROP DATABASE IF EXISTS {DATABASE} CASCADE")


def _out(name: str) -> str:
    return f"{DATABASE}.out_{name}"


def _facets(side: tuple[Any, str], names: list[str]) -> dict[str, dict[str, Any]]:
    """Each named statement's output facet (by its table's name), all the written statements run
    inside ONE capture: the capture reports every output of the task, and one capture per
    statement (its start, its stop's wait for the executions) was most of the corpus's time."""
    session, warehouse = side
    finals = []
    for name in names:
        *before, statement = (text.format(out=_out(name)) for text in CORPUS[name])
        session.sql(f"DROP TABLE IF EXISTS {_out(name)}")
        for text in before:
            session.sql(text)
        finals.append(statement)

    def run_all() -> None:
        for statement in finals:
            session.sql(statement)

    _, result = run_captured(session, run_all, timeout=PATIENT)
    found = comparable_column_lineage(result.outputs, lambda n: n.replace(warehouse, "<warehouse>"))
    return {name: {n: f for n, f in found.items() if n.endswith(f"/out_{name}")} for name in names}


#: Session settings for the corpus's runs only (put back after): they change how the statements
#: run (one shuffle partition, no adaptive re-planning, no generated code), never their logical plans.
FAST = {
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.wholeStage": "false",
}


@contextmanager
def _fast(session: Any) -> Iterator[None]:
    before = {key: session.conf.get(key, None) for key in FAST}
    for key, value in FAST.items():
        session.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                session.conf.unset(key)
            else:
                session.conf.set(key, value)


@pytest.fixture(scope="module")
def facets(corpus: dict[str, tuple[Any, str]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Side -> statement -> its output's comparable facet, the whole corpus in one capture a side."""
    found = {}
    for label, side in corpus.items():
        with _fast(side[0]):
            found[label] = _facets(side, list(CORPUS))
    return found


@pytest.mark.parametrize("name", list(CORPUS))
def test_corpus_column_lineage_over_connect_is_the_classic_one(
    facets: dict[str, dict[str, dict[str, Any]]], name: str
) -> None:
    expected = facets["classic"][name]
    actual = facets["connect"][name]
    assert len(expected) == 1, expected
    assert all(expected.values()), f"the classic session must give a facet: {expected}"
    lines, why = REVIEWED.get(name, (frozenset(), ""))
    if lines is None or _line() in lines:
        assert actual != expected, f"{name} is now identical on {_line()}: take it off REVIEWED ({why})"
    else:
        assert actual == expected


def test_an_insert_captured_over_connect_runs_once(corpus: dict[str, tuple[Any, str]]) -> None:
    """The server's plan is asked for after the statement ran: asking must never run it again (a 4.0
    server runs the command it explains; the capture does not ask it)."""
    session, _ = corpus["connect"]
    out = _out("inserted_once")
    session.sql(f"DROP TABLE IF EXISTS {out}")
    session.sql(f"CREATE TABLE {out} (k BIGINT) USING parquet")
    _, result = run_captured(session, lambda: session.sql(f"INSERT INTO {out} SELECT 7"), timeout=PATIENT)
    assert [d.name for d in result.outputs if d.name.endswith("/out_inserted_once")]
    assert session.sql(f"SELECT count(*) FROM {out}").collect()[0][0] == 1


@pytest.mark.skipif(not os.environ.get("LINEAGE_COMPARE_MECHANISMS"), reason="a measurement, on request")
def test_compare_mechanisms(
    corpus: dict[str, tuple[Any, str]], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Identical tables with the server's plan and with the translation alone; the plan's cost."""
    from lineage_operators.spark.connect.server import ServerLookups

    original = ServerLookups.analyzed_plan
    spent: list[float] = []

    def timed(self: Any, text: str, wide: bool = False) -> str:
        start = time.perf_counter()
        try:
            return original(self, text, wide)
        finally:
            spent.append(time.perf_counter() - start)

    monkeypatch.setattr(ServerLookups, "analyzed_plan", timed)
    with _fast(corpus["classic"][0]):
        expected = _facets(corpus["classic"], list(CORPUS))
    with _fast(corpus["connect"][0]):
        analyzed = _facets(corpus["connect"], list(CORPUS))
    calls, total, median = len(spent), sum(spent), statistics.median(spent or [0.0])

    def refuse(self: Any, text: str, wide: bool = False) -> str:
        raise RuntimeError("translation only")

    monkeypatch.setattr(ServerLookups, "analyzed_plan", refuse)
    with _fast(corpus["connect"][0]):
        translated = _facets(corpus["connect"], list(CORPUS))
    same_analyzed = [n for n in CORPUS if analyzed[n] == expected[n]]
    same_translated = [n for n in CORPUS if translated[n] == expected[n]]
    no_facet = [n for n in CORPUS if not any(translated[n].values())]
    with capsys.disabled():
        print(
            f"\n[{_line()}] {len(CORPUS)} tables: analyzed plan {len(same_analyzed)} identical, translation "
            f"{len(same_translated)} identical ({len(no_facet)} without a facet); explain calls {calls}, "
            f"{1000 * total / max(calls, 1):.1f} ms each, median {1000 * median:.1f} ms"
        )
        print("  analyzed differs:", sorted(set(CORPUS) - set(same_analyzed)))
        print("  translation differs:", sorted(set(CORPUS) - set(same_translated)))
    assert len(same_analyzed) >= len(same_translated)
