"""What the classic capture hears from Spark: the query listener, the JVM-side queue of ended
executions the reader takes them from, the execution ids of each query, and the jobs' statistics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.listen.execution_ids import query_key
    from lineage_operators.spark.listen.execution_queue import ExecutionQueue, QueuedReply
    from lineage_operators.spark.listen.job_statistics import ExecutionJobs
    from lineage_operators.spark.listen.listener import QueryListener

_EXPORTS = {
    "QueryListener": "lineage_operators.spark.listen.listener",
    "ExecutionQueue": "lineage_operators.spark.listen.execution_queue",
    "QueuedReply": "lineage_operators.spark.listen.execution_queue",
    "query_key": "lineage_operators.spark.listen.execution_ids",
    "ExecutionJobs": "lineage_operators.spark.listen.job_statistics",
}

__all__ = [
    "ExecutionJobs",
    "ExecutionQueue",
    "QueryListener",
    "QueuedReply",
    "query_key",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
