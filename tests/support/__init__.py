"""Shared test helpers (real services the suites run against)."""
