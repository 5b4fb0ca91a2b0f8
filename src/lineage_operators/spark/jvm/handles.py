"""Letting go of py4j handles as soon as the capture is done with them.

A py4j ``JavaObject`` keeps its JVM object alive through the gateway's bindings until Python
frees the handle. Once any method has been called on it, the handle is in a reference cycle
(``handle._methods[name].container is handle``), so reference counting never frees it: only
Python's cyclic garbage collector does, and in a task process full of long-lived objects (Airflow,
pyspark) a handle that survived a collection or two waits for a full collection, which may not come
before the task ends. For a ``QueryExecution`` that is its whole executed plan: a broadcast join's
``BroadcastExchangeExec`` keeps its ``Broadcast``, so Spark's ``ContextCleaner`` never removes the
hashed relation from the driver's block manager (32 MiB of ``long[]`` each in the memory
benchmark's task, see docs/history.md). Detaching drops the binding at once; the JVM object
is then collected as it is without the capture.
"""

from __future__ import annotations

from typing import Any


def release(*handles: Any) -> None:
    """Drop the py4j bindings of ``handles`` (``None`` and non-py4j values are skipped); never raises.

    Only for handles the capture itself received or made and no longer uses: a detached handle's
    next JVM call fails. Other handles of the same JVM object (the user's) are separate bindings.
    """
    for handle in handles:
        detach = getattr(handle, "_detach", None)
        if detach is None:
            continue
        try:
            detach()
        except Exception:  # py4j logs and swallows its own errors; this is for anything else
            continue


__all__ = ["release"]
