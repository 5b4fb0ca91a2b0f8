"""Connect ``Relation`` trees -> analyzed-plan JSON -> the classic engine's lineage, without Spark.

Each case builds the protobuf a pyspark Connect client sends for a DataFrame and checks the lineage
the classic rules give its translation: ``{output: {(leaf, column): {subtype codes}}}`` and the
dataset-wide dependencies. The real-server parity is tests/spark/test_connect_column_lineage.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("pyspark.sql.connect.proto")

from pyspark.sql.connect.proto import expressions_pb2 as E
from pyspark.sql.connect.proto import relations_pb2 as R

from lineage_operators.column_lineage import lineage_of_plan
from lineage_operators.spark.connect.columns.expr_text import ExpressionSyntaxError, parse_expression
from lineage_operators.spark.connect.columns.plan_exprs import Untranslatable
from lineage_operators.spark.connect.columns.plan_translate import translate
from lineage_operators.spark.connect.plans import SourceRead, TableRead

SCHEMAS = {
    "orders": [("order_id", "long"), ("customer_id", "long"), ("amount", "double"), ("status", "string")],
    "customers": [("customer_id", "long"), ("segment", "string"), ("tags", "array")],
    "archive": [("order_id", "long"), ("amount", "double")],
    "db.archive": [("order_id", "long"), ("amount", "double")],
}
I, T, TM, A, AM = "IDENTITY", "TRANSFORMATION", "TRANSFORMATION*", "AGGREGATION", "AGGREGATION*"  # noqa: E741
F, J, G, S, W, C = "FILTER", "JOIN", "GROUP_BY", "SORT", "WINDOW", "CONDITIONAL"
_ids = iter(range(1, 10_000))


def _schema(item: Any) -> str:
    name = item.paths[0] if isinstance(item, SourceRead) else getattr(item, "name", "")
    fields = [{"name": n, "type": t, "nullable": True, "metadata": {}} for n, t in SCHEMAS[name]]
    return json.dumps({"type": "struct", "fields": fields})


def read(name: str) -> Any:
    rel = R.Relation()
    rel.common.plan_id = next(_ids)
    rel.read.data_source.format = "parquet"
    rel.read.data_source.paths.append(name)
    return rel


def table(name: str) -> Any:
    rel = R.Relation()
    rel.read.named_table.unparsed_identifier = name
    return rel


def col(name: str, plan: Any = None) -> Any:
    expr = E.Expression()
    expr.unresolved_attribute.unparsed_identifier = name
    if plan is not None:
        expr.unresolved_attribute.plan_id = plan.common.plan_id
    return expr


def lit(value: int = 1) -> Any:
    expr = E.Expression()
    expr.literal.long = value
    return expr


def fn(name: str, *args: Any) -> Any:
    expr = E.Expression()
    expr.unresolved_function.function_name = name
    expr.unresolved_function.arguments.extend(args)
    return expr


def text(sql: str) -> Any:
    expr = E.Expression()
    expr.expression_string.expression = sql
    return expr


def alias(expr: Any, *names: str) -> Any:
    out = E.Expression()
    out.alias.expr.CopyFrom(expr)
    out.alias.name.extend(names)
    return out


def cast(expr: Any, type_str: str) -> Any:
    out = E.Expression()
    out.cast.expr.CopyFrom(expr)
    out.cast.type_str = type_str
    return out


def sort(expr: Any) -> Any:
    out = E.Expression()
    out.sort_order.child.CopyFrom(expr)
    return out


def over(function: Any, partition: list[Any], order: list[Any]) -> Any:
    out = E.Expression()
    out.window.window_function.CopyFrom(function)
    out.window.partition_spec.extend(partition)
    out.window.order_spec.extend(sort(o).sort_order for o in order)
    return out


def rel(kind: str, child: Any = None, **fields: Any) -> Any:
    out = R.Relation()
    out.common.plan_id = next(_ids)
    message = getattr(out, kind)
    if child is not None:
        message.input.CopyFrom(child)
    for name, value in fields.items():
        target = getattr(message, name)
        if isinstance(value, list):
            target.extend(value)
        elif hasattr(target, "CopyFrom"):
            target.CopyFrom(value)
        else:
            setattr(message, name, value)
    return out


def project(child: Any, *exprs: Any) -> Any:
    return rel("project", child, expressions=list(exprs))


def join(left: Any, right: Any, how: int, condition: Any = None, using: list[str] | None = None) -> Any:
    out = R.Relation()
    out.join.left.CopyFrom(left)
    out.join.right.CopyFrom(right)
    out.join.join_type = how
    if condition is not None:
        out.join.join_condition.CopyFrom(condition)
    out.join.using_columns.extend(using or [])
    return out


def lineage(
    relation: Any, views: dict[str, Any] | None = None, optimized: bool = True
) -> tuple[dict[str, Any], dict[Any, Any]]:
    translation = translate(relation, _schema, views, optimized=optimized)
    leaves = {ident: item for item, idents in translation.leaves for ident in idents}
    result = lineage_of_plan(translation.plan, [a.name for a in translation.output], optimized)
    assert result.unknown_nodes == ()

    def view(columns: Any) -> dict[tuple[str, str], set[str]]:
        out: dict[tuple[str, str], set[str]] = {}
        for source, kinds in columns.items():
            item = leaves[source.expr_id]
            leaf = item.paths[0] if isinstance(item, SourceRead) else item.name
            # two reads of one leaf (a CTE used twice): one dataset field, as in the facet
            out.setdefault((leaf, source.name), set()).update(
                t.subtype + ("*" if t.masking else "") for t in kinds
            )
        return out

    return {name: view(cols) for name, cols in result.fields.items()}, view(result.dataset)


def test_projection_of_columns_aliases_functions_casts_and_masking() -> None:
    orders = read("orders")
    frame = project(
        orders,
        col("order_id"),
        alias(col("customer_id"), "cid"),
        alias(cast(col("amount"), "double"), "amount_d"),
        alias(cast(col("amount"), "int"), "amount_i"),
        alias(fn("+", fn("*", col("amount"), lit(2)), col("order_id")), "calc"),
        alias(fn("sha2", col("status"), lit(256)), "hash"),
        alias(fn("when", fn(">", col("amount"), lit(100)), col("order_id"), lit(0)), "big"),
        alias(lit(), "one"),
    )
    fields, dataset = lineage(frame)
    assert fields == {
        "order_id": {("orders", "order_id"): {I}},
        "cid": {("orders", "customer_id"): {I}},
        "amount_d": {("orders", "amount"): {I}},
        "amount_i": {("orders", "amount"): {T}},
        "calc": {("orders", "amount"): {T}, ("orders", "order_id"): {T}},
        "hash": {("orders", "status"): {TM}},
        "big": {("orders", "order_id"): {T}, ("orders", "amount"): {C}},
        "one": {},
    }
    assert dataset == {}


def test_expression_strings_filters_and_sorts() -> None:
    orders = read("orders")
    filtered = rel("filter", orders, condition=text("amount > 10 AND status IS NOT NULL"))
    ordered = rel("sort", filtered, order=[sort(col("customer_id")).sort_order])
    frame = project(
        ordered,
        text("order_id AS id"),
        text("upper(status) s"),
        text("CASE WHEN amount > 1 THEN 1 END AS big"),
    )
    fields, dataset = lineage(frame)
    assert fields == {
        "id": {("orders", "order_id"): {I}},
        "s": {("orders", "status"): {T}},
        "big": {("orders", "amount"): {C}},
    }
    assert dataset == {("orders", "amount"): {F}, ("orders", "status"): {F}, ("orders", "customer_id"): {S}}


def test_group_by_with_aggregates_and_a_global_aggregate() -> None:
    orders = read("orders")
    grouped = rel(
        "aggregate",
        orders,
        group_type=1,
        grouping_expressions=[col("customer_id")],
        aggregate_expressions=[alias(fn("sum", col("amount")), "revenue"), fn("count", col("order_id"))],
    )
    fields, dataset = lineage(grouped)
    assert fields == {
        "customer_id": {("orders", "customer_id"): {I}},
        "revenue": {("orders", "amount"): {A}},
        "count(order_id)": {("orders", "order_id"): {AM}},
    }
    assert dataset == {("orders", "customer_id"): {G}}
    fields, dataset = lineage(project(read("orders"), alias(fn("max", col("amount")), "top")))
    assert fields == {"top": {("orders", "amount"): {A}}}


@pytest.mark.parametrize(
    ("how", "left_keys", "right_keys"),
    [(1, {J, F}, {J, F}), (3, {J}, {J, F}), (4, {J, F}, {J}), (2, {J}, {J}), (6, {J, F}, {J, F})],
)
def test_joins_on_a_condition(how: int, left_keys: set[str], right_keys: set[str]) -> None:
    orders = rel("subquery_alias", read("orders"), alias="o")
    customers = rel("subquery_alias", read("customers"), alias="c")
    joined = join(orders, customers, how, fn("==", col("customer_id", orders), col("customer_id", customers)))
    picked = [col("o.amount")] if how == 6 else [col("o.order_id"), col("c.segment")]
    fields, dataset = lineage(project(joined, *picked))
    if how == 6:
        assert fields == {"amount": {("orders", "amount"): {I}}}
    else:
        assert fields == {
            "order_id": {("orders", "order_id"): {I}},
            "segment": {("customers", "segment"): {I}},
        }
    assert dataset == {("orders", "customer_id"): left_keys, ("customers", "customer_id"): right_keys}


def test_join_using_keeps_one_key_and_a_full_join_coalesces_it() -> None:
    fields, _ = lineage(join(read("orders"), read("customers"), 1, using=["customer_id"]))
    assert list(fields)[:2] == ["customer_id", "order_id"]
    assert fields["customer_id"] == {("orders", "customer_id"): {I}}
    fields, _ = lineage(join(read("orders"), read("customers"), 2, using=["customer_id"]))
    assert fields["customer_id"] == {("orders", "customer_id"): {C, T}, ("customers", "customer_id"): {C, T}}


def test_sql_natural_joins_are_joins_using_the_columns_both_sides_have() -> None:
    SCHEMAS.update({"o": SCHEMAS["orders"], "c": SCHEMAS["customers"], "a": SCHEMAS["archive"]})
    fields, dataset = lineage(sql("SELECT * FROM o NATURAL JOIN c"))
    assert list(fields) == ["customer_id", "order_id", "amount", "status", "segment", "tags"]
    assert fields["customer_id"] == {("o", "customer_id"): {I}}
    assert dataset == {("o", "customer_id"): {J, F}, ("c", "customer_id"): {J, F}}  # inner: keys not null
    fields, dataset = lineage(sql("SELECT * FROM o NATURAL FULL OUTER JOIN a"))  # two keys, coalesced
    assert fields["amount"] == {("o", "amount"): {C, T}, ("a", "amount"): {C, T}}
    assert set(dataset) == {(leaf, key) for leaf in ("o", "a") for key in ("order_id", "amount")}
    fields, dataset = lineage(sql("SELECT * FROM a NATURAL JOIN c"))  # nothing in common: no keys
    assert list(fields) == ["order_id", "amount", "customer_id", "segment", "tags"]
    assert dataset == {}


def test_union_by_position_by_name_and_distinct() -> None:
    orders = project(read("orders"), col("order_id"), col("amount"))
    archive = read("archive")
    swapped = project(archive, col("amount"), col("order_id"))
    by_name = rel(
        "set_op", None, left_input=orders, right_input=swapped, set_op_type=2, is_all=True, by_name=True
    )
    fields, dataset = lineage(by_name)
    assert fields == {
        "order_id": {("orders", "order_id"): {I}, ("archive", "order_id"): {I}},
        "amount": {("orders", "amount"): {I}, ("archive", "amount"): {I}},
    }
    distinct = rel("set_op", None, left_input=orders, right_input=archive, set_op_type=2, is_all=False)
    _, dataset = lineage(distinct)
    assert dataset == {}  # openlineage-spark: no GROUP BY reported for a UNION DISTINCT


def test_windows_rank_and_aggregate() -> None:
    orders = read("orders")
    frame = project(
        orders,
        alias(over(fn("row_number"), [col("customer_id")], [col("status")]), "rn"),
        alias(over(fn("sum", col("amount")), [col("customer_id")], []), "total"),
    )
    fields, _ = lineage(frame)
    assert fields == {
        "rn": {("orders", "customer_id"): {W}, ("orders", "status"): {W}},
        "total": {("orders", "amount"): {A}, ("orders", "customer_id"): {W}},
    }


def test_with_columns_renames_drops_to_df_and_deduplicate() -> None:
    orders = read("orders")
    frame = rel("with_columns", orders, aliases=[alias(fn("upper", col("status")), "status").alias])
    renamed = R.Relation()
    renamed.with_columns_renamed.input.CopyFrom(frame)
    renamed.with_columns_renamed.renames.add(col_name="order_id", new_col_name="id")
    dropped = rel("drop", renamed, column_names=["customer_id"])
    deduplicated = rel("deduplicate", dropped, column_names=["id"])
    named = rel("to_df", deduplicated, column_names=["a", "b", "c"])
    fields, dataset = lineage(named)
    assert fields == {
        "a": {("orders", "order_id"): {I}},
        "b": {("orders", "amount"): {A}},
        "c": {("orders", "status"): {A}},  # dropDuplicates: first() of the other columns
    }
    assert dataset == {("orders", "order_id"): {G}}


def test_generators_and_unpivot_with_type_coercion() -> None:
    customers = read("customers")
    frame = project(customers, col("customer_id"), alias(fn("posexplode", col("tags")), "pos", "tag"))
    fields, _ = lineage(frame)
    assert fields["pos"] == fields["tag"] == {("customers", "tags"): {T}}
    orders = read("orders")
    unpivot = R.Relation()
    unpivot.unpivot.input.CopyFrom(orders)
    unpivot.unpivot.ids.append(col("order_id"))
    unpivot.unpivot.values.values.extend([col("customer_id"), col("amount")])
    unpivot.unpivot.variable_column_name = "column"
    unpivot.unpivot.value_column_name = "value"
    fields, _ = lineage(unpivot)
    assert fields == {
        "order_id": {("orders", "order_id"): {I}},
        "column": {},
        "value": {("orders", "customer_id"): {T}, ("orders", "amount"): {I}},  # long -> double: a cast
    }


def _renamed(child: Any, old: str, new: str) -> Any:
    renamed = R.Relation()
    renamed.with_columns_renamed.input.CopyFrom(child)
    renamed.with_columns_renamed.renames.add(col_name=old, new_col_name=new)
    return renamed


_SPLIT = fn("split", col("status"), text("' '"))


@pytest.mark.parametrize(
    ("frame", "dataset"),
    [
        pytest.param(
            project(read("customers"), alias(fn("explode", col("tags")), "tag")),
            {("customers", "tags"): {F}},
            id="explode-of-a-column",
        ),
        pytest.param(
            rel("with_columns", read("customers"), aliases=[alias(fn("inline", col("tags")), "t").alias]),
            {("customers", "tags"): {F}},
            id="with-column-inline-of-a-column",
        ),
        pytest.param(project(read("orders"), alias(fn("explode", _SPLIT), "w")), {}, id="explode-of-split"),
        pytest.param(
            project(project(read("orders"), alias(_SPLIT, "x")), alias(fn("explode", col("x")), "w")),
            {("orders", "status"): {F}},
            id="explode-of-a-column-aliasing-split",
        ),
        pytest.param(
            project(
                _renamed(project(read("orders"), alias(fn("array", col("status")), "x")), "x", "y"),
                alias(fn("explode", col("y")), "w"),
            ),
            {},
            id="explode-of-a-renamed-array()",
        ),
        pytest.param(
            project(read("customers"), alias(fn("explode_outer", col("tags")), "tag")), {}, id="explode-outer"
        ),
    ],
)
def test_generator_filters_only_where_spark_infers_them(frame: Any, dataset: dict[Any, Any]) -> None:
    """The filter Spark's optimizer infers under a generator of a column (InferFiltersFromGenerate),
    as the classic engine gives it; never in the analyzed view of a CTAS (``optimized=False``)."""
    assert lineage(frame)[1] == dataset
    assert lineage(frame, optimized=False)[1] == {}


def test_temp_views_are_inlined_and_tables_are_leaves() -> None:
    view = rel("filter", read("orders"), condition=text("status = 'paid'"))
    fields, dataset = lineage(project(table("paid"), col("amount")), views={"paid": view})
    assert fields == {"amount": {("orders", "amount"): {I}}}
    assert dataset == {("orders", "status"): {F}}
    translation = translate(project(table("db.archive"), col("archive.amount")), _schema)
    assert [type(item) for item, _ in translation.leaves] == [TableRead]


@pytest.mark.parametrize(
    "relation",
    [
        pytest.param(lambda: rel("sql", None, query="SELECT * FROM t"), id="sql"),
        pytest.param(lambda: project(read("orders"), col("missing")), id="unknown column"),
        pytest.param(
            lambda: rel("aggregate", read("orders"), group_type=9, grouping_expressions=[col("status")]),
            id="an unknown group type",
        ),
        pytest.param(
            lambda: project(read("orders"), text("sum(amount) OVER (PARTITION BY status)")),
            id="bad expression text",
        ),
    ],
)
def test_what_is_not_translated_raises_untranslatable(relation: Any) -> None:
    with pytest.raises(Untranslatable):
        translate(relation(), _schema)


@pytest.mark.parametrize(
    ("sql", "term"),
    [
        ("a", ("col", ("a",), None)),
        ("t.`b c`", ("col", ("t", "b c"), None)),
        ("a + 1 AS x", ("alias", ("fn", "+", (("col", ("a",), None), ("lit",))), ("x",))),
        ("count(*)", ("fn", "count", (("star", (), None),), False)),
        ("cast(a as bigint)", ("cast", ("col", ("a",), None), "bigint")),
        ("a IS NOT NULL", ("fn", "isnotnull", (("col", ("a",), None),))),
        ("a <> 'x'", ("fn", "not", (("fn", "==", (("col", ("a",), None), ("lit",))),))),
        ("a NOT IN (1, 2)", ("fn", "not", (("fn", "in", (("col", ("a",), None), ("lit",), ("lit",))),))),
        ("-a", ("fn", "negative", (("col", ("a",), None),))),
        ("a || b", ("fn", "concat", (("col", ("a",), None), ("col", ("b",), None)))),
    ],
)
def test_expression_strings_parse(sql: str, term: Any) -> None:
    assert parse_expression(sql) == term


@pytest.mark.parametrize("sql", ["a +", "f(a", "sum(a) OVER (PARTITION BY b)", "a b c", "@"])
def test_expression_strings_that_do_not_parse(sql: str) -> None:
    with pytest.raises(ExpressionSyntaxError):
        parse_expression(sql)


def sql(query: str) -> Any:
    out = R.Relation()
    out.sql.query = query
    return out


def test_simple_sql_selects_are_derived_from_their_text() -> None:
    SCHEMAS.update({"o": SCHEMAS["orders"], "c": SCHEMAS["customers"]})
    fields, dataset = lineage(
        sql(
            "SELECT c.segment, sum(o.amount) AS revenue, count(o.order_id) FROM o "
            "JOIN c ON o.customer_id = c.customer_id WHERE o.status = 'paid' GROUP BY c.segment"
        )
    )
    assert fields == {
        "segment": {("c", "segment"): {I}},
        "revenue": {("o", "amount"): {A}},
        "count(order_id)": {("o", "order_id"): {AM}},
    }
    assert dataset == {
        ("o", "customer_id"): {J, F},
        ("c", "customer_id"): {J, F},
        ("o", "status"): {F},
        ("c", "segment"): {G},
    }
    fields, dataset = lineage(sql("INSERT INTO t SELECT customer_id, max(amount) FROM o GROUP BY 1"))
    assert fields == {"customer_id": {("o", "customer_id"): {I}}, "max(amount)": {("o", "amount"): {A}}}
    fields, dataset = lineage(sql("SELECT DISTINCT status FROM parquet.`orders` ORDER BY status"))
    assert fields == {"status": {("orders", "status"): {I}}}
    assert dataset == {("orders", "status"): {G, S}}


def test_sql_beyond_a_simple_select_is_derived_with_sqlglot() -> None:
    """CTEs (one used twice), subqueries in FROM, HAVING, set operations, windows, LATERAL VIEW."""
    SCHEMAS.update({"o": SCHEMAS["orders"], "c": SCHEMAS["customers"]})
    fields, dataset = lineage(
        sql(
            "WITH big AS (SELECT * FROM o WHERE amount > 10), "
            "per AS (SELECT customer_id, sum(amount) AS revenue FROM big GROUP BY customer_id) "
            "SELECT p.customer_id, p.revenue FROM per p JOIN big b ON p.customer_id = b.customer_id"
        )
    )
    assert fields == {"customer_id": {("o", "customer_id"): {I}}, "revenue": {("o", "amount"): {A}}}
    assert dataset == {("o", "amount"): {F}, ("o", "customer_id"): {F, G, J}}
    fields, dataset = lineage(
        sql("SELECT status, count(*) AS n FROM o GROUP BY status HAVING sum(amount) > 1 AND n > 0")
    )
    assert fields == {"status": {("o", "status"): {I}}, "n": {}}
    assert dataset == {("o", "status"): {G}, ("o", "amount"): {F}}
    fields, _ = lineage(sql("SELECT order_id, amount FROM o UNION SELECT order_id, amount * 2 FROM archive"))
    assert fields == {
        "order_id": {("o", "order_id"): {I}, ("archive", "order_id"): {I}},
        "amount": {("o", "amount"): {I}, ("archive", "amount"): {T}},
    }
    fields, dataset = lineage(sql("SELECT x.id FROM (SELECT order_id AS id FROM o WHERE status = 'a') x"))
    assert (fields, dataset) == ({"id": {("o", "order_id"): {I}}}, {("o", "status"): {F}})
    fields, _ = lineage(
        sql("SELECT order_id, row_number() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn FROM o")
    )
    assert fields == {
        "order_id": {("o", "order_id"): {I}},
        "rn": {("o", "customer_id"): {W}, ("o", "amount"): {W}},
    }
    fields, dataset = lineage(sql("SELECT customer_id, tag FROM c LATERAL VIEW explode(tags) t AS tag"))
    assert fields == {"customer_id": {("c", "customer_id"): {I}}, "tag": {("c", "tags"): {T}}}


@pytest.mark.parametrize(
    "query",
    [
        "SELECT o.order_id FROM o ORDER BY o.customer_id IN (SELECT customer_id FROM c)",
        "SELECT (SELECT max(segment) FROM c) FROM o",
        "SELECT * FROM VALUES (1, 2)",
    ],
)
def test_sql_sqlglot_is_not_mapped_to_is_not_translated(query: str) -> None:
    with pytest.raises(Untranslatable):
        translate(sql(query), _schema)


def test_sql_subqueries_in_where_and_select_hold_their_plans_and_read_outer_columns() -> None:
    """IN / EXISTS / a scalar subquery: the classic rules read each subquery's plan (its output and
    its own filters); a correlated column of the outer query is an OuterReference."""
    SCHEMAS.update({"o": SCHEMAS["orders"], "c": SCHEMAS["customers"]})
    fields, dataset = lineage(
        sql(
            "SELECT o.order_id FROM o WHERE o.customer_id IN (SELECT customer_id FROM c WHERE segment = 'g') "
            "AND EXISTS (SELECT 1 FROM archive a WHERE a.order_id = o.order_id)"
        )
    )
    assert fields == {"order_id": {("o", "order_id"): {I}}}
    assert dataset == {
        ("o", "customer_id"): {F},
        ("c", "customer_id"): {F},
        ("c", "segment"): {F},
        ("archive", "order_id"): {F},
        ("o", "order_id"): {F},
    }
    fields, dataset = lineage(
        sql(
            "SELECT o.order_id, (SELECT max(c.segment) FROM c WHERE c.customer_id = o.customer_id) AS s "
            "FROM o"
        )
    )
    assert fields == {
        "order_id": {("o", "order_id"): {I}},
        "s": {("c", "segment"): {A}, ("c", "customer_id"): {F}, ("o", "customer_id"): {F}},
    }
    assert dataset == {}


def test_sql_subqueries_in_join_conditions_having_and_aggregate_items() -> None:
    SCHEMAS.update({"o": SCHEMAS["orders"], "c": SCHEMAS["customers"]})
    _, dataset = lineage(
        sql(
            "SELECT o.order_id FROM o JOIN c ON o.customer_id = c.customer_id "
            "AND o.order_id IN (SELECT order_id FROM archive)"
        )
    )
    assert dataset[("archive", "order_id")] == {J}
    assert dataset[("o", "order_id")] == {J}
    _, dataset = lineage(
        sql(
            "SELECT customer_id, sum(amount) AS r FROM o GROUP BY customer_id "
            "HAVING sum(amount) > (SELECT avg(amount) FROM archive)"
        )
    )
    assert dataset == {("o", "customer_id"): {G}, ("o", "amount"): {F}, ("archive", "amount"): {F}}
    fields, _ = lineage(sql("SELECT status, (SELECT max(amount) FROM archive) AS top FROM o GROUP BY status"))
    assert fields == {"status": {("o", "status"): {I}}, "top": {("archive", "amount"): {A}}}


def test_sql_unpivot_keeps_the_other_columns_and_drops_null_values_unless_told() -> None:
    SCHEMAS.update({"o": SCHEMAS["orders"]})
    fields, dataset = lineage(sql("SELECT * FROM o UNPIVOT (v FOR k IN (amount, customer_id AS cid))"))
    assert fields == {
        "order_id": {("o", "order_id"): {I}},
        "status": {("o", "status"): {I}},
        "k": {},
        "v": {("o", "amount"): {I}, ("o", "customer_id"): {T}},  # the long widened to double
    }
    assert dataset == {("o", "amount"): {F}, ("o", "customer_id"): {F}}  # EXCLUDE NULLS: a filter
    _, dataset = lineage(sql("SELECT * FROM o UNPIVOT INCLUDE NULLS (v FOR k IN (amount, customer_id))"))
    assert dataset == {}


def test_nullif_and_nvl2_are_the_conditionals_they_are_replaced_by() -> None:
    SCHEMAS.update({"o": SCHEMAS["orders"]})
    fields, _ = lineage(sql("SELECT nullif(status, 'x') AS s, nvl2(status, amount, order_id) AS n FROM o"))
    assert fields == {
        "s": {("o", "status"): {T, C}},
        "n": {("o", "status"): {C}, ("o", "amount"): {T}, ("o", "order_id"): {T}},
    }


def test_sql_sorted_by_a_column_it_does_not_select() -> None:
    SCHEMAS.update({"o": SCHEMAS["orders"]})
    fields, dataset = lineage(sql("SELECT order_id FROM o ORDER BY amount DESC, order_id"))
    assert (fields, dataset) == (
        {"order_id": {("o", "order_id"): {I}}},
        {("o", "amount"): {S}, ("o", "order_id"): {S}},
    )
    fields, dataset = lineage(sql("SELECT order_id AS id FROM o ORDER BY id"))
    assert (fields, dataset) == ({"id": {("o", "order_id"): {I}}}, {("o", "order_id"): {S}})


def _pivot(*aggregates: Any, values: tuple[str, ...] = ("paid", "new"), keys: Any = None) -> Any:
    keys = [col("customer_id")] if keys is None else keys
    pivoted = rel("aggregate", read("orders"), group_type=4, grouping_expressions=keys)
    pivoted.aggregate.aggregate_expressions.extend(aggregates)
    pivoted.aggregate.pivot.col.CopyFrom(col("status"))
    for value in values:
        pivoted.aggregate.pivot.values.add().string = value
    return pivoted


def test_pivot_is_the_analyzers_two_aggregates_over_pivot_first() -> None:
    fields, dataset = lineage(_pivot(fn("sum", col("amount"))))
    paid = {("orders", "amount"): {A}, ("orders", "status"): {C}}
    assert fields == {"customer_id": {("orders", "customer_id"): {I}}, "paid": paid, "new": paid}
    assert dataset == {("orders", "customer_id"): {G}, ("orders", "status"): {G}}


def test_pivot_names_value_and_aggregate_and_a_star_groups_by_the_unread_columns() -> None:
    star = E.Expression()
    star.unresolved_star.SetInParent()  # SQL PIVOT's implicit grouping
    pivoted = _pivot(alias(fn("sum", col("amount")), "total"), fn("count", col("order_id")), keys=[star])
    fields, dataset = lineage(pivoted)
    assert list(fields) == [
        "customer_id",
        "paid_total",
        "paid_count(order_id)",
        "new_total",
        "new_count(order_id)",
    ]
    assert set(dataset) == {("orders", "customer_id"), ("orders", "status")}


@pytest.mark.parametrize(
    "pivoted",
    [
        pytest.param(lambda: _pivot(fn("sum", col("amount")), values=()), id="no values"),
        pytest.param(lambda: _pivot(fn("max", col("status"))), id="an aggregate PivotFirst may not hold"),
    ],
)
def test_pivots_the_analyzer_rewrites_otherwise_are_not_translated(pivoted: Any) -> None:
    with pytest.raises(Untranslatable):
        translate(pivoted(), _schema)


def test_grouping_sets_have_the_lineage_of_grouping_by_their_keys() -> None:
    keys = [col("customer_id"), col("status")]
    counted = [fn("count", col("order_id"))]
    sets = rel(
        "aggregate", read("orders"), group_type=5, grouping_expressions=keys, aggregate_expressions=counted
    )
    for key in keys:
        sets.aggregate.grouping_sets.add().grouping_set.append(key)
    plain = rel(
        "aggregate", read("orders"), group_type=1, grouping_expressions=keys, aggregate_expressions=counted
    )
    assert lineage(sets) == lineage(plain)
    assert lineage(sets)[1] == {("orders", "customer_id"): {G}, ("orders", "status"): {G}}
