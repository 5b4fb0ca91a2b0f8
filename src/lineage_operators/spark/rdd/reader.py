"""The queued RDD-only jobs, taken and read in the JVM in one call (``jvm/java/RddJobReader.java``).

Most RDD-only jobs of a DataFrame task (Parquet schema merges, file listings) touch no file; read
from Python, each cost a dozen py4j round trips, and the reader thread asks after every execution.
The Java class applies the rules of :func:`lineage_operators.spark.rdd.sources.source_locations` and
:func:`lineage_operators.spark.rdd.jobs._output_dir`, which remain the fallback when it cannot be compiled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lineage_operators.spark.jvm import classes as jvm_classes
from lineage_operators.spark.jvm.tools import JvmTools

SOURCE = "RddJobReader.java"
CLASS_NAME = "lineage_operators.RddJobReader"
FIELD, ITEM, RECORD = "\u001d", "\u001e", "\u001c"


@dataclass(frozen=True)
class JobFiles:
    """What one queued job touched: ``ended`` when it was gone before it could be read,
    ``unreadable`` when reading it failed."""

    job_id: int | None = None
    input_items: tuple[str, ...] = ()
    output: str | None = None
    ended: bool = False
    #: its ``spark.job.tags`` (:func:`job_tags`)
    tags: frozenset[str] = frozenset()
    unreadable: bool = False


def reader(tools: JvmTools) -> Any:
    """The JVM's ``RddJobReader`` (compiled on first use), or None when it cannot be built."""
    return jvm_classes.compiled_instance(tools, SOURCE, CLASS_NAME, "RDD jobs are read from Python")


def parse_drained(text: str) -> list[JobFiles | None]:
    """Pure: ``RddJobReader.drain``'s answer, one entry per queued job, None for a job that touched
    no file; ``[]`` when nothing was queued. Raises ``ValueError`` on an answer of another shape."""
    if not text:
        return []
    count, *records = text.split(RECORD)
    if not count.isdigit() or len(records) != int(count):
        raise ValueError(f"RddJobReader answered {len(records)} records for {count[:20]!r} jobs")
    try:
        return [_record(record) for record in records]
    except ValueError as exc:
        raise ValueError(f"RddJobReader answered an unexpected record: {exc}") from None


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
    job_id, inputs, output, tags = record[1:].split(FIELD)
    items = tuple(item for item in inputs.split(ITEM) if item)
    return JobFiles(int(job_id), items, output or None, tags=job_tags(tags))


__all__ = ["JobFiles", "job_tags", "parse_drained", "reader"]
