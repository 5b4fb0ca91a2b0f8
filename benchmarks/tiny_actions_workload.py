"""Many tiny Spark executions in one task: small Parquet writes and counts (issue 23).

Each action costs the job a few tens of milliseconds, so the capture's per-execution cost is a
visible share of the task. One small source table is written, then ``writes - 1`` filtered
copies of it go to ten output directories in turn (overwrite), and after every third write a
count reads the source again (the same table each time: inputs already known) or the last
output. ``writes + counts`` Spark query executions, all through the listener.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class TinyActionsSize:
    writes: int
    counts: int

    @property
    def actions(self) -> int:
        return self.writes + self.counts


FULL = TinyActionsSize(writes=150, counts=50)
LARGE = TinyActionsSize(writes=375, counts=125)  # the 500-action variant
TINY = TinyActionsSize(writes=6, counts=2)
OUTPUT_DIRECTORIES = 10


def tiny_actions(spark: SparkSession, base_dir: str, writes: int, counts: int) -> int:
    """Run the workload under ``base_dir``; returns the sum of the counts."""
    source_path = f"{base_dir}/source"
    spark.range(200).selectExpr("id", "id % 7 AS k", "concat('n', id) AS name").write.mode(
        "overwrite"
    ).parquet(source_path)
    source = spark.read.parquet(source_path)
    total = 0
    counted = 0
    last = source_path
    every = max(1, (writes - 1) // max(counts, 1))
    for index in range(writes - 1):
        last = f"{base_dir}/out_{index % OUTPUT_DIRECTORIES}"
        source.where(f"k = {index % 7}").selectExpr("id", "upper(name) AS name").write.mode(
            "overwrite"
        ).parquet(last)
        if counted < counts and (index + 1) % every == 0:
            counted += 1
            frame = source if counted % 2 else spark.read.parquet(last)
            total += frame.count()
    while counted < counts:
        counted += 1
        total += source.count()
    return total
