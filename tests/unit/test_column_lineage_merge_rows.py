"""MERGE INTO's ``MergeRows`` (Spark 3.4+ row-level rewrite) in the plan engine, on the analyzed plan
recorded from pyspark 3.5 + Iceberg (iceberg_plans/merge_rows_spark35.json) of::

    MERGE INTO ice.m.target t USING ice.m.changes c ON t.id = c.id
    WHEN MATCHED AND c.v = 'x' THEN DELETE
    WHEN MATCHED THEN UPDATE SET t.v = upper(c.v)
    WHEN NOT MATCHED THEN INSERT *

target: id#0, v#1 (and the metadata column _file#6); changes: id#2, v#3.
"""

from __future__ import annotations

from pathlib import Path

from lineage_operators.column_lineage import DIRECT, INDIRECT, SourceColumn, Transformation, lineage_of_plan

PLAN = Path(__file__).parent / "iceberg_plans" / "merge_rows_spark35.json"
IDENTITY = Transformation(DIRECT, "IDENTITY", False)
TRANSFORMATION = Transformation(DIRECT, "TRANSFORMATION", False)


def test_each_output_column_takes_its_value_from_every_instruction() -> None:
    result = lineage_of_plan(PLAN.read_text(), None)
    assert result.unknown_nodes == ()
    fields = {
        name: {(s.expr_id, t) for s, ts in deps.items() for t in ts} for name, deps in result.fields.items()
    }
    # UPDATE keeps the target's id, INSERT * takes the source's
    assert fields["id"] == {(0, IDENTITY), (2, IDENTITY)}
    # rows kept unchanged copy the target's v; UPDATE SET v = upper(c.v); INSERT * copies c.v
    assert fields["v"] == {(1, IDENTITY), (3, IDENTITY), (3, TRANSFORMATION)}


def test_join_keys_and_when_conditions_are_dataset_dependencies() -> None:
    dataset = lineage_of_plan(PLAN.read_text(), None).dataset
    assert dataset[SourceColumn(0, "id")] == {Transformation(INDIRECT, "JOIN", False)}
    assert dataset[SourceColumn(2, "id")] == {Transformation(INDIRECT, "JOIN", False)}
    # WHEN MATCHED AND c.v = 'x': the condition chooses the rows written
    assert dataset[SourceColumn(3, "v")] == {Transformation(INDIRECT, "CONDITIONAL", False)}
