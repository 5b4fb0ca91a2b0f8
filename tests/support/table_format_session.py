"""The Spark session of a table format's tests (tests/iceberg, tests/delta): the format's jars on the
classpath from the JVM's start, the format's conf, the shared test settings, and the checks that the
process's JVM was started with those jars."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.support.jvm_launch import append_to_classpath


def jvm_lacks(class_name: str) -> bool:
    """A JVM started by an earlier session of this process without the class on its classpath."""
    from pyspark import SparkContext

    if SparkContext._jvm is None:
        return False
    return not SparkContext._jvm.org.apache.spark.util.Utils.classIsLoadable(class_name)


def local_settings(work: Path) -> dict[str, str]:
    """The settings every test session shares: no UI, two partitions, its files under ``work``."""
    return {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.sql.warehouse.dir": str(work / "warehouse"),
        "spark.local.dir": str(work / "local"),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={work / 'derby'}",
    }


def open_session(
    app_name: str,
    jars: Sequence[Path],
    conf: Mapping[str, str],
    work: Path,
    *,
    overrides: Mapping[str, str] | None = None,
    classpath: Sequence[Path] = (),
) -> Any:
    """A local session with ``jars`` and ``conf``, its files under ``work``; ``overrides`` win over the
    shared settings (a remote metastore's warehouse, not one under ``work``).

    ``classpath``: jars on the JVM's own classpath, as a cluster's image has them (every class loader
    finds them). They go after pyspark's jars (``SPARK_DIST_CLASSPATH``, as a Hadoop-free Spark
    distribution adds Hadoop's) rather than before them (``spark.driver.extraClassPath``), so that
    the suite's class archive still fits the JVM (tests/support/jvm_launch.py).
    """
    from pyspark.sql import SparkSession

    if classpath:
        append_to_classpath(os.environ, classpath)
    # tests/conftest.py's ``--jars <JDBC driver>`` in PYSPARK_SUBMIT_ARGS would replace spark.jars
    submit_args = os.environ.pop("PYSPARK_SUBMIT_ARGS", None)
    builder = SparkSession.builder.master("local[2]").appName(app_name)
    settings = {
        "spark.jars": ",".join(str(j) for j in jars),
        **conf,
        **local_settings(work),
        **(overrides or {}),
    }
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    if submit_args is not None:
        os.environ["PYSPARK_SUBMIT_ARGS"] = submit_args
    session.sparkContext.setLogLevel("ERROR")
    return session


def load_dag_module(path: Path, name: str) -> ModuleType:
    """A DAG file imported as a user's environment would (after the test set its environment)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
