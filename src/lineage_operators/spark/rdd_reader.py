"""The files of queued RDD-only jobs, read in the JVM in one call (``jvm_src/RddJobReader.java``).

Most RDD-only jobs of a DataFrame task (Parquet schema merges, file listings) touch no file; read
from Python, each cost a dozen py4j round trips on the task's thread at ``stop()``. The Java class
applies the rules of :func:`lineage_operators.spark.rdd_sources.source_locations` and
:func:`lineage_operators.spark.rdd._output_dir`, which remain the fallback when it cannot be compiled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lineage_operators.spark import jvm_classes
from lineage_operators.spark.jvm import JvmTools

SOURCE = "RddJobReader.java"
CLASS_NAME = "lineage_operators.RddJobReader"
FIELD, ITEM, RECORD = "\u001d", "\u001e", "\u001c"


@dataclass(frozen=True)
class JobFiles:
    """What one queued job touched: ``ended`` when it was gone before it could be read."""

    job_id: int | None = None
    input_items: tuple[str, ...] = ()
    output: str | None = None
    ended: bool = False
    #: ``spark.job.tags`` of a job that touched files (:func:`parse_drained` only)
    tags: frozenset[str] = frozenset()
    unreadable: bool = False


def reader(tools: JvmTools) -> Any:
    """The JVM's ``RddJobReader`` (compiled on first use), or None when it cannot be built."""
    return jvm_classes.compiled_instance(tools, SOURCE, CLASS_NAME, "RDD jobs are read from Python")


def parse(text: str, count: int) -> list[JobFiles | None]:
    """Pure: ``RddJobReader.read``'s answer for ``count`` queue entries; None for a job that
    touched no file. Raises ``ValueError`` on an answer of another shape."""
    records = text.split(RECORD) if count else []
    if len(records) != count:
        raise ValueError(f"RddJobReader answered {len(records)} records for {count} jobs")
    try:
        return [_record(record) for record in records]
    except ValueError as exc:
        raise ValueError(f"RddJobReader answered an unexpected record: {exc}") from None


def parse_drained(text: str) -> list[JobFiles | None]:
    """Pure: ``RddJobReader.drain``'s answer (the entry count, then :func:`parse`'s records, with
    the tags of jobs that touched files); ``[]`` when nothing was queued."""
    if not text:
        return []
    count, _, records = text.partition(RECORD)
    try:
        return parse(records, int(count))
    except ValueError as exc:
        raise ValueError(f"RddJobReader answered an unexpected drain: {exc}") from None


def job_tags(value: str | None) -> frozenset[str]:
    """Pure: the tags in a job's ``spark.job.tags`` property (``SparkContext.addJobTag``, joined
    with commas)."""
    return frozenset(tag for tag in value.split(",") if tag) if value else frozenset()


def _record(record: str) -> JobFiles | None:
    if record.startswith("-"):
        return JobFiles(job_id=int(record[1:]), ended=True)
    if record.startswith("!"):
        return JobFiles(job_id=int(record[1:]), unreadable=True)
    if record == "0":
        return None
    if not record.startswith("1"):
        raise ValueError(repr(record[:40]))
    job_id, inputs, output, *tags = record[1:].split(FIELD)
    if len(tags) > 1:
        raise ValueError(repr(record[:40]))
    return JobFiles(
        int(job_id),
        tuple(item for item in inputs.split(ITEM) if item),
        output or None,
        tags=job_tags(tags[0]) if tags else frozenset(),
    )


__all__ = ["JobFiles", "job_tags", "parse", "parse_drained", "reader"]
