"""A fresh driver process for ``test_jvm_class_cache``: one small captured job in a JVM of its own.

``python class_cache_child.py WORK_DIR``: prints one JSON line with how many times the Java sources
were compiled with Janino and defined from the disk cache's bytes in this JVM, and the captured
lineage (every dataset's facets as OpenLineage serializes them). The cache is wherever
``LINEAGE_OPERATORS_JVM_CLASS_CACHE`` says.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from lineage_operators.spark.jvm import classes

RESULT = "CLASS_CACHE_CHILD "


def counted() -> dict[str, int]:
    """Count the compiles and the definitions from bytes of this process (wrapping both)."""
    counts = {"compiled": 0, "defined": 0}
    compile_, define = classes._compile, classes._define

    def compiling(*args: Any) -> Any:
        counts["compiled"] += 1
        return compile_(*args)

    def defining(*args: Any) -> Any:
        counts["defined"] += 1
        return define(*args)

    classes._compile, classes._define = compiling, defining  # type: ignore[assignment]
    return counts


def lineage(datasets: Any) -> list[dict[str, Any]]:
    from openlineage.client.serde import Serde

    return sorted(
        (
            {
                "namespace": d.namespace,
                "name": d.name,
                "facets": {k: json.loads(Serde.to_json(v)) for k, v in sorted(d.facets.items())},
            }
            for d in datasets
        ),
        key=lambda d: (d["namespace"], d["name"]),
    )


def session() -> Any:
    """A session of the Spark tests' shape (``tests/spark/conftest.py``), so their lineage compares."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def captured_job(spark: Any, work: Path) -> dict[str, Any]:
    """The small job's lineage: a Parquet read, an aggregate, a write, an RDD action."""
    from spark_helpers import captured

    shutil.rmtree(work / "data", ignore_errors=True)
    spark.range(0, 20, 1, 1).selectExpr("id", "id % 3 AS k", "CAST(id AS STRING) AS s").write.parquet(
        str(work / "data/in")
    )

    def job() -> None:
        frame = spark.read.parquet(str(work / "data/in"))
        frame.groupBy("k").agg({"id": "sum", "s": "max"}).coalesce(1).write.parquet(str(work / "data/out"))
        spark.sparkContext.parallelize(range(4), 1).map(lambda x: x * 2).count()

    result = captured(spark, job)
    return {"inputs": lineage(result.inputs), "outputs": lineage(result.outputs)}


def main(work: Path) -> None:
    counts = counted()
    spark = session()
    report = {**captured_job(spark, work), **counts}
    spark.stop()
    print(RESULT + json.dumps(report, sort_keys=True), flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
