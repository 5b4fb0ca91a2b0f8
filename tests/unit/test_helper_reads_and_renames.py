"""The pure passes over a task's executions before naming: an RDD helper job's folder named as the
single files the task read (helper_reads), an ALTER read after its table was renamed (alter)."""

from __future__ import annotations

from lineage_operators.spark.facts import ExecutionFacts, RelationFacts, TableRef
from lineage_operators.spark.plan.alter import schema_from_renames
from lineage_operators.spark.rdd.helper_reads import RDD_JOB, name_helper_reads

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
    name_helper_reads(executions)
    assert [r.location for r in executions[1].inputs] == [FILE]


def test_rdd_jobs_that_write_or_read_elsewhere_keep_their_folders() -> None:
    writes = _execution(RDD_JOB, ("file:/data",), ("file:/copy",))
    other = _execution(RDD_JOB, ("file:/elsewhere",))
    executions = [_execution("command", (FILE,)), writes, other]
    name_helper_reads(executions)
    assert [r.location for r in writes.inputs] == ["file:/data"]
    assert [r.location for r in other.inputs] == ["file:/elsewhere"]


def test_a_folder_read_by_sql_only_changes_nothing() -> None:
    executions = [_execution("count", ("file:/data",)), _execution(RDD_JOB, ("file:/data",))]
    name_helper_reads(executions)
    assert [r.location for r in executions[1].inputs] == ["file:/data"]


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
    schema_from_renames(
        [
            ExecutionFacts("command", True, outputs=[altered, unrelated]),
            ExecutionFacts("command", True, outputs=[renamed]),
        ]
    )
    assert altered.schema_text == renamed.schema_text
    assert unrelated.schema_text is None


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
    name_helper_reads([merge])
    assert [r.location for r in merge.inputs] == ["file:/t"]


def test_an_alter_is_read_with_one_catalog_lookup() -> None:
    """The task may rename the table while the ALTER is read: the output is made of the one lookup
    that found it (a second lookup raised and lost the ALTER, seen once on a loaded CI machine)."""
    from lineage_operators.spark.plan.alter import _session_table
    from lineage_operators.spark.plan.catalog import CatalogOutputs

    class Renamed(CatalogOutputs):
        """A catalog whose table is renamed right after its first lookup."""

        def __init__(self) -> None:
            self.lookups = 0

        def _lookup(self, table: TableRef) -> tuple[TableRef | None, str | None, str | None, str | None]:
            self.lookups += 1
            if self.lookups > 1:
                raise LookupError("table or view not found")
            return table, "file:/wh/db.db/t", "parquet", "a:string"

    [altered] = _session_table(Renamed(), TableRef("db", "t"))
    found = (altered.location, altered.schema_text, altered.lifecycle)
    assert found == ("file:/wh/db.db/t", "a:string", "ALTER")
