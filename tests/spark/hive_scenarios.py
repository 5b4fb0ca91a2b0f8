"""Hive statements captured in a Hive-enabled session of their own (run by test_hive.py).

pyspark has one JVM per process and the suite shares one in-memory-catalog session, so the Hive
session runs in this child process. Usage: ``python hive_scenarios.py <work dir>``; prints one
JSON object: scenario name -> {"inputs": [...], "outputs": [...]} (datasets as event JSON).
The embedded Derby metastore and its log live under ``<work dir>``, never in the working directory.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _session(work: Path) -> Any:
    from pyspark.sql import SparkSession

    derby = work / "derby"
    return (
        SparkSession.builder.master("local[1]")
        .appName("lineage-operators-hive-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={derby}")
        .config(
            "spark.hadoop.javax.jdo.option.ConnectionURL",
            f"jdbc:derby:;databaseName={work / 'metastore_db'};create=true",
        )
        .config("spark.hadoop.hive.exec.dynamic.partition.mode", "nonstrict")
        .enableHiveSupport()
        .getOrCreate()
    )


def _dump(datasets: list[Any], output: bool) -> list[dict[str, Any]]:
    from openlineage.client.serde import Serde

    result = []
    for d in datasets:
        facets = {k: Serde.to_dict(v) for k, v in d.facets.items()}
        extra = d.output_facets if output else d.input_facets
        result.append(
            {
                "namespace": d.namespace,
                "name": d.name,
                "facets": facets,
                "ioFacets": {k: Serde.to_dict(v) for k, v in extra.items()},
            }
        )
    return result


def main(work: Path) -> None:
    from lineage_operators.spark.capture.classic import SparkLineageCapture

    spark = _session(work)
    spark.sparkContext.setLogLevel("ERROR")
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id int, name string").createOrReplaceTempView(
        "src"
    )
    data = work / "load.txt"
    data.write_text("1\x01x\n2\x01y\n")
    scenarios = {
        "create": ["CREATE TABLE events (id INT, name STRING) PARTITIONED BY (dt STRING) STORED AS PARQUET"],
        "insert_partition": [
            "INSERT OVERWRITE TABLE events PARTITION (dt='2026-01-01') SELECT id, name FROM src"
        ],
        "load": [
            "CREATE TABLE loaded (id INT, name STRING) STORED AS TEXTFILE",
            f"LOAD DATA LOCAL INPATH '{data}' INTO TABLE loaded",
        ],
        "alter": [
            "CREATE TABLE alter_table_test (a STRING, b STRING)",
            "ALTER TABLE alter_table_test ADD COLUMNS (c STRING, d STRING)",
        ],
    }
    report: dict[str, Any] = {"warehouse": spark.conf.get("spark.sql.warehouse.dir")}
    for name, statements in scenarios.items():
        for statement in statements[:-1]:
            spark.sql(statement)
        capture = SparkLineageCapture(spark)
        capture.start()
        spark.sql(statements[-1])
        result = capture.stop()
        report[name] = {"inputs": _dump(result.inputs, False), "outputs": _dump(result.outputs, True)}
    spark.stop()
    print(json.dumps(report))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
