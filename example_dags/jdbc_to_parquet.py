"""PostgreSQL -> Parquet -> PostgreSQL over JDBC, with credentials in the URL and in options.

Lineage names the tables `postgres://host:port` + `db.schema.table`; no credential may reach an event.
Connection details come from the environment (the tests start a throwaway PostgreSQL).
"""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
JDBC_URL = os.environ.get("LINEAGE_EXAMPLE_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/lineage")
JDBC_USER = os.environ.get("LINEAGE_EXAMPLE_JDBC_USER", "lineage_user")
JDBC_PASSWORD = os.environ.get("LINEAGE_EXAMPLE_JDBC_PASSWORD", "")
JDBC_JAR = os.environ.get("LINEAGE_EXAMPLE_JDBC_JAR", "/usr/share/java/postgresql.jar")
SPARK_CONF = {
    "spark.jars": JDBC_JAR,
    "spark.driver.extraClassPath": JDBC_JAR,
    "spark.executor.extraClassPath": JDBC_JAR,
}


def export_customers(spark, base_dir: str) -> int:
    customers = (
        spark.read.format("jdbc")
        .option("url", JDBC_URL)
        .option("dbtable", "public.customers")
        .option("user", JDBC_USER)
        .option("password", JDBC_PASSWORD)
        .option("driver", "org.postgresql.Driver")
        .load()
    )
    customers.write.mode("overwrite").parquet(f"{base_dir}/exports/customers")
    return customers.count()


def load_country_summary(spark, base_dir: str) -> None:
    customers = spark.read.parquet(f"{base_dir}/exports/customers")
    summary = customers.groupBy("country").count()
    url_with_credentials = f"{JDBC_URL}?user={JDBC_USER}&password={JDBC_PASSWORD}"
    (
        summary.write.format("jdbc")
        .option("url", url_with_credentials)
        .option("dbtable", "public.customer_country_summary")
        .option("driver", "org.postgresql.Driver")
        .mode("overwrite")
        .save()
    )


with DAG(
    dag_id="example_jdbc_to_parquet",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["example", "lineage", "jdbc"],
) as dag:
    export = LineageAwarePySparkOperator(
        task_id="export_customers",
        python_callable=export_customers,
        op_kwargs={"base_dir": BASE_DIR},
        config_kwargs=SPARK_CONF,
    )
    summarise = LineageAwarePySparkOperator(
        task_id="load_country_summary",
        python_callable=load_country_summary,
        op_kwargs={"base_dir": BASE_DIR},
        config_kwargs=SPARK_CONF,
    )
    export >> summarise
