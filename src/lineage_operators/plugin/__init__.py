"""The Airflow plugin that captures Spark lineage of tasks that do not use this package's operator.

Registered through the ``airflow.plugins`` entry point, so Airflow loads it in every task process. It is
inert until configured (see :mod:`lineage_operators.plugin.settings`), and importing it loads
nothing of Spark or OpenLineage.
"""

from __future__ import annotations

from airflow.sdk.plugins_manager import AirflowPlugin

from lineage_operators.plugin.listener import ForkGuardListener, TaskCaptureListener, TaskCleanupListener


class LineageCapturePlugin(AirflowPlugin):
    name = "lineage_operators"
    # Airflow reads this class attribute
    listeners = [ForkGuardListener(), TaskCaptureListener(), TaskCleanupListener()]  # noqa: RUF012
