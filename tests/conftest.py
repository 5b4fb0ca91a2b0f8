"""Suite-wide setup. pyspark starts one JVM per process and the first session fixes the driver's
classpath, so the PostgreSQL JDBC driver (for the JDBC system tests) goes on it from the start,
whichever test happens to start Spark first."""

from __future__ import annotations

import os

from tests.support.connect_server import connect_server  # noqa: F401  (session fixture, shared)
from tests.support.postgres import find_jdbc_jar

_jar = find_jdbc_jar()
if _jar is not None and "PYSPARK_SUBMIT_ARGS" not in os.environ:
    os.environ["PYSPARK_SUBMIT_ARGS"] = f"--driver-class-path {_jar} --jars {_jar} pyspark-shell"
