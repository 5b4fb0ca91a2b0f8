"""A job whose Spark plans are large, at a size that scales: files, directories, columns, union arms.

At scale 10 of the full unit it is the issue's job: 2,000 Parquet files over 200 partition
directories, a 300-column schema with nested structs, a 50-way union of partition subsets, and a
wide join (the union against a 300-column table). Scale 1 is a tenth of every dimension.

The data are generated once per scale outside any timing: one small seed file written by Spark,
hard-linked into every partition directory (identical files, so generation takes seconds).
"""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

PARTITION_COLUMN = "part"


@dataclass(frozen=True)
class LargePlanShape:
    files: int
    directories: int
    columns: int
    union_arms: int
    rows_per_file: int = 5

    def __post_init__(self) -> None:
        if self.files % self.directories or self.directories % self.union_arms:
            raise ValueError(f"{self}: files must split evenly over directories, directories over union arms")

    def scaled(self, factor: int) -> LargePlanShape:
        return replace(
            self,
            files=self.files * factor,
            directories=self.directories * factor,
            columns=self.columns * factor,
            union_arms=self.union_arms * factor,
        )

    def describe(self) -> str:
        return (
            f"{self.files} files / {self.directories} dirs / {self.columns} cols / "
            f"{self.union_arms}-way union"
        )


FULL_UNIT = LargePlanShape(files=200, directories=20, columns=30, union_arms=5)
TINY_UNIT = LargePlanShape(files=4, directories=2, columns=10, union_arms=2, rows_per_file=2)


@dataclass(frozen=True)
class LargePlanData:
    root: Path
    shape: LargePlanShape

    @property
    def events(self) -> Path:
        return self.root / "events"

    @property
    def wide_table(self) -> Path:
        return self.root / "wide"

    def file_names(self) -> set[str]:
        return {_file_name(index) for index in range(self.shape.files // self.shape.directories)}


def generate(spark: SparkSession, root: Path, shape: LargePlanShape) -> LargePlanData:
    """Write the partitioned events (``part=NNNN/fNNN.parquet``) and the wide join table under ``root``."""
    data = LargePlanData(root, shape)
    seed_dir = root / "seed"
    spark.range(shape.rows_per_file).selectExpr(*event_columns(shape.columns)).coalesce(1).write.mode(
        "overwrite"
    ).parquet(str(seed_dir))
    seed = next(seed_dir.glob("*.parquet"))
    per_directory = shape.files // shape.directories
    for directory in range(shape.directories):
        target = data.events / f"{PARTITION_COLUMN}={directory:04d}"
        target.mkdir(parents=True)
        for index in range(per_directory):
            _link_or_copy(seed, target / _file_name(index))
    shutil.rmtree(seed_dir)
    wide = ["id AS key", *(f"id * {index} AS w{index:04d}" for index in range(1, shape.columns))]
    spark.range(shape.rows_per_file).selectExpr(*wide).coalesce(1).write.parquet(str(data.wide_table))
    return data


def event_columns(count: int) -> list[str]:
    """``count`` top-level columns: a key, then every tenth a struct nesting a struct and an array."""
    columns = ["id AS key"]
    for index in range(1, count):
        if index % 10 == 1:
            columns.append(
                f"named_struct('a', id, 'b', CAST(id AS STRING), "
                f"'c', named_struct('d', id * 0.5, 'e', array(id, id + {index}))) AS s{index:04d}"
            )
        elif index % 3 == 0:
            columns.append(f"CAST(id + {index} AS STRING) AS c{index:04d}")
        else:
            columns.append(f"id * {index} AS c{index:04d}")
    return columns


def large_plan_job(spark: SparkSession, data_root: str, shape: LargePlanShape, output: str) -> int:
    """Union the partition subsets, join the wide table, write the result, read it back."""
    from pyspark.sql import functions as F

    data = LargePlanData(Path(data_root), shape)
    per_arm = shape.directories // shape.union_arms
    arms: list[DataFrame] = []
    for arm in range(shape.union_arms):
        paths = [
            str(data.events / f"{PARTITION_COLUMN}={directory:04d}")
            for directory in range(arm * per_arm, (arm + 1) * per_arm)
        ]
        frame = spark.read.option("basePath", str(data.events)).parquet(*paths)
        arms.append(frame.withColumn("arm", F.lit(arm)))
    union = functools.reduce(lambda left, right: left.unionByName(right), arms)
    joined = union.join(spark.read.parquet(str(data.wide_table)), "key")
    joined.write.mode("overwrite").parquet(output)
    return int(spark.read.parquet(output).count())


def _file_name(index: int) -> str:
    return f"f{index:03d}.parquet"


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
