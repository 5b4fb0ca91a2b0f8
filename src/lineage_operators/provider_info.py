"""What Airflow's providers manager reads from this package (entry point ``apache_airflow_provider``).

Only plain data: Airflow calls this in every process that discovers providers, DAG parsing included.
"""

from __future__ import annotations

from typing import Any

from lineage_operators._version import __version__

PACKAGE = "lineage_operators"


def get_provider_info() -> dict[str, Any]:
    return {
        "package-name": "lineage-operators",
        "name": "Lineage operators",
        "description": "OpenLineage lineage for PySpark jobs run from Airflow, with no hand annotation.",
        "versions": [__version__],
        "task-decorators": [
            {
                "class-name": "lineage_operators.decorators.pyspark.lineage_pyspark_task",
                "name": "lineage_pyspark",
            }
        ],
        "config": {
            "lineage_operators": {
                "description": "Spark lineage for tasks that do not use this package's operator.",
                "options": {
                    "capture_operators": {
                        "description": (
                            "Comma-separated operator class names (task_type) whose Spark sessions are "
                            "captured by the plugin, besides the defaults armed when "
                            "lineage_operators.extractor.SparkCaptureExtractor is named in "
                            "[openlineage] extractors."
                        ),
                        "version_added": "0.1.0",
                        "type": "string",
                        "example": "PythonOperator,_PythonDecoratedOperator,MyTeamSparkOperator",
                        "default": "",
                    },
                },
            }
        },
    }
