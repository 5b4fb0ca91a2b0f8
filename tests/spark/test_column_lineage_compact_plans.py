"""The compact plan writer gives the engine exactly what toJSON gives it, on real analyzed plans.

Every query of the recorded engine samples (tests/unit/column_lineage_plans/record_plans.py: joins,
unions, windows, generators, subqueries, CTEs, views, nested structs, pivots, write commands...)
is analyzed by the shared session, serialized both ways and run through the plan engine: the
column lineage must be equal, and not trivially (the queries have output columns with sources).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.spark_lines import skip_reason
from tests.unit.column_lineage_plans.record_plans import SQL_CASES, TABLES, _df_cases

from lineage_operators.column_lineage import lineage_of_plan
from lineage_operators.spark.jvm.tools import tools_for
from lineage_operators.spark.plan.columns.writer import compact_writer

pytestmark = pytest.mark.filterwarnings("ignore")

DB = "cl_compact"
# Cases whose plan reads no column (constants only) or whose table needs Hive support.
NO_SOURCES = {"one_row", "values"}


@pytest.fixture(scope="module")
def tables(spark: Any) -> Iterator[set[str]]:
    """The recorded cases' tables in a database of their own; the names of those that could not be made."""
    current = spark.catalog.currentDatabase()
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {DB}")
    spark.sql(f"USE {DB}")
    missing = set()
    for ddl in TABLES:
        try:
            spark.sql(ddl)
        except Exception:  # the shared session has no Hive support: the hive_text table
            missing.add(ddl.split()[2])
    spark.sql("SELECT a, b * 2 AS b2 FROM t1").createOrReplaceTempView("tv")
    try:
        yield missing
    finally:
        spark.catalog.dropTempView("tv")
        spark.sql(f"USE {current}")
        spark.sql(f"DROP DATABASE IF EXISTS {DB} CASCADE")


def _analyzed(spark: Any, text: str) -> Any:
    if text.startswith("CMD:"):
        state = spark._jsparkSession.sessionState()
        return state.analyzer().execute(state.sqlParser().parsePlan(text[4:]))
    return spark.sql(text)._jdf.queryExecution().analyzed()


def _both(spark: Any, plan: Any) -> tuple[str, str]:
    tools = tools_for(spark.sparkContext._gateway)
    writer = compact_writer(tools)
    assert writer is not None, "Janino could not compile the plan writer"
    same = tools.function(tools.identity())
    compact = tools.read(writer.render(same, plan))
    assert compact is not None
    return str(plan.toJSON()), compact


def _assert_same_lineage(full: str, compact: str, *, has_sources: bool = True) -> None:
    expected, got = lineage_of_plan(full), lineage_of_plan(compact)
    assert got == expected
    assert not got.unknown_nodes
    assert got.fields, "no output column: the comparison would prove nothing"
    if has_sources:
        assert any(columns for columns in got.fields.values())
    assert len(compact) < len(full)


@pytest.mark.parametrize("case", sorted(SQL_CASES))
def test_sql_plans(spark: Any, tables: set[str], case: str) -> None:
    text = SQL_CASES[case]
    if reason := skip_reason(case):
        pytest.skip(reason)
    if any(f" {table} " in f"{text} " for table in tables):
        pytest.skip(f"needs Hive support ({case})")
    full, compact = _both(spark, _analyzed(spark, text))
    _assert_same_lineage(full, compact, has_sources=case not in NO_SOURCES)


def test_dataframe_plans(spark: Any, tables: set[str]) -> None:
    cases = _df_cases(spark)
    assert len(cases) >= 10
    for name, build in cases.items():
        frame = build()
        try:
            full, compact = _both(spark, frame._jdf.queryExecution().analyzed())
            _assert_same_lineage(full, compact, has_sources=name != "df_local_relation")
        finally:
            frame.unpersist()


def test_compact_shape(spark: Any, tables: set[str]) -> None:
    """Attributes keep name and exprId but drop their (nested) data types, metadata and qualifiers;
    a cast keeps the types the engine compares; strings are escaped."""
    odd = 'o"d\\d\u0001'
    plan = _analyzed(spark, f"SELECT s, CAST(id AS BIGINT) AS wide, 1 AS `{odd}` FROM nested")
    full, compact = _both(spark, plan)
    nodes = json.loads(compact)
    project = nodes[0]
    assert project["class"] == "Project"
    assert project["num-children"] == 1
    struct_attr, cast_alias, odd_alias = project["projectList"]
    assert struct_attr == [
        {
            "class": "AttributeReference",
            "num-children": 0,
            "name": "s",
            "exprId": struct_attr[0]["exprId"],
        }
    ]
    assert cast_alias[1]["dataType"] == "long"
    assert cast_alias[2]["dataType"] == "integer"
    assert odd_alias[0]["name"] == odd
    assert "metadata" not in compact
    assert "qualifier" not in compact
    assert len(compact) * 2 < len(full)
