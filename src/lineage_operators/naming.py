"""Dataset naming, as openlineage-spark and Airflow's providers name datasets.

Pure functions over strings (no Spark, no Airflow). Imports openlineage-python at module level:
import this module only from run-time code paths, never at package or DAG-parse time.

CONTRACT (implementation pending): see each function's docstring.
"""

from __future__ import annotations

from lineage_operators.model import DatasetName


def name_location(uri: str, *, cwd: str | None = None, trim: bool = True) -> DatasetName:
    """Name a file-system location (path or URI) as openlineage-spark does.

    ``file:/tmp/x``, ``file:///tmp/x``, ``/tmp/x`` -> ``("file", "/tmp/x")``; relative paths are
    resolved against ``cwd`` (default: the process cwd). ``s3a://b/k/`` -> ``("s3://b", "k")``;
    bucket roots -> name ``/``. With ``trim``, partition/date segments are trimmed to the root.
    Raises ``ValueError`` on an unusable value.
    """
    raise NotImplementedError


def trim_partitions(name: str) -> str:
    """Trim ``key=value`` and date-like trailing segments with openlineage-python's trimmers."""
    raise NotImplementedError


def name_jdbc(url: str, table: str) -> DatasetName:
    """``jdbc:postgresql://h:5432/db`` + ``s.t`` -> ``("postgres://h:5432", "db.s.t")``; no credentials."""
    raise NotImplementedError


def name_table_symlink(
    database: str,
    table: str,
    *,
    location: str | None,
    metastore_uris: str | None = None,
    warehouse: str | None = None,
) -> DatasetName | None:
    """The ``TABLE`` symlink of a session-catalog table, or None when it has none."""
    raise NotImplementedError


def parse_dataset(value: str, *, namespace: str | None = None) -> DatasetName:
    """Name what a user wrote: a path, a URI, a JDBC URL, an OL ``<namespace>/<name>`` URI,
    or a table name together with ``namespace``. Raises ``ValueError`` with a clear message."""
    raise NotImplementedError
