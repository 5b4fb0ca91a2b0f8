"""The ``lineage-operators`` command: view, diff and summarise OpenLineage events from files.

Nothing here runs inside a task: it reads what the FileTransport wrote, so it never touches
Airflow, Spark or the OpenLineage client.
"""
