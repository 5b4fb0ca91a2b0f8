"""Suite-wide setup.

- pyspark starts one JVM per process and the first session fixes the driver's classpath, so the
  PostgreSQL JDBC driver (for the JDBC system tests) goes on it from the start, whichever test
  happens to start Spark first.
- Some test modules import Airflow at collection time, before any harness fixture isolates it;
  Airflow would then write its default config into ``~/airflow``.  This suite's own process gets a
  throwaway ``AIRFLOW_HOME`` (the harness's ``run_dag`` still runs in a home of its own).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from tests.support.postgres import find_jdbc_jar

_jar = find_jdbc_jar()
if _jar is not None and "PYSPARK_SUBMIT_ARGS" not in os.environ:
    os.environ["PYSPARK_SUBMIT_ARGS"] = f"--driver-class-path {_jar} --jars {_jar} pyspark-shell"

if "AIRFLOW_HOME" not in os.environ:
    _home = tempfile.mkdtemp(prefix="lineage-tests-airflow-")
    os.environ["AIRFLOW_HOME"] = _home
    os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
    atexit.register(shutil.rmtree, _home, ignore_errors=True)
