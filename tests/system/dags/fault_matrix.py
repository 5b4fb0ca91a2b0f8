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


# 7: one session shared by consecutive tasks (dag.test runs them in one process). Task `a` starts a
# plain thread that writes once while `a` runs and twice more while `b` runs; `b` writes on its own
# thread and on an extra thread it joins. Files coordinate the threads of the two tasks.
SHARED = f"{BASE_DIR}/shared"
A_THREAD_WRITES_DURING_B = 2


def _write(spark, name: str) -> None:
    spark.range(2).write.mode("overwrite").parquet(f"{SHARED}/{name}")
    with open(f"{SHARED}/{name}.done", "w"):
        pass


def _wait_for(path: str, timeout: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not appear")
        time.sleep(0.05)


def _task_a(spark) -> None:
    import threading

    def background() -> None:  # outlives task a, like a user's writer thread
        _write(spark, "a_thread_0")
        _wait_for(f"{SHARED}/b_started")
        for index in range(1, A_THREAD_WRITES_DURING_B + 1):
            _write(spark, f"a_thread_{index}")

    _write(spark, "a_main")
    threading.Thread(target=background, name="a-writer", daemon=True).start()
    _wait_for(f"{SHARED}/a_thread_0.done")


def _task_b(spark) -> None:
    import threading

    with open(f"{SHARED}/b_started", "w"):
        pass
    _write(spark, "b_main")
    extra = threading.Thread(target=_write, args=(spark, "b_thread"), name="b-writer")
    extra.start()
    extra.join()
    _wait_for(f"{SHARED}/a_thread_{A_THREAD_WRITES_DURING_B}.done")


with DAG("fault_shared_session", schedule=None, start_date=START) as shared_session_dag:
    # no master: the operator uses the session the process already has and leaves it running
    a = LineageAwarePySparkOperator(task_id="a", python_callable=_task_a)
    b = LineageAwarePySparkOperator(task_id="b", python_callable=_task_b)
    a >> b


def _write_transport(spark) -> None:
    spark.range(3).write.mode("overwrite").parquet(f"{BASE_DIR}/transport")


with DAG("fault_transport_down", schedule=None, start_date=START) as transport_down_dag:
    LineageAwarePySparkOperator(task_id="write", master="local[1]", python_callable=_write_transport)
