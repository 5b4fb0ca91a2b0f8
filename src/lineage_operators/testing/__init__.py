"""Testing harness for lineage (implementation pending)."""
