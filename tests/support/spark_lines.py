"""What the tests expect differently per Spark line, each with its reason (listed in docs/getting-started.md).

Every other expectation of the Spark tests is the same on every supported line.
"""

from __future__ import annotations

import pyspark

#: (major, minor) of the pyspark under test.
SPARK_LINE = tuple(int(part) for part in pyspark.__version__.split(".")[:2])

#: Spark before 4.1 keeps the parser's origin (the SQL text) on the command a schema-only
#: ``CREATE TABLE t (...) USING ...`` runs as, so the task's SQL facet lists that statement too;
#: from 4.1 that command has no origin, so its text is not in the facet.
CREATE_TABLE_KEEPS_SQL_TEXT = SPARK_LINE < (4, 1)


def is_schema_only_create(statement: str) -> bool:
    """``CREATE TABLE name (columns) ...`` (not CTAS): its text is in the SQL facet before 4.1 only."""
    head = statement.strip().upper()
    return head.startswith("CREATE TABLE") and " AS SELECT " not in head and "(" in head.split(" USING")[0]


#: pyspark 3.5's jars have no Spark Connect server: Connect is captured on 4.x only.
HAS_CONNECT_SERVER = SPARK_LINE >= (4, 0)

#: Plan-recording SQL cases (tests/unit/column_lineage_plans) using syntax a line lacks:
#: case -> (first line with it, reason).
SQL_CASES_SINCE = {"recursive_cte": ((4, 1), "WITH RECURSIVE is Spark 4.1+ syntax")}


def skip_reason(case: str) -> str | None:
    """Why ``case`` cannot run on this line, or None."""
    since = SQL_CASES_SINCE.get(case)
    return since[1] if since is not None and since[0] > SPARK_LINE else None
