"""sql_relation: SQL statements -> the query they write, as Connect Relations (sqlglot)."""

from __future__ import annotations

import pytest

pytest.importorskip("sqlglot")
pytest.importorskip("pyspark.sql.connect.proto")

from lineage_operators.spark.connect.columns.sql_relation import Unsupported, parse_query


@pytest.mark.parametrize(
    ("statement", "columns"),
    [
        ("CREATE TABLE db.t USING parquet AS SELECT a FROM s", None),
        ("CREATE OR REPLACE TABLE db.t USING delta AS SELECT a FROM s", None),
        ("REPLACE TABLE db.t USING delta AS SELECT a FROM s", None),
        ("INSERT INTO db.t SELECT a FROM s x", None),
        ("INSERT OVERWRITE TABLE db.t SELECT x.a FROM s AS x", None),
        ("INSERT INTO db.t (b, a) SELECT 1, a FROM s", ("b", "a")),
        ("WITH q AS (SELECT a FROM s) INSERT INTO db.t SELECT a FROM q", None),
    ],
)
def test_statements_give_their_query(statement: str, columns: tuple[str, ...] | None) -> None:
    query = parse_query(statement)
    assert query.columns == columns
    assert query.relation.WhichOneof("rel_type") in ("project", "subquery_alias")


def test_ctes_are_inlined_at_each_use_and_paths_are_file_reads() -> None:
    query = parse_query("WITH q AS (SELECT a FROM parquet.`/d/t`) SELECT a FROM q UNION SELECT a FROM q")
    text = str(query.relation)
    assert text.count('paths: "/d/t"') == 2
    assert "named_table" not in text


@pytest.mark.parametrize(
    ("statement", "why"),
    [
        ("SELECT a FROM s ORDER BY a IN (SELECT b FROM v)", "subquery in ORDER BY"),
        ("SELECT (SELECT max(b) FROM u) FROM s", "subquery in an unnamed SELECT item"),
        ("SELECT * FROM s UNPIVOT ((v, w) FOR k IN ((a, b), (c, d)))", "UNPIVOT"),
        ("SELECT * FROM s PIVOT (sum(a) FOR b IN (1.5, 2))", "PIVOT value"),
        ("SELECT a FROM s GROUP BY a, GROUPING SETS ((a), ())", "GROUPING SETS beside"),
        ("DROP TABLE s", "without a query"),
        ("SELEC a FROM", "parser"),
    ],
)
def test_what_is_not_mapped_says_why(statement: str, why: str) -> None:
    with pytest.raises(Unsupported, match=why):
        parse_query(statement)


@pytest.mark.parametrize(
    ("keys", "group_type"), [("ROLLUP(a, b)", "ROLLUP"), ("CUBE(a)", "CUBE"), ("a, b", "GROUPBY")]
)
def test_rollup_and_cube_are_aggregates_of_their_kind(keys: str, group_type: str) -> None:
    relation = parse_query(f"SELECT a, sum(c) FROM s GROUP BY {keys}").relation
    aggregate = relation.project.input.to_df.input.aggregate
    assert aggregate.group_type == getattr(type(aggregate), f"GROUP_TYPE_{group_type}")
    assert len(aggregate.grouping_expressions) == len(keys.split(","))


def test_grouping_sets_are_an_aggregate_of_that_kind_keyed_by_their_members() -> None:
    relation = parse_query("SELECT a, b, sum(c) FROM s GROUP BY GROUPING SETS ((a, b), (a), ())").relation
    aggregate = relation.project.input.to_df.input.aggregate
    assert aggregate.group_type == type(aggregate).GROUP_TYPE_GROUPING_SETS
    assert [e.expression_string.expression for e in aggregate.grouping_expressions] == ["a", "b"]
    sets = [[e.expression_string.expression for e in s.grouping_set] for s in aggregate.grouping_sets]
    assert sets == [["a", "b"], ["a"], []]


def test_pivot_is_the_connect_pivot_aggregate_grouped_by_a_star() -> None:
    relation = parse_query("SELECT * FROM s PIVOT (sum(a) AS t, count(c) FOR b IN ('x', 2))").relation
    aggregate = relation.project.input.aggregate
    assert aggregate.group_type == type(aggregate).GROUP_TYPE_PIVOT
    assert [e.WhichOneof("expr_type") for e in aggregate.grouping_expressions] == ["unresolved_star"]
    assert aggregate.pivot.col.expression_string.expression == "b"
    assert [v.WhichOneof("literal_type") for v in aggregate.pivot.values] == ["string", "integer"]
    assert len(aggregate.aggregate_expressions) == 2


def test_subqueries_in_expressions_are_placeholders_over_referenced_relations() -> None:
    relation = parse_query(
        "SELECT a, (SELECT max(b) FROM u WHERE u.k = s.k) AS m FROM s "
        "WHERE a IN (SELECT b FROM v) AND NOT EXISTS (SELECT 1 FROM w)"
    ).relation
    references = relation.with_relations.references
    assert [r.common.plan_id for r in references] == [1, 2, 3]
    project = relation.with_relations.root.project
    condition = project.input.filter.condition.expression_string.expression.lower()
    assert condition == "__lineage_in_1(a) and not __lineage_exists_2()"
    assert project.expressions[1].expression_string.expression.lower() == "__lineage_scalar_3() as m"
