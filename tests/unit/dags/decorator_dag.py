"""Parse-cost check: the same shape of DAG with ``@task.lineage_pyspark`` (mapped)."""

import pendulum
from airflow.sdk import DAG, task

with DAG("decorated", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:

    @task.lineage_pyspark(master="local[1]")
    def t(part: int, spark, lineage) -> int:
        return part

    t.partial().expand(part=[1, 2])
