"""Catalog lookups for outputs: a session-catalog table's location, provider and schema as the
catalog holds it after the command, the managed location of a dropped table."""

from __future__ import annotations

from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.spark.facts import RelationFacts, TableRef
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.plan.classes import _SESSION_CATALOG
from lineage_operators.spark.plan.records import _parse_ct, uri_to_path
from lineage_operators.spark.plan.v2_tables import v2_created, v2_table_output

log = get_logger(__name__)


class CatalogOutputs:
    """The catalog half of :class:`~lineage_operators.spark.plan.reader.PlanReader`."""

    _t: JvmTools
    _jss: Any
    _catalog: Any
    _ct_full_fn: Any
    tables: Any

    # -- catalog lookups -----------------------------------------------------------------------

    def _session_catalog(self) -> Any:
        if self._catalog is None:
            self._catalog = self._jss.sessionState().catalog()
        return self._catalog

    def _table_identifier(self, table: TableRef) -> Any:
        db = self._t.java_class("scala.Option").apply(table.database)
        return self._t.java_class("org.apache.spark.sql.catalyst.TableIdentifier").apply(table.table, db)

    def _lookup(self, table: TableRef) -> tuple[TableRef | None, str | None, str | None, str | None]:
        meta = self._session_catalog().getTableMetadata(self._table_identifier(table))
        return _parse_ct(self._t.read(self._ct_full_fn.apply(meta)))

    def _default_location(self, table: TableRef) -> str | None:
        if table.catalog not in (None, _SESSION_CATALOG):
            return None
        try:
            uri = self._session_catalog().defaultTablePath(self._table_identifier(table)).toString()
            return uri_to_path(str(uri))
        except Exception as exc:
            log.debug("lineage capture: no default location for %s: %s", table.table, describe(exc))
            return None

    def _catalog_output(
        self, table: TableRef, lifecycle: str | None, with_schema: bool = True
    ) -> list[RelationFacts]:
        if not table.table:
            return []
        try:
            looked_up = self._lookup(table)
        except Exception:
            log.warning("lineage capture: table %s not found in the catalog", table.table)
            return []
        return [self._looked_up_output(table, looked_up, lifecycle, with_schema)]

    def _looked_up_output(
        self,
        table: TableRef,
        looked_up: tuple[TableRef | None, str | None, str | None, str | None],
        lifecycle: str | None,
        with_schema: bool = True,
    ) -> RelationFacts:
        """The output made of one :meth:`_lookup` answer (a second lookup could miss a table the task
        renamed meanwhile)."""
        found, location, provider, schema = looked_up
        return RelationFacts(
            location=location or self._default_location(found or table),
            table=found or table,
            provider=provider,
            schema_text=schema if with_schema else None,
            lifecycle=lifecycle,
        )

    def _dropped(self, table: TableRef, if_exists: bool) -> list[RelationFacts]:
        """DROP: the table is gone, so its location comes from memory or the catalog's default.

        openlineage-spark reads the table at the execution's START event; a query listener only
        sees the end, so: the location remembered from an earlier plan of this capture, else the
        managed-table location ``SessionCatalog.defaultTablePath`` (right for managed tables).
        """
        if table.database is None and table.catalog is None:
            try:
                table = TableRef(str(self._jss.catalog().currentDatabase()), table.table)
            except Exception as exc:
                log.debug("lineage capture: no current database: %s", describe(exc))
        known = self.tables.known(table)
        location, provider = known if known else (self._default_location(table), None)
        if not location:
            return []
        if not known and if_exists:
            log.debug("lineage capture: DROP TABLE IF EXISTS %s: location assumed managed", table.table)
        return [RelationFacts(location=location, table=table, provider=provider, lifecycle="DROP")]

    def _v2_created(
        self, cls: str, catalog: str | None, namespace: str | None, name: str | None
    ) -> list[RelationFacts]:
        return v2_created(self, cls, catalog, namespace, name)

    def catalog_output(self, table: TableRef, lifecycle: str | None) -> list[RelationFacts]:
        """A session-catalog table as an output, as the catalog holds it now."""
        return self._catalog_output(table, lifecycle)

    def v2_table_output(
        self, catalog: str | None, namespace: str | None, name: str, lifecycle: str | None
    ) -> list[RelationFacts]:
        """A table of a v2 catalog as an output
        (:func:`~lineage_operators.spark.plan.v2_tables.v2_table_output`)."""
        return v2_table_output(self, catalog, namespace, name, lifecycle)
