"""Operators built on :class:`lineage_operators.OpenLineageMixin`."""
