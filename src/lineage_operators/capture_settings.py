"""``[lineage_operators] capture_timeout``: how long capture may add to a task after its job.

A module of its own, importing nothing of this package at import time, so that the recorder, the
operator and the plugin's automatic capture all read the one setting without importing each
other (``recorder`` -> ``operators.pyspark`` -> ``mixin`` -> ``recorder`` was a circle).
"""

from __future__ import annotations

from lineage_operators._logging import get_logger

log = get_logger(__name__)

#: The section of Airflow's configuration this package reads (``[lineage_operators]``).
CONFIG_SECTION = "lineage_operators"
#: Seconds: draining Spark's listener bus and reading what it delivered (classic sessions),
#: waiting for the server lookups still pending (Spark Connect).
DEFAULT_CAPTURE_TIMEOUT = 5.0


def capture_timeout() -> float:
    """Seconds capture may add to a task after the job: ``[lineage_operators] capture_timeout``
    (``AIRFLOW__LINEAGE_OPERATORS__CAPTURE_TIMEOUT``); a bad value is a warning and the default."""
    try:
        from airflow.configuration import conf

        value = float(conf.getfloat(CONFIG_SECTION, "capture_timeout", fallback=DEFAULT_CAPTURE_TIMEOUT))
    except Exception as error:
        log.warning(
            "[lineage_operators] capture_timeout is not a number, using %ss: %s",
            DEFAULT_CAPTURE_TIMEOUT,
            error,
        )
        return DEFAULT_CAPTURE_TIMEOUT
    return max(value, 0.0)


__all__ = ["CONFIG_SECTION", "DEFAULT_CAPTURE_TIMEOUT", "capture_timeout"]
