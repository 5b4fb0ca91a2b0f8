"""Smoke test: a local SparkSession reads from and writes to a real PostgreSQL over JDBC.

Proves the test infrastructure (tests/support/postgres.py + scripts/ensure_test_services.sh):
a throwaway server on 127.0.0.1, password authentication, and Debian's JDBC driver on
Spark's classpath through ``spark.jars``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from tests.support.postgres import PostgresServer

CUSTOMERS = [(1, "Ada", "ada@example.com"), (2, "Grace", "grace@example.com"), (3, "Linus", None)]


@pytest.fixture(scope="module")
def spark(postgres: PostgresServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    work = tmp_path_factory.mktemp("spark")
    builder = SparkSession.builder
    # spark.jars = the driver jar, plus extraClassPath so DriverManager finds it from the URL alone.
    for key, value in postgres.spark_conf.items():
        builder = builder.config(key, value)
    session = (
        builder.master("local[1]")
        .appName("lineage-operators-postgres-jdbc-smoke")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.local.dir", str(work / "local"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={Path(work) / 'derby'}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("WARN")
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture
def customers(postgres: PostgresServer) -> None:
    postgres.execute(
        """
        DROP TABLE IF EXISTS public.customers_copy;
        DROP TABLE IF EXISTS public.customers;
        CREATE TABLE public.customers (id integer PRIMARY KEY, name text NOT NULL, email text);
        INSERT INTO public.customers (id, name, email) VALUES
            (1, 'Ada', 'ada@example.com'), (2, 'Grace', 'grace@example.com'), (3, 'Linus', NULL);
        """
    )


def test_server_is_real_postgres_on_loopback(postgres: PostgresServer) -> None:
    assert postgres.host == "127.0.0.1"
    assert postgres.jdbc_url == f"jdbc:postgresql://127.0.0.1:{postgres.port}/lineage"
    assert postgres.password not in postgres.jdbc_url
    assert postgres.jdbc_url_with_credentials == (
        f"{postgres.jdbc_url}?user=lineage_user&password={postgres.password}"
    )
    assert Path(postgres.jdbc_jar).is_file()
    [(user, addr, version)] = postgres.query("SELECT current_user, host(inet_server_addr()), version()")
    assert (user, addr) == ("lineage_user", "127.0.0.1")
    assert version.startswith("PostgreSQL ")


def test_spark_reads_and_writes_postgres_over_jdbc(
    spark: SparkSession, postgres: PostgresServer, customers: None
) -> None:
    df = (
        spark.read.format("jdbc")
        .option("url", postgres.jdbc_url)
        .option("dbtable", "public.customers")
        .option("user", postgres.user)
        .option("password", postgres.password)
        .load()
    )
    assert df.columns == ["id", "name", "email"]
    rows = sorted((r["id"], r["name"], r["email"]) for r in df.collect())
    assert rows == CUSTOMERS
    assert df.count() == 3

    (
        df.write.format("jdbc")
        .option("url", postgres.jdbc_url)
        .option("dbtable", "public.customers_copy")
        .option("user", postgres.user)
        .option("password", postgres.password)
        .mode("overwrite")
        .save()
    )

    copied = postgres.query("SELECT id, name, email FROM public.customers_copy ORDER BY id")
    assert copied == [(str(i), n, e) for i, n, e in CUSTOMERS]
    [(owner,)] = postgres.query(
        "SELECT tableowner FROM pg_tables WHERE schemaname = 'public' AND tablename = 'customers_copy'"
    )
    assert owner == "lineage_user"


def test_credentials_in_url_and_explicit_driver(
    spark: SparkSession, postgres: PostgresServer, customers: None
) -> None:
    df = (
        spark.read.format("jdbc")
        .option("url", postgres.jdbc_url_with_credentials)
        .option("driver", postgres.jdbc_driver)
        .option("query", "SELECT count(*) AS n FROM public.customers")
        .load()
    )
    assert df.collect()[0]["n"] == 3


def test_wrong_password_is_rejected(spark: SparkSession, postgres: PostgresServer) -> None:
    reader = (
        spark.read.format("jdbc")
        .option("url", postgres.jdbc_url)
        .option("dbtable", "public.customers")
        .option("user", postgres.user)
        .option("password", "not-the-password")
    )
    # Spark 4 wraps the driver's error as FAILED_JDBC.CONNECTION with the URL redacted and without
    # the cause's text, so the server's own log is where the real reason shows.
    with pytest.raises(Exception, match=r"FAILED_JDBC\.CONNECTION|password authentication failed") as excinfo:
        reader.load()
    assert postgres.password not in str(excinfo.value)
    assert 'password authentication failed for user "lineage_user"' in postgres.log_text()
