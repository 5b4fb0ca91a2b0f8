"""DAGs of the fault-matrix system test (tests/system/test_fault_matrix.py): secrets planted where
users put them, bad arguments, and capture faults injected by the test."""

from __future__ import annotations

import os

import pendulum
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
CANARY = os.environ.get("LINEAGE_TEST_CANARY", "not-a-canary")
START = pendulum.datetime(2026, 1, 1, tz="UTC")


def _noop(spark) -> None:
    spark.range(1).count()


class PlantingOperator(LineageAwarePySparkOperator):
    """Plants the canary in a recorded dataset and a SQL literal; saves Spark's plan text."""

    def run_spark(self, spark, context) -> None:
        self.lineage.add_input(f"jdbc:mysql://u:{CANARY}@db:3306/shop")  # not a dataset: a warning
        spark.range(3).write.mode("overwrite").parquet(f"{BASE_DIR}/secrets_out")
        query = spark.sql(f"SELECT 'password={CANARY}' AS note")
        query.collect()
        with open(f"{BASE_DIR}/plan.txt", "w") as handle:
            handle.write(query._jdf.queryExecution().toString())


with DAG("fault_secrets", schedule=None, start_date=START) as secrets_dag:
    PlantingOperator(
        task_id="planted",
        master="local[1]",
        inputs=[f"jdbc:postgresql://db:5432/shop?user=u&password={CANARY}"],
        config_kwargs={
            "spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net": CANARY,
            "spark.lineage.test.credentials": CANARY,
            "spark.lineage.test.url": "jdbc:postgresql://db/shop?user=u&password=" + CANARY,
            "spark.lineage.test.day": "{{ ds }}",
        },
    )
    # spark_connect connection with a token and user; spark.master set too: opening fails
    LineageAwarePySparkOperator(
        task_id="connect_token",
        conn_id="fm_connect",
        config_kwargs={"spark.master": "local[1]"},
        python_callable=_noop,
    )


with DAG("fault_bad_input", schedule=None, start_date=START) as bad_input_dag:
    for task_id, conn_id in (
        ("wrong_conn_type", "fm_postgres"),
        ("unparseable_conn", "fm_underscore"),
        ("spark_conf_not_a_dict", "fm_bad_extra"),
    ):
        LineageAwarePySparkOperator(task_id=task_id, conn_id=conn_id, python_callable=_noop)
    LineageAwarePySparkOperator(
        task_id="templated_master", master="{{ 'nonsense' + '://' }}", python_callable=_noop
    )


def _two_outputs(spark) -> None:
    spark.range(2).withColumnRenamed("id", "boom").write.mode("overwrite").parquet(f"{BASE_DIR}/boom")
    spark.range(2).write.mode("overwrite").parquet(f"{BASE_DIR}/fine")


def _one_output(spark) -> None:
    spark.range(2).write.mode("overwrite").parquet(f"{BASE_DIR}/after_fault")


with DAG("fault_capture", schedule=None, start_date=START) as capture_dag:
    bad_facet = LineageAwarePySparkOperator(
        task_id="bad_facet", master="local[1]", python_callable=_two_outputs
    )
    raising = LineageAwarePySparkOperator(task_id="raising", master="local[1]", python_callable=_one_output)
    hang = LineageAwarePySparkOperator(task_id="hang", master="local[1]", python_callable=_one_output)
    bad_facet >> raising >> hang


with DAG("fault_selective", schedule=None, start_date=START) as selective_dag:
    from airflow.providers.openlineage.utils.selective_enable import enable_lineage

    LineageAwarePySparkOperator(task_id="not_enabled", master="local[1]", python_callable=_one_output)
    enable_lineage(
        LineageAwarePySparkOperator(task_id="enabled", master="local[1]", python_callable=_one_output)
    )


ODD_LEAVES = ("pct%41/100%", "p%2541", "p%20x", "sp ace", "h#ash", "\u00fcn\u00ef")


def _odd_paths(spark) -> None:
    for leaf in ODD_LEAVES:
        path = f"{BASE_DIR}/odd/{leaf}"
        spark.range(1).write.mode("overwrite").parquet(path)
        spark.read.parquet(path).count()


with DAG("fault_odd_paths", schedule=None, start_date=START) as odd_paths_dag:
    LineageAwarePySparkOperator(task_id="odd", master="local[1]", python_callable=_odd_paths)
