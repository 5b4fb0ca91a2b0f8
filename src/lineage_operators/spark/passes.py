"""Passes over a task's execution facts before they are named: facts in, facts out, nothing changed in place.

Why passes over the whole task: a reader sees one execution at a time, and some of what an execution's facts
mean shows only beside the task's other executions. Each pass reads facts only (no Spark), so the facts of
both captures go through them in :func:`lineage_operators.spark.resolve.resolve`, and the readers that
found each rule (``plan/``, ``rdd/``, ``tables/``) stay out of the step both captures share. The inputs are
never changed: a capture that builds its result twice (``snapshot()`` for a failure, then ``stop()``) passes
the same facts twice, and each build starts from what the readers gave.

* :func:`schema_from_renames`: an ALTER read after a later rename of its table takes the renamed table's
  schema;
* :func:`name_helper_reads`: Spark's helper jobs of a read (schema inference, footer reads) are named as the
  files the task read;
* :func:`drop_log_reads`: Delta's reads of its own transaction log are no inputs of the task.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from lineage_operators.naming import trim_partitions
from lineage_operators.spark.facts import RDD_JOB, ExecutionFacts, RelationFacts, TableRef

_DELTA_LOG = re.compile(r"(^|/)_delta_log(/|$)")


def prepare(executions: Sequence[ExecutionFacts]) -> list[ExecutionFacts]:
    """Every pass, in order, over the task's executions (in execution order)."""
    return drop_log_reads(name_helper_reads(schema_from_renames(executions)))


# -- an ALTER read after its table was renamed --------------------------------------------------------


def schema_from_renames(executions: Sequence[ExecutionFacts]) -> list[ExecutionFacts]:
    """An ALTER read after a later ``RENAME TO`` of the same table (the capture reads executions after they
    ended, the task goes on meanwhile) found the table gone: its schema after the ALTER is the one the
    renamed table has (a rename changes no column)."""
    waiting: list[tuple[int, int, TableRef]] = []  # (execution, output, table) of ALTERs without schema
    schemas: dict[tuple[int, int], str | None] = {}
    for index, execution in enumerate(executions):
        for position, rel in enumerate(execution.outputs):
            if rel.lifecycle == "ALTER" and rel.schema_text is None and rel.table is not None:
                waiting.append((index, position, rel.table))
            elif rel.lifecycle == "RENAME" and rel.previous_table is not None and waiting:
                renamed = rel.previous_table
                for entry in [w for w in waiting if _same(w[2], renamed)]:
                    schemas[entry[:2]] = rel.schema_text
                    waiting.remove(entry)
    if not schemas:
        return list(executions)
    return [
        replace(
            execution,
            outputs=[
                replace(rel, schema_text=schemas[(index, position)]) if (index, position) in schemas else rel
                for position, rel in enumerate(execution.outputs)
            ],
        )
        if any(key[0] == index for key in schemas)
        else execution
        for index, execution in enumerate(executions)
    ]


def _same(a: TableRef, b: TableRef) -> bool:
    """The same table name; the databases only compared when both are known."""
    return a.table == b.table and (a.database is None or b.database is None or a.database == b.database)


# -- Spark's helper reads of a file the task reads --------------------------------------------------------


def name_helper_reads(executions: Sequence[ExecutionFacts]) -> list[ExecutionFacts]:
    """The folder input of an RDD job without outputs becomes the files of that folder the task's executions
    read as single files.

    Reading JSON or CSV without a schema (``spark.read.json(file)``, or SQL's ``json.`file```, which always
    infers) first runs a job of RDDs only to infer the schema. Read as an RDD job, its ``FileScanRDD`` names
    the folder of the files it scans (openlineage-spark's RDD rule), and the task's inputs then held the
    folder, which swallowed the file the SQL execution named (``resolve._fold_nested``): a single file read
    was reported as its folder. A job that wrote nothing (openlineage-spark sends no completion event for it)
    and whose folder holds a file an execution of the task read is taken to have read that file: the
    inference scans the relation's own files. Parquet and ORC schema merges (footer reads, named by the
    folder of the file read) lose their partition directories, so that they add no partition to the
    ``subset`` of what was read."""
    files: dict[str, dict[str, None]] = {}  # folder -> its files read, in order (a dict: 100,000 reads
    # of one table's partitions, all in one folder, took minutes with a list's membership test)
    for execution in executions:
        if execution.func_name == RDD_JOB:
            continue
        for rel in execution.inputs:
            if rel.location and rel.table is None and rel.jdbc_url is None:
                files.setdefault(_parent(rel.location), {})[rel.location] = None
    named: list[ExecutionFacts] = []
    for execution in executions:
        if execution.func_name != RDD_JOB or execution.outputs:
            named.append(execution)
            continue
        inputs: list[RelationFacts] = []
        for rel in execution.inputs:
            read = files.get((rel.location or "").rstrip("/"))
            inputs.extend([replace(rel, location=f) for f in read] if read else [_unpartitioned(rel)])
        named.append(replace(execution, inputs=inputs))
    return named


def _parent(location: str) -> str:
    return location.rstrip("/").rsplit("/", 1)[0]


def _unpartitioned(rel: RelationFacts) -> RelationFacts:
    """A helper job's folder without its partition directories: a schema merge reads the footer of
    one file of one partition, which says nothing of the partitions the task's query reads (no
    ``subset`` location for it)."""
    return replace(rel, location=trim_partitions(rel.location)) if rel.location else rel


# -- Delta's reads of its own log -------------------------------------------------------------------------


def is_log_read(location: str | None) -> bool:
    """Is ``location`` inside a Delta table's transaction log (``<table>/_delta_log[/...]``)?"""
    return bool(location) and _DELTA_LOG.search(location or "") is not None


def drop_log_reads(executions: Sequence[ExecutionFacts]) -> list[ExecutionFacts]:
    """Inputs inside a ``_delta_log`` are Delta computing a snapshot (its log files read with Spark), never
    data the task read."""
    return [
        replace(execution, inputs=[rel for rel in execution.inputs if not is_log_read(rel.location)])
        if any(is_log_read(rel.location) for rel in execution.inputs)
        else execution
        for execution in executions
    ]


__all__ = ["drop_log_reads", "is_log_read", "name_helper_reads", "prepare", "schema_from_renames"]
