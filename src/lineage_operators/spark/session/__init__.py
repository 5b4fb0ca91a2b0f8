"""The task's SparkSession: where it comes from (master, Spark Connect connection), the checks of
the operator's arguments, and what keeps a session healthy in Airflow's processes (fork safety,
log4j masking, py4j's callback server).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lineage_operators._lazy import lazy_exports

if TYPE_CHECKING:
    from lineage_operators.spark.session.arguments import (
        check_capture_lineage,
        check_connection,
        check_master,
    )
    from lineage_operators.spark.session.callback_server import run_bounded, shut_down_sockets
    from lineage_operators.spark.session.fork_safety import protect_py4j_connections_from_forks
    from lineage_operators.spark.session.task_session import (
        SessionSpec,
        open_session,
        spec_from_connection,
        spec_from_master,
        stop_owned_session,
        with_parent_job_information,
    )

_EXPORTS = {
    "SessionSpec": "lineage_operators.spark.session.task_session",
    "open_session": "lineage_operators.spark.session.task_session",
    "stop_owned_session": "lineage_operators.spark.session.task_session",
    "with_parent_job_information": "lineage_operators.spark.session.task_session",
    "spec_from_master": "lineage_operators.spark.session.task_session",
    "spec_from_connection": "lineage_operators.spark.session.task_session",
    "check_master": "lineage_operators.spark.session.arguments",
    "check_capture_lineage": "lineage_operators.spark.session.arguments",
    "check_connection": "lineage_operators.spark.session.arguments",
    "protect_py4j_connections_from_forks": "lineage_operators.spark.session.fork_safety",
    "run_bounded": "lineage_operators.spark.session.callback_server",
    "shut_down_sockets": "lineage_operators.spark.session.callback_server",
}

__all__ = [
    "SessionSpec",
    "check_capture_lineage",
    "check_connection",
    "check_master",
    "open_session",
    "protect_py4j_connections_from_forks",
    "run_bounded",
    "shut_down_sockets",
    "spec_from_connection",
    "spec_from_master",
    "stop_owned_session",
    "with_parent_job_information",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, cache=False)
