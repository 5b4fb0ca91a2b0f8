"""One DAG run through Marquez's faults (tests/system/test_marquez_faults.py), a Spark task in each:

``while_down`` writes with Marquez stopped; ``bring_back`` has it started again; ``break_database``
stops Marquez's PostgreSQL (Marquez up, answering errors); ``while_failing`` writes then;
``make_slow`` starts the database again and puts a delay before each of Marquez's answers;
``while_slow`` writes then. The test does what the tasks ask (a file each task writes) and each task
waits until the backend is in the state it asked for, so every event meets a known backend; it
writes how long it waited (``<state>.waited``), which the test leaves out of the time lineage cost.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pendulum
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG

from lineage_operators import LineageAwarePySparkOperator

BASE_DIR = os.environ.get("LINEAGE_EXAMPLE_BASE_DIR", "/tmp/lineage-operators-example")
WAIT_S = 120.0


def _write(spark: Any, name: str) -> None:
    spark.range(3).write.mode("overwrite").parquet(f"{BASE_DIR}/faults/{name}")


def _post_status() -> int | None:
    """What Marquez answers a run event now (201 when it and its database are up), None for no answer.
    The event is a probe's, in a namespace of its own."""
    url = os.environ["LINEAGE_TEST_MARQUEZ_URL"]
    probe = {
        "eventType": "RUNNING",
        "eventTime": datetime.now(timezone.utc).isoformat(),
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "marquez_faults_probe", "name": "probe"},
        "inputs": [],
        "outputs": [],
        "producer": "https://example.com/marquez-faults-probe",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
    request = urllib.request.Request(
        f"{url}/api/v1/lineage",
        data=json.dumps(probe).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def _ask(state: str, ready: Any) -> None:
    """Ask the test for a backend state (a file it watches), then wait until the backend shows it.
    Only when the test says so (``LINEAGE_TEST_FAULTS``): its healthy run asks for nothing."""
    if os.environ.get("LINEAGE_TEST_FAULTS") != "1":
        return
    folder = Path(BASE_DIR) / "faults"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / state).touch()
    asked = time.monotonic()
    while time.monotonic() < asked + WAIT_S:
        if ready():
            # the wait is the test's doing (a server restarted, a probe timing out), not lineage's
            (folder / f"{state}.waited").write_text(str(time.monotonic() - asked))
            return
        time.sleep(0.2)
    raise RuntimeError(f"the backend did not reach {state!r} within {WAIT_S:.0f} s")


def _bring_back() -> None:
    _ask("bring_back", lambda: (_post_status() or 599) < 500)


def _break_database() -> None:
    _ask("break_database", lambda: (_post_status() or 599) >= 500)  # no answer in time counts too


def _make_slow() -> None:
    _ask("make_slow", lambda: (_post_status() or 500) < 500)


with DAG(
    "marquez_faults", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), catchup=False
) as dag:

    def spark_task(task_id: str) -> LineageAwarePySparkOperator:
        return LineageAwarePySparkOperator(
            task_id=task_id, master="local[1]", python_callable=_write, op_kwargs={"name": task_id}
        )

    (
        spark_task("while_down")
        >> PythonOperator(task_id="bring_back", python_callable=_bring_back)
        >> PythonOperator(task_id="break_database", python_callable=_break_database)
        >> spark_task("while_failing")
        >> PythonOperator(task_id="make_slow", python_callable=_make_slow)
        >> spark_task("while_slow")
    )
