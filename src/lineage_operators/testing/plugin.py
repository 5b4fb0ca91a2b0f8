"""pytest plugin (implementation pending)."""
