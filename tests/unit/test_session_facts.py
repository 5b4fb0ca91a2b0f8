"""The session facts both captures build with one function (spark/session_facts.py): what each configuration
key means, decided once; the classic capture's reading of its two conf sources gives what a Connect session's
one config request gives."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from lineage_operators.spark.capture.classic_setup import read_application, read_session
from lineage_operators.spark.session_facts import (
    DEFAULT_SUBSET_LIMIT,
    SESSION_KEYS,
    SUBSET_MAX_LOCATIONS_CONF,
    NamingContext,
    SparkApplication,
    naming_context,
    session_facts,
    subset_limit,
)

HIVE = {
    "spark.sql.catalogImplementation": "hive",
    "spark.hadoop.hive.metastore.uris": "thrift://meta:9083",
    "spark.sql.warehouse.dir": "file:/data/wh",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    SUBSET_MAX_LOCATIONS_CONF: "3",
}


def test_a_hive_session_names_its_metastore_warehouse_catalog_and_subset_bound() -> None:
    assert naming_context(HIVE.get) == NamingContext(
        warehouse="file:/data/wh",
        metastore_uris="thrift://meta:9083",
        subset_limit=3,
        hive=True,
        session_catalog="org.apache.spark.sql.delta.catalog.DeltaCatalog",
    )


def test_the_metastore_key_is_looked_up_as_openlineage_spark_does() -> None:
    """``spark.sql.hive.metastore.uris`` first, then the Hadoop key; neither without Hive support."""
    both = {**HIVE, "spark.sql.hive.metastore.uris": "thrift://first:9083"}
    assert naming_context(both.get).metastore_uris == "thrift://first:9083"
    in_memory = {**HIVE, "spark.sql.catalogImplementation": "in-memory"}
    assert (naming_context(in_memory.get).hive, naming_context(in_memory.get).metastore_uris) == (False, None)
    assert naming_context({}.get) == NamingContext()


@pytest.mark.parametrize(
    ("value", "limit"),
    [(None, DEFAULT_SUBSET_LIMIT), ("", DEFAULT_SUBSET_LIMIT), ("7", 7), ("0", 1), ("-3", 1)],
)
def test_the_subset_bound(value: str | None, limit: int) -> None:
    assert subset_limit(value) == limit


def test_a_subset_bound_that_is_no_number_is_the_default_with_a_warning(caplog: Any) -> None:
    with caplog.at_level(logging.WARNING):
        assert subset_limit("many") == DEFAULT_SUBSET_LIMIT
    assert any(SUBSET_MAX_LOCATIONS_CONF in r.getMessage() for r in caplog.records)


def test_run_facets_of_a_classic_context_redact_its_master() -> None:
    pytest.importorskip("openlineage.client")
    app = SparkApplication(
        version="3.5.4",
        master="spark://admin:secret@cluster:7077",
        app_name="daily",
        app_id="app-1",
        user="etl",
        ui_url="http://driver:4040",
    )
    facets = session_facts({"spark.driver.host": "driver"}.get, app).run_facets
    assert set(facets) == {"spark_processingEngine", "lineageOperators", "spark_applicationDetails"}
    assert facets["spark_processingEngine"].version == "3.5.4"
    details = facets["spark_applicationDetails"]
    named = (details.master, details.appName, details.applicationId)
    assert named == ("spark://cluster:7077", "daily", "app-1")
    assert (details.deployMode, details.driverHost, details.userName, details.uiWebUrl) == (
        "client",
        "driver",
        "etl",
        "http://driver:4040",
    )


def test_run_facets_of_a_connect_session_come_from_its_conf() -> None:
    """A Connect capture knows the server's version only: master, name and id are the conf's."""
    pytest.importorskip("openlineage.client")
    conf = {
        "spark.master": "local[2]",
        "spark.app.name": "server",
        "spark.app.id": "local-1",
        "spark.submit.deployMode": "cluster",
    }
    facets = session_facts(conf.get, SparkApplication("4.1.1")).run_facets
    assert facets["lineageOperators"].version
    details = facets["spark_applicationDetails"]
    assert (details.master, details.appName, details.applicationId, details.deployMode) == (
        "local[2]",
        "server",
        "local-1",
        "cluster",
    )
    assert (details.userName, details.uiWebUrl) == (None, None)


def test_an_unread_session_has_no_run_facets_and_default_naming() -> None:
    facts = session_facts({}.get, SparkApplication(None))
    assert (dict(facts.run_facets), facts.naming) == ({}, NamingContext())


class _Conf:
    """A conf whose ``get(key, default)`` records the keys asked (as pyspark's ``SparkConf``,
    ``RuntimeConfig``)."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.asked: list[str] = []

    def get(self, key: str, default: str | None = None) -> str | None:
        self.asked.append(key)
        return self.values.get(key, default)


def test_a_classic_session_reads_its_own_keys_from_the_session_and_the_rest_from_the_context() -> None:
    """The keys a task sets on its session come from ``spark.conf``; the same configuration as one Connect
    config request gives the same naming."""
    runtime = _Conf({k: v for k, v in HIVE.items() if k in SESSION_KEYS})
    context = _Conf({k: v for k, v in HIVE.items() if k not in SESSION_KEYS})
    spark = type("Session", (), {"conf": runtime})()
    sc = type("Context", (), {"_conf": context})()
    facts = read_session(spark, sc, SparkApplication(None))
    assert facts.naming == naming_context(HIVE.get)
    assert set(runtime.asked) == set(SESSION_KEYS)
    assert not SESSION_KEYS & set(context.asked)


def test_the_context_says_what_the_run_facets_need() -> None:
    class Context:
        version, master, appName, applicationId, uiWebUrl = "3.5.4", "local[2]", "t", "local-9", None

        def sparkUser(self) -> str:
            raise RuntimeError("no user")

    assert read_application(Context()) == SparkApplication("3.5.4", "local[2]", "t", "local-9", None, None)
