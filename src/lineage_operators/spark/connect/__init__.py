"""Lineage capture for Spark Connect sessions (plans seen on the client, resolved with the server)."""
