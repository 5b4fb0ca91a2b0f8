"""Pure translation of Spark Connect protobuf plans and SQL text into the compact analyzed-plan
JSON the column-lineage engine reads (no Spark, no server: table-tested).
"""

from __future__ import annotations

__all__: list[str] = []
