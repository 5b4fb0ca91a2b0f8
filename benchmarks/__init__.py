"""Benchmarks of ``lineage_operators`` against a plain PythonOperator that builds a SparkSession.

Run ``python -m benchmarks.run`` (or ``make bench``) from the repository root; ``--tiny`` runs each
benchmark once at a tiny size. This module imports nothing on purpose: the parse-cost child
process is started with ``python -m benchmarks.parse_child`` and must start from a bare interpreter.
"""
