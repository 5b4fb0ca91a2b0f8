"""What the tests expect differently per Spark line, each with its reason (README "Install" lists them).

Every other expectation of the Spark tests is the same on every supported line.
"""

from __future__ import annotations

import pyspark

#: (major, minor) of the pyspark under test.
SPARK_LINE = tuple(int(part) for part in pyspark.__version__.split(".")[:2])

#: Spark before 4.0 keeps the parser's origin (the SQL text) on the command a schema-only
#: ``CREATE TABLE ... USING`` runs as, so the task's SQL facet lists that statement too; 4.x
#: analyzes it into a command without that origin.
CREATE_TABLE_KEEPS_SQL_TEXT = SPARK_LINE < (4, 0)

#: pyspark 3.5's jars have no Spark Connect server: Connect is captured on 4.x only.
HAS_CONNECT_SERVER = SPARK_LINE >= (4, 0)
