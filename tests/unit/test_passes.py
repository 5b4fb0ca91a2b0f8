"""The pure passes over a task's executions before naming (spark/passes.py): an RDD helper job's folder named
as the single files the task read, an ALTER read after its table was renamed, Delta's log reads dropped;
facts in, facts out, the facts given never changed."""

from __future__ import annotations

import copy

import pytest

from lineage_operators.spark.facts import RDD_JOB, ExecutionFacts, RelationFacts, TableRef
from lineage_operators.spark.passes import (
    drop_log_reads,
    is_log_read,
    name_helper_reads,
    prepare,
    schema_from_renames,
)

FILE = "file:/data/testdata.json"


def _execution(name: str, inputs: tuple[str, ...] = (), outputs: tuple[str, ...] = ()) -> ExecutionFacts:
    return ExecutionFacts(
        name,
        True,
        inputs=[RelationFacts(location=i) for i in inputs],
        outputs=[RelationFacts(location=o) for o in outputs],
    )


def test_an_inference_job_reads_the_file_the_sql_read() -> None:
    executions = [_execution("command", (FILE,), ("file:/out",)), _execution(RDD_JOB, ("file:/data",))]
    named = name_helper_reads(executions)
    assert [r.location for r in named[1].inputs] == [FILE]
    assert [r.location for r in executions[1].inputs] == ["file:/data"]  # the facts given stay as they are


def test_rdd_jobs_that_write_or_read_elsewhere_keep_their_folders() -> None:
    writes = _execution(RDD_JOB, ("file:/data",), ("file:/copy",))
    other = _execution(RDD_JOB, ("file:/elsewhere",))
    executions = [_execution("command", (FILE,)), writes, other]
    _, named_writes, named_other = name_helper_reads(executions)
    assert [r.location for r in named_writes.inputs] == ["file:/data"]
    assert [r.location for r in named_other.inputs] == ["file:/elsewhere"]


def test_a_folder_read_by_sql_only_changes_nothing() -> None:
    executions = [_execution("count", ("file:/data",)), _execution(RDD_JOB, ("file:/data",))]
    assert [r.location for r in name_helper_reads(executions)[1].inputs] == ["file:/data"]


def test_alter_read_after_the_rename_takes_the_renamed_tables_schema() -> None:
    altered = RelationFacts(location="file:/wh/t", table=TableRef("db", "t"), lifecycle="ALTER")
    renamed = RelationFacts(
        location="file:/wh/t2",
        table=TableRef("db", "t2"),
        schema_text='{"fields": ["a", "c"]}',
        lifecycle="RENAME",
        previous_table=TableRef(None, "t"),
    )
    unrelated = RelationFacts(table=TableRef("db", "u"), lifecycle="ALTER")
    first, second = schema_from_renames(
        [
            ExecutionFacts("command", True, outputs=[altered, unrelated]),
            ExecutionFacts("command", True, outputs=[renamed]),
        ]
    )
    assert [r.schema_text for r in first.outputs] == [renamed.schema_text, None]
    assert second.outputs == [renamed]
    assert altered.schema_text is None  # the facts given stay as they are


def test_the_inference_jobs_folder_hides_no_other_input_under_it() -> None:
    """openlineage-spark's peer corpus: a JSON file and a Parquet folder beside it, both read, and the
    JSON file's inference job over their common folder: the two inputs, not the folder."""
    from lineage_operators.spark.resolve import resolve
    from lineage_operators.spark.session_facts import NamingContext

    executions = [
        _execution(RDD_JOB, ("file:/src",)),
        _execution("command", ("file:/src/events.json", "file:/src/orders_parquet"), ("file:/out",)),
    ]
    inputs, _, _ = resolve(executions, NamingContext())
    assert sorted(d.name for d in inputs) == ["/src/events.json", "/src/orders_parquet"]


def test_a_schema_merge_of_one_partition_adds_no_partition_to_what_was_read() -> None:
    """A footer read of ``part=0`` names the table's folder; the query read ``part=1`` only."""
    merge = _execution(RDD_JOB, ("file:/t/part=0",))
    assert [r.location for r in name_helper_reads([merge])[0].inputs] == ["file:/t"]


@pytest.mark.parametrize(
    ("location", "inside"),
    [
        ("file:/lake/t/_delta_log", True),
        ("file:/lake/t/_delta_log/", True),
        ("s3a://b/t/_delta_log/00000000000000000001.json", True),
        ("_delta_log", True),
        ("file:/lake/t", False),
        ("file:/lake/my_delta_log", False),
        ("file:/lake/_delta_logs/x", False),
        (None, False),
    ],
)
def test_what_is_inside_a_delta_log(location: str | None, inside: bool) -> None:
    assert is_log_read(location) is inside


def test_log_reads_leave_the_executions_and_nothing_else_does() -> None:
    state = ExecutionFacts("collect", True, inputs=[RelationFacts(location="file:/t/_delta_log")])
    read = ExecutionFacts(
        "command",
        True,
        inputs=[RelationFacts(location="file:/t"), RelationFacts(location="file:/t/_delta_log/0.json")],
        outputs=[RelationFacts(location="file:/out")],
    )
    kept_state, kept_read = drop_log_reads([state, read])
    assert kept_state.inputs == []
    assert [r.location for r in kept_read.inputs] == ["file:/t"]
    assert [r.location for r in kept_read.outputs] == ["file:/out"]
    assert len(read.inputs) == 2


def test_every_pass_runs_and_the_same_facts_give_the_same_result_twice() -> None:
    """A capture builds its result from the same facts at ``snapshot()`` and at ``stop()``: the passes leave
    the facts given as they were, and give the same result both times."""
    executions = [
        _execution("command", ("file:/t/p=1/a.json",), ("file:/out",)),
        _execution(RDD_JOB, ("file:/t/p=1",)),
        _execution("collect", ("file:/t/_delta_log/0.json",)),
    ]
    before = copy.deepcopy(executions)
    first = prepare(executions)
    assert executions == before
    assert prepare(executions) == first
    assert [r.location for r in first[1].inputs] == ["file:/t/p=1/a.json"]
    assert first[2].inputs == []
