"""sql_merge: ``MERGE INTO`` text -> the MergeRows-over-Join plan the classic engine reads (no Spark)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("sqlglot")
pytest.importorskip("pyspark.sql.connect.proto")

from lineage_operators.column_lineage import lineage_of_plan
from lineage_operators.spark.connect.columns.plan_exprs import Untranslatable
from lineage_operators.spark.connect.columns.sql_merge import merge_translation, parse_merge
from lineage_operators.spark.connect.columns.sql_relation import Unsupported
from lineage_operators.spark.connect.sql import parse_statement, statement_kind

SCHEMAS = {
    "db.target": [("id", "long"), ("v", "long"), ("note", "string")],
    "db.changes": [("id", "long"), ("v", "long"), ("note", "string"), ("op", "string")],
}
I, T, J, C = "IDENTITY", "TRANSFORMATION", "JOIN", "CONDITIONAL"  # noqa: E741

MERGE = (
    "MERGE INTO db.target t USING db.changes c ON t.id = c.id "
    "WHEN MATCHED AND c.op = 'bump' THEN UPDATE SET t.v = t.v + c.v "
    "WHEN MATCHED AND c.op = 'drop' THEN DELETE "
    "WHEN MATCHED THEN UPDATE SET * "
    "WHEN NOT MATCHED AND c.v > 0 THEN INSERT (id, v) VALUES (c.id, c.v * 2) "
    "WHEN NOT MATCHED THEN INSERT *"
)


def _schema(item: Any) -> str:
    fields = [{"name": n, "type": t, "nullable": True, "metadata": {}} for n, t in SCHEMAS[item.name]]
    return json.dumps({"type": "struct", "fields": fields})


def lineage(text: str) -> tuple[dict[str, Any], dict[Any, Any], str]:
    translation = merge_translation(parse_merge(text), _schema)
    leaves = {ident: item.name for item, idents in translation.leaves for ident in idents}
    result = lineage_of_plan(translation.plan, [a.name for a in translation.output])
    assert result.unknown_nodes == ()

    def view(columns: Any) -> dict[tuple[str, str], set[str]]:
        return {
            (leaves[source.expr_id], source.name): {str(t.subtype) for t in kinds}
            for source, kinds in columns.items()
        }

    join_type = translation.plan[1]["joinType"]["object"].rsplit(".", 1)[-1]
    return {n: view(c) for n, c in result.fields.items()}, view(result.dataset), join_type


def test_merge_is_its_own_statement_kind() -> None:
    text = "  -- c\n merge into db.t using s on t.id = s.id when matched then delete"
    assert statement_kind(text) == "merge"


def test_a_merge_reads_its_target_and_a_replace_table_names_its_tables() -> None:
    """openlineage-sql: a MERGE's target is an input too (as a classic session lists it); Spark's
    ``REPLACE TABLE ... AS`` (not read by openlineage-sql as is) read as CREATE OR REPLACE."""
    pytest.importorskip("openlineage_sql")
    merge = parse_statement(MERGE)
    assert [t.name for t in merge.outputs] == ["target"]
    assert sorted(t.name for t in merge.inputs) == ["changes", "target"]
    replace = parse_statement("REPLACE TABLE db.r USING delta AS SELECT id, v + 1 AS w FROM db.changes")
    assert (replace.kind, [t.name for t in replace.outputs], [t.name for t in replace.inputs]) == (
        "replace",
        ["r"],
        ["changes"],
    )


def test_every_clause_kind_gives_the_classic_delta_merge_lineage() -> None:
    fields, dataset, join_type = lineage(MERGE)
    tgt, src = "db.target", "db.changes"
    assert join_type == "FullOuter$"  # a WHEN NOT MATCHED clause: the rewrite's full outer join
    assert fields["id"] == {(tgt, "id"): {I}, (src, "id"): {I}}  # kept, UPDATE SET *, INSERT (id)/*
    assert fields["v"] == {(tgt, "v"): {I, T}, (src, "v"): {I, T}}  # t.v + c.v, c.v * 2, SET * / INSERT *
    assert fields["note"] == {(tgt, "note"): {I}, (src, "note"): {I}}  # unset by INSERT (id, v): null
    assert dataset == {
        (tgt, "id"): {J},
        (src, "id"): {J},
        (src, "op"): {C},
        (src, "v"): {C},
    }


def test_matched_only_is_a_left_outer_join_and_deletes_by_source() -> None:
    fields, dataset, join_type = lineage(
        "MERGE INTO db.target AS t USING (SELECT id, upper(note) AS note FROM db.changes) AS s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET note = s.note "
        "WHEN NOT MATCHED BY SOURCE AND t.v < 0 THEN DELETE"
    )
    assert join_type == "LeftOuter$"
    assert fields["note"] == {("db.target", "note"): {I}, ("db.changes", "note"): {T}}
    assert fields["v"] == {("db.target", "v"): {I}}
    assert dataset[("db.target", "v")] == {C}


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO db.target SELECT * FROM db.changes",
        "MERGE INTO (SELECT * FROM db.target) t USING db.changes c ON t.id = c.id WHEN MATCHED THEN DELETE",
        "MERGE INTO db.target t USING db.changes c ON t.id = c.id WHEN MATCHED THEN UPDATE SET t.s.x = 1",
    ],
)
def test_what_is_not_mapped_says_why(statement: str) -> None:
    with pytest.raises(Unsupported):
        parse_merge(statement)


def test_a_column_the_target_lacks_is_not_translated() -> None:
    merge = parse_merge(
        "MERGE INTO db.target t USING db.changes c ON t.id = c.id WHEN MATCHED THEN UPDATE SET t.op = c.op"
    )
    with pytest.raises(Untranslatable):
        merge_translation(merge, _schema)
