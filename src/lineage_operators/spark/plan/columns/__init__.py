"""The written query's plan as compact JSON for the column-lineage engine: written in the JVM by
``PlanWriter.java`` (:mod:`.writer`), or by the Python fallback, and parsed here (:mod:`.compact`).
"""

from __future__ import annotations

__all__: list[str] = []
