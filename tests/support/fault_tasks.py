"""The task side of the data systems' fault tests (tests/s3, tests/hive-less tests/system, tests/kafka):
what a fault DAG's tasks call to meet a fault at a known moment, and to leave behind what the test
compares between our task and the same code without us.

A task asks the test for a fault (a file named after the request in the faults folder, which the test's
:class:`tests.support.faults.FaultWatcher` watches) and waits until the service shows it (its port refuses
connections, or accepts them again); the seconds it waited go into ``<request>.waited``: the fault's
time, the test's doing, left out of what the comparison counts as lineage's cost. A failed task leaves
its exception's class (and, for an error of the JVM, the Java class at the root of its causes) in
``<task_id>.error.json`` through :func:`record_error`, Airflow's ``on_failure_callback``.

Everything here reads the folder from :data:`FOLDER_ENV` at run time: a DAG file imports this module at
parse time, before the test has set it.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

FOLDER_ENV = "LINEAGE_TEST_FAULTS_DIR"
#: The longest a task waits for the state it asked for: a test whose watcher never acts fails, not hangs.
WAIT_S = 120.0


def folder() -> Path:
    return Path(os.environ[FOLDER_ENV])


def accepts(host: str, port: int) -> bool:
    """Whether something listens on ``host:port`` (a refused or timed-out connection: no)."""
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def ask(request: str, ready: Callable[[], bool]) -> float:
    """Ask the test for ``request`` and wait until ``ready()``; return (and record) the seconds waited."""
    (folder() / request).touch()
    asked = time.monotonic()
    while not ready():
        if time.monotonic() > asked + WAIT_S:
            raise RuntimeError(f"the test did not carry out {request!r} within {WAIT_S:.0f} s")
        time.sleep(0.1)
    waited = time.monotonic() - asked
    with (folder() / f"{request}.waited").open("a") as out:
        out.write(f"{waited}\n")
    return waited


def down_waiter(request: str, faults: str, host: str, port: int) -> Callable[[Any], Any]:
    """A function for a Spark UDF that, the first time it runs while the service is up, asks the test to
    stop it and waits until ``host:port`` refuses connections: the fault comes while the job runs.

    Self-contained (imports inside, no global of this module): Spark pickles it by value into its Python
    workers, which may not import this module."""

    def pause(value: Any) -> Any:
        import pathlib
        import socket
        import time

        def up() -> bool:
            try:
                with socket.create_connection((host, port), timeout=1):
                    return True
            except OSError:
                return False

        if up():
            asked = time.monotonic()
            (pathlib.Path(faults) / request).touch()
            while up() and time.monotonic() < asked + 120:
                time.sleep(0.1)
            with (pathlib.Path(faults) / f"{request}.waited").open("a") as out:
                out.write(f"{time.monotonic() - asked}\n")
        return value

    return pause


def record_error(context: dict[str, Any]) -> None:
    """``on_failure_callback``: the failed task's exception as classes, for the test to compare sides."""
    error = context.get("exception")
    task_id = context["ti"].task_id
    (folder() / f"{task_id}.error.json").write_text(json.dumps(error_classes(error)))


def error_classes(error: BaseException | None) -> dict[str, str | None]:
    """``{"python": module.Class, "java": root cause's Java class or None, "message": first line}``."""
    if error is None:
        return {"python": None, "java": None, "message": None}
    java = None
    throwable = getattr(error, "java_exception", None) or getattr(error, "_origin", None)
    try:
        while throwable is not None and throwable.getCause() is not None:
            throwable = throwable.getCause()
        java = throwable.getClass().getName() if throwable is not None else None
    except Exception:  # a JVM that went away: the Python class is still compared
        java = None
    return {
        "python": f"{type(error).__module__}.{type(error).__qualname__}",
        "java": java,
        "message": str(error).strip().splitlines()[0][:300] if str(error).strip() else "",
    }


#: ``job(spark, side)``: a fault DAG's code, the same on both sides; ``side`` names its data and requests.
Job = Callable[[Any, str], None]


def plain_task(job: Job, side: str, master: str | None, conf: Mapping[str, str]) -> Callable[[], None]:
    """The same code without us: a ``PythonOperator``'s callable building its session as a user's task does
    (the process's active session when there is one, else a new one it stops at the end)."""

    def run() -> None:
        from pyspark.sql import SparkSession

        owned = SparkSession.getActiveSession() is None
        builder = SparkSession.builder.master(master) if master and owned else SparkSession.builder
        for key, value in conf.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        try:
            job(spark, side)
        finally:
            if owned:
                spark.stop()

    return run


def fault_dag(
    dag_id: str,
    fileloc: str,
    pairs: Mapping[str, Job],
    *,
    between: Mapping[str, Callable[[], None]] | None = None,
    master: str | None = None,
    conf: Mapping[str, str] | None = None,
    pair_conf: Mapping[str, Mapping[str, str]] | None = None,
    warm_up: Callable[[Any], None] | None = None,
) -> Any:
    """``warm_up >> ours_<pair> >> plain_<pair> >> ...`` in the order of ``pairs`` (``healthy`` first: the
    run's measure of our cost without a fault); ``between[name]`` runs before ``plain_<name>`` (a service
    brought back). Every task runs whatever failed before it; a failed one records its error classes.

    ``warm_up`` (:func:`warm_up_write` unless given) takes the process's first-task costs off the first
    side. ``fileloc``:
    the DAG file's ``__file__``, which ``dag.test()`` parses again. ``conf``: both sides' session conf,
    ``pair_conf[name]`` that pair's instead."""
    import pendulum
    from airflow.providers.standard.operators.python import PythonOperator
    from airflow.sdk import DAG

    from lineage_operators import LineageAwarePySparkOperator

    with DAG(dag_id, schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), catchup=False) as dag:
        previous = LineageAwarePySparkOperator(
            task_id="warm_up",
            python_callable=warm_up or warm_up_write,
            master=master,
            config_kwargs=conf or None,
        )
        for name, job in pairs.items():
            settings = dict((pair_conf or {}).get(name, conf or {}))
            ours = LineageAwarePySparkOperator(
                task_id=f"ours_{name}",
                python_callable=job,
                op_kwargs={"side": f"ours_{name}"},
                master=master,
                config_kwargs=settings or None,
                on_failure_callback=record_error,
                trigger_rule="all_done",
            )
            chain = [ours]
            if between and name in between:
                chain.append(
                    PythonOperator(
                        task_id=f"before_plain_{name}", python_callable=between[name], trigger_rule="all_done"
                    )
                )
            chain.append(
                PythonOperator(
                    task_id=f"plain_{name}",
                    python_callable=plain_task(job, f"plain_{name}", master, settings),
                    on_failure_callback=record_error,
                    trigger_rule="all_done",
                )
            )
            for task in chain:
                previous >> task
                previous = task
    dag.fileloc = fileloc
    return dag


def warm_up_write(spark: Any) -> None:
    """``warm_up``'s code: dag.test()'s first task starts Airflow's in-process execution API, and the
    process's first capture of a write compiles its JVM-side helpers; neither is a side's cost."""
    spark.range(1).write.mode("overwrite").parquet(str(folder() / "warm_up"))
