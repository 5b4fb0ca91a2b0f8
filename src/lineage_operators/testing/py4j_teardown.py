"""Close py4j's client connections before pytest closes its capture streams.

``import airflow`` attaches a root ``StreamHandler`` to the ``sys.stdout`` of that moment, which
in a pytest session is pytest's capture file.  py4j logs "Closing down clientserver connection"
(INFO) every time a connection object is closed or garbage-collected; the connections still
alive at interpreter exit are collected after pytest has closed that file, and each record ends
as ``--- Logging error --- ValueError: I/O operation on closed file``.  Closing the gateway's
connections while the streams are still open leaves none to be collected at exit; py4j reopens a
connection if the JVM is called again.  These deliberate closes log the same INFO line once per
connection: they are held back (py4j's loggers at WARNING for the duration of the close only).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["close_py4j_connections"]

_PY4J_LOGGERS = ("py4j.clientserver", "py4j.java_gateway")


@contextlib.contextmanager
def _py4j_warnings_only() -> Iterator[None]:
    loggers = [logging.getLogger(name) for name in _PY4J_LOGGERS]
    saved = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))
    try:
        yield
    finally:
        for logger, level in zip(loggers, saved, strict=True):
            logger.setLevel(level)


def _spark_gateway() -> Any:
    pyspark = sys.modules.get("pyspark")  # never imported here: only a gateway that already exists
    context = getattr(pyspark, "SparkContext", None) if pyspark is not None else None
    return getattr(context, "_gateway", None)


def close_py4j_connections() -> bool:
    """Close the Spark gateway's idle client connections now; True if there was a gateway."""
    gateway = _spark_gateway()
    if gateway is None:
        return False
    with _py4j_warnings_only():
        gc.collect()  # Java object proxies that are already garbage release their JVM references first
        with contextlib.suppress(Exception):
            gateway.close(keep_callback_server=True)
        gc.collect()  # the closed connections, while py4j's INFO lines are held back
    return True
