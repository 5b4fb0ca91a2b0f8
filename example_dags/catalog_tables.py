"""Tables in Spark's session catalog: saveAsTable, INSERT, CTAS, CREATE, DROP, TRUNCATE and RENAME.

Each table's dataset is its physical location under the warehouse; the table name itself is a
`symlinks` entry, as the OpenLineage Spark integration reports it.
"""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
SPARK_CONF = {"spark.sql.warehouse.dir": f"{BASE_DIR}/warehouse"}


def build_customer_tables(spark) -> None:
    customers = spark.createDataFrame(
        [(1, "alice", "FR"), (2, "bob", "DE"), (3, "carol", "FR")], "id INT, name STRING, country STRING"
    )
    customers.write.mode("overwrite").saveAsTable("customers")
    spark.sql("INSERT INTO customers VALUES (4, 'dan', 'IT')")
    spark.sql(
        "CREATE TABLE customers_by_country USING parquet AS "
        "SELECT country, count(*) AS customers FROM customers GROUP BY country"
    )


def maintain_tables(spark) -> None:
    spark.sql("CREATE TABLE obsolete_events (id INT) USING parquet")
    spark.sql("DROP TABLE obsolete_events")
    spark.sql("CREATE TABLE scratch_events (id INT, payload STRING) USING parquet")
    spark.sql("INSERT INTO scratch_events VALUES (1, 'a'), (2, 'b')")
    spark.sql("TRUNCATE TABLE scratch_events")
    spark.sql("CREATE TABLE staging_events USING parquet AS SELECT 1 AS id, 'c' AS payload")
    spark.sql("ALTER TABLE staging_events RENAME TO staging_events_archive")


with DAG(
    dag_id="example_catalog_tables",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["example", "lineage"],
) as dag:
    LineageAwarePySparkOperator(
        task_id="build_customer_tables", python_callable=build_customer_tables, config_kwargs=SPARK_CONF
    )
    LineageAwarePySparkOperator(
        task_id="maintain_tables", python_callable=maintain_tables, config_kwargs=SPARK_CONF
    )
