"""The only code that talks to Spark: a task's session, its executions read into plain facts, named.

The data flow, one folder per step, classic Spark and Spark Connect side by side over one contract::

    session/      the task's SparkSession (opened or found), its arguments, fork safety, log4j
      -> listen/      the query listener, the JVM-side execution queue, execution ids, job statistics
      -> plan/        one execution's analyzed plan read into facts: a table of commands, one of
                      leaves, catalog lookups; columns/ writes the query's plan for column lineage
         rdd/         RDD-only jobs;  tables/  table formats (Iceberg), the tables a capture saw
      -> facts.py     the contract: ExecutionFacts of RelationFacts, and the task's CaptureResult;
         session_facts.py  what both captures read of their session (naming, run facets), one function;
         passes.py    facts -> facts over the task; table_facets.py  table formats' facets
      -> resolve.py   facts -> named datasets and facets (imports of spark/ only the contract)
    attribution/  which task an execution belongs to (thread ownership, job tags, time windows)
    capture/      the task's capture life cycle (classic), the chooser, automatic capture
    connect/      the Spark Connect capture: plans read on the client; columns/ translates them
                  (imports the contract, resolve and attribution, never a classic step)
    jvm/          the py4j bridge every classic step uses (functions built or compiled in the JVM, the
                  names of the Spark classes they dispatch on)

Names are exported lazily: importing this package imports neither pyspark nor py4j.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.capture.chooser import LineageCapture, is_connect_session, new_capture
    from lineage_operators.spark.facts import CaptureResult, ExecutionFacts, RelationFacts, TableRef

_EXPORTS = {
    "new_capture": "lineage_operators.spark.capture.chooser",
    "is_connect_session": "lineage_operators.spark.capture.chooser",
    "LineageCapture": "lineage_operators.spark.capture.chooser",
    "CaptureResult": "lineage_operators.spark.facts",
    "ExecutionFacts": "lineage_operators.spark.facts",
    "RelationFacts": "lineage_operators.spark.facts",
    "TableRef": "lineage_operators.spark.facts",
}

__all__ = [
    "CaptureResult",
    "ExecutionFacts",
    "LineageCapture",
    "RelationFacts",
    "TableRef",
    "is_connect_session",
    "new_capture",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
