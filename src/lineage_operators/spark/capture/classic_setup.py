"""What a classic capture reads from the session, and starts beside it, when it starts.

:class:`~lineage_operators.spark.capture.classic.SparkLineageCapture` keeps its life cycle (start, hand
over, drain, stop); these are the pieces of its ``start()`` that depend on the session only: the
session facts read once (naming and run facets: :mod:`~lineage_operators.spark.session_facts` decides
what the configuration means), the two watermarks attribution compares executions with, the
column-lineage plan reader, the watcher of RDD-only jobs, and the active session of the reader's JVM
thread. All but the last run on the task's thread, inside ``start()``.
"""

from __future__ import annotations

from typing import Any

from lineage_operators._errors import describe
from lineage_operators._logging import get_logger
from lineage_operators.column_lineage.settings import ColumnLineageSettings
from lineage_operators.spark.jvm.tools import JvmTools
from lineage_operators.spark.listen.job_statistics import last_execution_id
from lineage_operators.spark.plan.columns.compact import PlanJsonReader
from lineage_operators.spark.rdd.jobs import RddJobWatcher
from lineage_operators.spark.session_facts import SESSION_KEYS, SessionFacts, SparkApplication, session_facts

log = get_logger(__name__)

#: Spark's counter of ``QueryExecution`` ids (the companion object's, Spark 3.2 to 4.x).
_QE_COMPANION = "org.apache.spark.sql.execution.QueryExecution$"
_NEXT_QE_ID = "org$apache$spark$sql$execution$QueryExecution$$nextExecutionId"


# -- session facts read once ----------------------------------------------------------------------


def read_application(sc: Any) -> SparkApplication:
    """What the ``SparkContext`` says of its application: version, master, name, id, user, UI address."""
    try:
        user = sc.sparkUser()
    except Exception:
        user = None
    return SparkApplication(
        version=str(sc.version),
        master=sc.master,
        app_name=sc.appName,
        app_id=sc.applicationId,
        user=user,
        ui_url=sc.uiWebUrl,
    )


def read_session(spark: Any, sc: Any, app: SparkApplication) -> SessionFacts:
    """The session's :class:`~lineage_operators.spark.session_facts.SessionFacts`: the keys a task sets on its
    session (:data:`~lineage_operators.spark.session_facts.SESSION_KEYS`) from the session's runtime conf, the
    others from the context's ``SparkConf``; one py4j call or two per key read."""
    context = _context_conf(sc)

    def conf(key: str) -> str | None:
        value = (spark.conf if key in SESSION_KEYS else context).get(key, None)
        return None if value is None else str(value)

    return session_facts(conf, app)


def _context_conf(sc: Any) -> Any:
    """The context's own ``SparkConf``, to read a few keys: ``sc.getConf()`` copies every entry
    into a new JVM ``SparkConf`` (about 4 py4j round trips per entry, twice at ``start()``)."""
    conf = getattr(sc, "_conf", None)
    return conf if conf is not None else sc.getConf()


# -- the watermarks of attribution (:mod:`~lineage_operators.spark.attribution.classic`) -------------


def last_sql_execution_id(jss: Any) -> int:
    """The newest SQL execution id in Spark's SQL status store (the status store's watermark)."""
    return last_execution_id(jss.sharedState().statusStore())


def next_query_execution_id(tools: Any, jss: Any) -> int:
    """An id no execution before this call has and every later one exceeds (the attribution's
    watermark). Taken from Spark's counter: a ``QueryExecution`` made for it instead would be the
    fresh JVM's first analysis, about a second on the task's thread in a new task process."""
    try:
        companion = tools.cls(_QE_COMPANION).getField("MODULE$").get(None)
        return int(getattr(companion, _NEXT_QE_ID)())
    except Exception as exc:
        log.debug("lineage capture: no QueryExecution id counter (%s); analysing a query", describe(exc))
        return int(jss.range(0).queryExecution().id())


# -- what runs beside the capture -----------------------------------------------------------------


def column_reader(tools: JvmTools, settings: ColumnLineageSettings | None) -> PlanJsonReader | None:
    """The plan JSON reader of column lineage (``settings``: None for the defaults), or None if off."""
    settings = settings or ColumnLineageSettings()
    if not settings.enabled:
        return None
    return PlanJsonReader(
        tools, settings.max_columns, settings.max_plan_leaf_columns, descriptions=settings.descriptions
    )


def start_rdd_jobs(tools: JvmTools, jsc: Any) -> RddJobWatcher | None:
    """The watcher of RDD-only jobs (:mod:`lineage_operators.spark.rdd.jobs`), or None if it cannot run."""
    watcher = RddJobWatcher(tools, jsc)
    try:
        watcher.start()
    except Exception as exc:
        log.warning("lineage capture: RDD-only jobs will not be captured: %s", describe(exc))
        return None
    return watcher


def activate_session(tools: Any, jss: Any) -> None:
    """Make the task's session the active one of the reader's JVM thread: Spark reads its SQL conf
    from the thread's active session, and without it catalog lookups see the defaults (e.g. the
    built-in session catalog instead of a configured ``spark.sql.catalog.spark_catalog``)."""
    tools.java_class("org.apache.spark.sql.SparkSession").setActiveSession(jss)


__all__ = [
    "activate_session",
    "column_reader",
    "last_sql_execution_id",
    "next_query_execution_id",
    "read_application",
    "read_session",
    "start_rdd_jobs",
]
