"""Spark's helper reads of a file the task reads through SQL, named as that file.

Reading JSON or CSV without a schema (``spark.read.json(file)``, or SQL's ``json.`file```, which
always infers) first runs a job of RDDs only to infer the schema. Read as an RDD job, its
``FileScanRDD`` names the folder of the files it scans (openlineage-spark's RDD rule), and the
task's inputs then held the folder, which swallowed the file the SQL execution named
(:func:`~lineage_operators.spark.resolve._fold_nested`): a single file read was reported as its folder. A job
that wrote nothing (openlineage-spark sends no completion event for it) and whose folder holds a file an
execution of the task read is taken to have read that file: the inference scans the relation's own files.
Parquet and ORC schema merges (footer reads, named by the folder of the file read) lose their partition
directories, so that they add no partition to the ``subset`` of what was read."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

#: ``ExecutionFacts.func_name`` of a job of RDDs only (:mod:`~lineage_operators.spark.rdd.jobs`).
RDD_JOB = "rddJob"


def _parent(location: str) -> str:
    return location.rstrip("/").rsplit("/", 1)[0]


def name_helper_reads(executions: list[Any]) -> None:
    """Pure over ``ExecutionFacts``: in place, the folder input of an RDD job without outputs
    becomes the files of that folder the task's executions read as single files."""
    files: dict[str, dict[str, None]] = {}  # folder -> its files read, in order (a dict: 100,000 reads
    # of one table's partitions, all in one folder, took minutes with a list's membership test)
    for execution in executions:
        if execution.func_name == RDD_JOB:
            continue
        for rel in execution.inputs:
            if rel.location and rel.table is None and rel.jdbc_url is None:
                files.setdefault(_parent(rel.location), {})[rel.location] = None
    for execution in executions:
        if execution.func_name != RDD_JOB or execution.outputs:
            continue
        inputs = []
        for rel in execution.inputs:
            read = files.get((rel.location or "").rstrip("/"))
            inputs.extend([replace(rel, location=f) for f in read] if read else [_unpartitioned(rel)])
        execution.inputs = inputs


def _unpartitioned(rel: Any) -> Any:
    """A helper job's folder without its partition directories: a schema merge reads the footer of
    one file of one partition, which says nothing of the partitions the task's query reads (no
    ``subset`` location for it)."""
    from lineage_operators.naming import trim_partitions

    return replace(rel, location=trim_partitions(rel.location)) if rel.location else rel


__all__ = ["RDD_JOB", "name_helper_reads"]
