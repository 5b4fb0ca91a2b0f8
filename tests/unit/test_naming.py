"""Dataset naming must match what openlineage-spark emits (see naming.py for the sources)."""

from __future__ import annotations

import pytest

from lineage_operators.model import DatasetName
from lineage_operators.naming import (
    name_jdbc,
    name_jdbc_query,
    name_location,
    name_table_symlink,
    parse_dataset,
    to_location,
    trim_partitions,
)

CWD = "/home/airflow/work"

# (input, namespace, name) -- trimming on (the default)
LOCATIONS = [
    # local files
    pytest.param("file:/tmp/x", "file", "/tmp/x", id="file-single-slash"),
    pytest.param("file:///tmp/x", "file", "/tmp/x", id="file-triple-slash"),
    pytest.param("/tmp/x", "file", "/tmp/x", id="bare-absolute"),
    pytest.param("/tmp/x/", "file", "/tmp/x", id="bare-trailing-slash"),
    pytest.param("file:/tmp/x///", "file", "/tmp/x", id="file-many-trailing-slashes"),
    pytest.param("file://localhost/tmp/x", "file", "/tmp/x", id="file-with-host"),
    pytest.param("x/y.csv", "file", f"{CWD}/x/y.csv", id="relative"),
    pytest.param("./x/../y", "file", f"{CWD}/y", id="relative-dots"),
    pytest.param("../up", "file", "/home/airflow/up", id="relative-parent"),
    pytest.param("file:rel/p", "file", f"{CWD}/rel/p", id="file-relative"),
    pytest.param("/data//x/./y/../z", "file", "/data/x/z", id="double-slash-and-dots"),
    pytest.param("//data/x", "file", "/data/x", id="leading-double-slash"),
    pytest.param("/", "file", "/", id="root"),
    pytest.param("file:/", "file", "/", id="file-root"),
    pytest.param("file:/tmp/a%20b", "file", "/tmp/a%20b", id="percent-space-literal"),
    pytest.param("file:/tmp/%C3%BCber", "file", "/tmp/%C3%BCber", id="percent-utf8-literal"),
    pytest.param("file:/tmp/odd/pct%41/100%", "file", "/tmp/odd/pct%41/100%", id="percent-not-decoded-twice"),
    pytest.param("file:/tmp/odd/p%2541", "file", "/tmp/odd/p%2541", id="percent-25-literal"),
    pytest.param("file:/tmp/odd/h#ash", "file", "/tmp/odd/h#ash", id="hash-is-path"),
    pytest.param("file:/tmp/odd/sp ace", "file", "/tmp/odd/sp ace", id="space"),
    pytest.param("file:/tmp/odd/\u00fcn\u00ef", "file", "/tmp/odd/\u00fcn\u00ef", id="file-unicode"),
    pytest.param("/tmp/a%20b", "file", "/tmp/a%20b", id="bare-path-literal-percent"),
    pytest.param("/tmp/a b/c", "file", "/tmp/a b/c", id="space-in-path"),
    pytest.param("/tmp/\u00fcber/\u6570\u636e", "file", "/tmp/\u00fcber/\u6570\u636e", id="unicode"),
    pytest.param("FILE:/tmp/x", "file", "/tmp/x", id="scheme-case"),
    # object stores
    pytest.param("s3://b/k/", "s3://b", "k", id="s3-trailing-slash"),
    pytest.param("s3a://b/k", "s3://b", "k", id="s3a"),
    pytest.param("s3n://b/k", "s3://b", "k", id="s3n"),
    pytest.param("s3://b/dir/file.parquet", "s3://b", "dir/file.parquet", id="s3-deep"),
    pytest.param("s3://b", "s3://b", "/", id="s3-bucket-root"),
    pytest.param("s3://b/", "s3://b", "/", id="s3-bucket-root-slash"),
    pytest.param("s3a://b//k//x/", "s3://b", "k/x", id="s3-double-slashes"),
    pytest.param("s3://b/a%20b/c", "s3://b", "a%20b/c", id="s3-percent-literal"),
    pytest.param("s3a://AKIAX:SeCrEt@b/k", "s3://b", "k", id="s3-credentials-dropped"),
    pytest.param("gs://b/k", "gs://b", "k", id="gcs"),
    pytest.param("gs://b", "gs://b", "/", id="gcs-root"),
    pytest.param(
        "abfss://c@acct.dfs.core.windows.net/p",
        "abfss://c@acct.dfs.core.windows.net",
        "p",
        id="abfss",
    ),
    pytest.param(
        "abfs://c@acct.dfs.core.windows.net/p/q/",
        "abfss://c@acct.dfs.core.windows.net",
        "p/q",
        id="abfs-to-abfss",
    ),
    pytest.param(
        "abfss://c@acct.dfs.core.windows.net",
        "abfss://c@acct.dfs.core.windows.net",
        "/",
        id="abfss-root",
    ),
    pytest.param(
        "wasbs://c@acct.blob.core.windows.net/p/q",
        "wasbs://c@acct.blob.core.windows.net",
        "p/q",
        id="wasbs-host-kept",
    ),
    pytest.param(
        "wasb://c@acct.blob.core.windows.net/p",
        "wasb://c@acct.blob.core.windows.net",
        "/p",
        id="wasb-generic-like-openlineage-spark",
    ),
    # generic schemes
    pytest.param("hdfs://nn:8020/p", "hdfs://nn:8020", "/p", id="hdfs"),
    pytest.param("hdfs://nn:8020/p/", "hdfs://nn:8020", "/p", id="hdfs-trailing-slash"),
    pytest.param("hdfs://nn/p", "hdfs://nn", "/p", id="hdfs-no-port"),
    pytest.param("hdfs://nn:8020", "hdfs://nn:8020", "/", id="hdfs-root"),
    pytest.param("hdfs://user@nn:8020/p", "hdfs://nn:8020", "/p", id="hdfs-userinfo-dropped"),
    pytest.param("dbfs:/p", "dbfs", "/p", id="dbfs"),
    pytest.param("dbfs:///p/", "dbfs", "/p", id="dbfs-triple-slash"),
    pytest.param("viewfs://cluster/a/b", "viewfs://cluster", "/a/b", id="unknown-scheme-authority"),
    pytest.param("myfs:/a/b", "myfs", "/a/b", id="unknown-scheme-no-authority"),
    # partitions and dates are trimmed to the dataset root
    pytest.param("/data/events/dt=2026-01-01", "file", "/data/events", id="trim-key-value"),
    pytest.param("/data/events/dt=2026-01-01/hour=3", "file", "/data/events", id="trim-two-key-values"),
    pytest.param("/data/daily/20251030", "file", "/data/daily", id="trim-yyyymmdd"),
    pytest.param("/data/daily/2025-10-30", "file", "/data/daily", id="trim-iso-date"),
    pytest.param("/data/daily/2025/10/30", "file", "/data/daily", id="trim-y-m-d-dirs"),
    pytest.param("/data/monthly/2025/10", "file", "/data/monthly", id="trim-y-m-dirs"),
    pytest.param("/data/monthly/202510", "file", "/data/monthly", id="trim-yyyymm"),
    pytest.param("/data/monthly/2025-10", "file", "/data/monthly", id="trim-yyyy-mm"),
    pytest.param("/data/daily/20250722T0901Z", "file", "/data/daily", id="trim-timestamp"),
    pytest.param("/20251030", "file", "/20251030", id="last-segment-never-trimmed"),
    pytest.param("/dt=2025-01-01", "file", "/dt=2025-01-01", id="last-kv-segment-never-trimmed"),
    pytest.param("/a/b=1/c", "file", "/a/b=1/c", id="only-trailing-segments-trimmed"),
    pytest.param("/data/events/dt=2026-01-01/", "file", "/data/events", id="trim-after-trailing-slash"),
    pytest.param("/data/v=1=2", "file", "/data/v=1=2", id="two-equals-not-partition"),
    pytest.param("/data/20251345", "file", "/data/20251345", id="invalid-date-kept"),
    pytest.param("/data/2025", "file", "/data/2025", id="bare-year-kept"),
    pytest.param("s3://b/events/dt=2026-01-01/h=1", "s3://b", "events", id="trim-s3-key"),
    pytest.param("s3://b/dt=2026-01-01", "s3://b", "dt=2026-01-01", id="s3-single-segment-kept"),
    pytest.param("gs://b/t/2025/10/30/", "gs://b", "t", id="trim-gcs-date-dirs"),
    pytest.param("hdfs://nn:8020/w/t/dt=1", "hdfs://nn:8020", "/w/t", id="trim-hdfs"),
    # globs: the directory above the first glob segment
    pytest.param("/data/in/*.csv", "file", "/data/in", id="glob-star"),
    pytest.param("/data/in/part-?.csv", "file", "/data/in", id="glob-question"),
    pytest.param("/data/in/[ab].csv", "file", "/data/in", id="glob-brackets"),
    pytest.param("/data/{a,b}/x.csv", "file", "/data", id="glob-braces"),
    pytest.param("/data/in/*/x/*.csv", "file", "/data/in", id="glob-first-wins"),
    pytest.param("/*.csv", "file", "/", id="glob-at-root"),
    pytest.param("file:/data/in/*.csv", "file", "/data/in", id="glob-file-uri"),
    pytest.param("s3://b/logs/2025/*/x.json", "s3://b", "logs", id="glob-in-date-position"),
    pytest.param("s3://b/*.json", "s3://b", "/", id="glob-at-bucket-root"),
    pytest.param("/data/events/dt=*/x.parquet", "file", "/data/events", id="glob-in-partition"),
    pytest.param("hdfs://nn:8020/in/*", "hdfs://nn:8020", "/in", id="glob-hdfs"),
]


@pytest.mark.parametrize(("uri", "namespace", "name"), LOCATIONS)
def test_name_location(uri: str, namespace: str, name: str) -> None:
    assert name_location(uri, cwd=CWD) == DatasetName(namespace, name)


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        pytest.param("/data/events/dt=2026-01-01", ("file", "/data/events/dt=2026-01-01"), id="kv"),
        pytest.param("s3://b/d/20251030/", ("s3://b", "d/20251030"), id="date"),
        pytest.param("/data/in/*.csv", ("file", "/data/in"), id="glob-still-cut"),
    ],
)
def test_name_location_without_trimming(uri: str, expected: tuple[str, str]) -> None:
    assert name_location(uri, trim=False) == DatasetName(*expected)


def test_relative_path_uses_process_cwd(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(str(tmp_path))
    assert name_location("out/x") == DatasetName("file", f"{tmp_path}/out/x")


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("", id="empty"),
        pytest.param("   ", id="whitespace"),
        pytest.param(None, id="none"),
        pytest.param(42, id="int"),
        pytest.param(b"/tmp/x", id="bytes"),
        pytest.param("s3://", id="s3-no-bucket"),
        pytest.param("s3:///k", id="s3-empty-bucket"),
        pytest.param("s3://b*/k", id="glob-in-bucket"),
        pytest.param("file:", id="file-no-path"),
    ],
)
def test_name_location_invalid(value: object) -> None:
    with pytest.raises(ValueError, match=r"location|bucket|glob|path"):
        name_location(value)  # type: ignore[arg-type]


def test_name_location_never_leaks_credentials() -> None:
    result = name_location("s3a://AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMIK7MDENG@bucket/key")
    assert "wJalrXUtnFEMIK7MDENG" not in str(result)
    assert "AKIAIOSFODNN7EXAMPLE" not in str(result)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("/a/b/dt=1/h=2", "/a/b", id="repeated"),
        pytest.param("t/2025/10/30", "t", id="relative-key"),
        pytest.param("/20251030", "/20251030", id="single"),
        pytest.param("dt=1", "dt=1", id="single-kv"),
        pytest.param("/", "/", id="root"),
        pytest.param("", "", id="empty"),
        pytest.param("/a/b/", "/a/b", id="trailing-slash"),
    ],
)
def test_trim_partitions(name: str, expected: str) -> None:
    assert trim_partitions(name) == expected


@pytest.mark.parametrize(
    ("dataset", "expected"),
    [
        pytest.param(("file", "/a/b"), "file:/a/b", id="file"),
        pytest.param(("file", "/"), "file:/", id="file-root"),
        pytest.param(("s3://b", "k/x"), "s3://b/k/x", id="s3"),
        pytest.param(("s3://b", "/"), "s3://b", id="s3-root"),
        pytest.param(("hdfs://nn:8020", "/w"), "hdfs://nn:8020/w", id="hdfs"),
        pytest.param(("dbfs", "/w"), "dbfs:/w", id="dbfs"),
    ],
)
def test_to_location(dataset: tuple[str, str], expected: str) -> None:
    assert to_location(DatasetName(*dataset)) == expected


# (url, table, namespace, name)
JDBC = [
    pytest.param(
        "jdbc:postgresql://host:5432/db", "schema.t", "postgres://host:5432", "db.schema.t", id="postgres"
    ),
    pytest.param(
        "jdbc:postgresql://host/db", "schema.t", "postgres://host:5432", "db.schema.t", id="pg-port"
    ),
    pytest.param("jdbc:postgresql://host:5433/db", "t", "postgres://host:5433", "db.t", id="pg-no-schema"),
    pytest.param("jdbc:postgresql://host", "s.t", "postgres://host:5432", "s.t", id="pg-no-database"),
    pytest.param(
        "JDBC:POSTGRESQL://HOST.COM/MYDB", "S.T", "postgres://host.com:5432", "MYDB.S.T", id="pg-case"
    ),
    pytest.param(
        "jdbc:postgresql://u:p@host/db?user=u&password=p&ssl=true",
        "s.t",
        "postgres://host:5432",
        "db.s.t",
        id="pg-credentials",
    ),
    pytest.param("jdbc:postgresql://[::1]/db", "s.t", "postgres://[::1]:5432", "db.s.t", id="pg-ipv6"),
    pytest.param(
        "jdbc:postgresql://h1,h2:5433/db", "s.t", "postgres://h1:5432,h2:5433", "db.s.t", id="pg-multi-host"
    ),
    pytest.param("jdbc:mysql://h/db", "t", "mysql://h:3306", "db.t", id="mysql"),
    pytest.param("jdbc:mysql://u:p@h:3307/db", "t", "mysql://h:3307", "db.t", id="mysql-credentials"),
    pytest.param("jdbc:mysql:loadbalance://h1,h2/db", "t", "mysql://h1:3306,h2:3306", "db.t", id="mysql-lb"),
    pytest.param(
        "jdbc:mysql://u:p@h1:1,u:p@h2:2/db", "t", "mysql://h1:1,h2:2", "db.t", id="mysql-multi-credentials"
    ),
    pytest.param(
        "jdbc:sqlserver://h:1433;databaseName=db", "dbo.t", "sqlserver://h:1433", "db.dbo.t", id="sqlserver"
    ),
    pytest.param("jdbc:sqlserver://h;database=db", "s.t", "sqlserver://h", "db.s.t", id="sqlserver-no-port"),
    pytest.param(
        "jdbc:sqlserver://h\\inst;databaseName=db",
        "s.t",
        "sqlserver://h/inst",
        "db.s.t",
        id="sqlserver-instance",
    ),
    pytest.param(
        "jdbc:sqlserver://h;user=u;password=p;databaseName=db",
        "s.t",
        "sqlserver://h",
        "db.s.t",
        id="sqlserver-credentials",
    ),
    pytest.param(
        "jdbc:sqlserver://;serverName=srv;portNumber=1444",
        "s.t",
        "sqlserver://srv:1444",
        "s.t",
        id="sqlserver-servername",
    ),
    pytest.param(
        "jdbc:oracle:thin:@//h:1521/service", "s.t", "oracle://h:1521", "service.s.t", id="oracle-service"
    ),
    pytest.param("jdbc:oracle:thin:@h:1521:sid", "s.t", "oracle://h:1521", "sid.s.t", id="oracle-sid"),
    pytest.param("jdbc:oracle:thin:@h", "s.t", "oracle://h:1521", "s.t", id="oracle-default-port"),
    pytest.param(
        "jdbc:oracle:thin:scott/tiger@//h:1522/svc",
        "s.t",
        "oracle://h:1522",
        "svc.s.t",
        id="oracle-credentials",
    ),
    pytest.param(
        "jdbc:oracle:thin:@ldap://oid:5000/mydb1,cn=OracleContext,dc=myco,dc=com",
        "s.t",
        "oracle://oid:5000",
        "mydb1.s.t",
        id="oracle-ldap",
    ),
    pytest.param(
        "jdbc:teradata://h/DATABASE=db,DBS_PORT=1026", "t", "teradata://h:1026", "db.t", id="teradata"
    ),
    pytest.param("jdbc:teradata://h", "db.t", "teradata://h:1025", "db.t", id="teradata-default-port"),
    pytest.param("jdbc:db2://h:50000/db", "s.t", "db2://h:50000", "db.s.t", id="db2"),
    pytest.param("jdbc:trino://h:8080/cat", "s.t", "trino://h:8080", "cat.s.t", id="trino"),
    pytest.param("jdbc:trino://h/cat", "s.t", "trino://h:443", "cat.s.t", id="trino-default-port"),
    pytest.param(
        "jdbc:redshift://c.r.redshift.amazonaws.com:5439/dev",
        "s.t",
        "redshift://c.r.redshift.amazonaws.com:5439",
        "dev.s.t",
        id="redshift-generic",
    ),
    pytest.param("jdbc:unknown://h:1/db", "s.t", "unknown://h:1", "db.s.t", id="unknown-generic"),
    pytest.param("jdbc:sqlite:/tmp/x.db", "t", "sqlite:/tmp/x.db", "t", id="sqlite-no-host"),
    pytest.param("jdbc:h2:mem:test;user=sa;password=pw", "t", "h2:mem:test", "t", id="h2-no-host"),
    pytest.param(
        "jdbc:oracle:thin:scott/tiger@(DESCRIPTION=(ADDRESS=(HOST=h)(PORT=1)))",
        "s.t",
        "oracle:thin:@(DESCRIPTION=(ADDRESS=(HOST=h)(PORT=1)))",
        "s.t",
        id="oracle-tns-unparsed",
    ),
    pytest.param(
        "jdbc:postgresql://h/db",
        '"My Schema"."T"',
        "postgres://h:5432",
        'db."My Schema"."T"',
        id="quoted-identifiers-verbatim",
    ),
]


@pytest.mark.parametrize(("url", "table", "namespace", "name"), JDBC)
def test_name_jdbc(url: str, table: str, namespace: str, name: str) -> None:
    assert name_jdbc(url, table) == DatasetName(namespace, name)


@pytest.mark.parametrize(
    "url",
    [
        "jdbc:postgresql://alice:s3cr3tPW@h/db?password=s3cr3tPW",
        "jdbc:mysql://alice:s3cr3tPW@h/db",
        "jdbc:sqlserver://h;user=alice;password=s3cr3tPW;databaseName=db",
        "jdbc:oracle:thin:alice/s3cr3tPW@h:1521/svc",
        "jdbc:oracle:thin:alice/s3cr3tPW@(DESCRIPTION=(HOST=h))",
        "jdbc:h2:mem:x;PASSWORD=s3cr3tPW",
        "jdbc:sqlite:/x.db?password=s3cr3tPW",
        "jdbc:teradata://h/PASSWORD=s3cr3tPW,DATABASE=db",
        "jdbc:unknown://alice:s3cr3tPW@h1:5432,alice:s3cr3tPW@h2:5432",
    ],
)
def test_name_jdbc_never_leaks_credentials(url: str) -> None:
    result = name_jdbc(url, "s.t")
    assert "s3cr3tPW" not in result.namespace + result.name
    assert "alice" not in result.namespace + result.name


def test_name_jdbc_sqlserver_properties() -> None:
    got = name_jdbc("jdbc:sqlserver://h", "s.t", properties={"databaseName": "db", "portNumber": "1433"})
    assert got == DatasetName("sqlserver://h:1433", "db.s.t")


@pytest.mark.parametrize(
    ("url", "table"),
    [
        pytest.param("jdbc:postgresql://h/db", "(select * from t) q", id="subquery"),
        pytest.param(
            "jdbc:postgresql://h/db", "  (SELECT a FROM s.t WHERE x = 1) AS alias", id="subquery-spaces"
        ),
        pytest.param("jdbc:postgresql://h/db", "select * from t", id="bare-select"),
        pytest.param("jdbc:postgresql://h/db", "", id="empty-table"),
        pytest.param("jdbc:postgresql://h/db", "  ", id="blank-table"),
        pytest.param("", "t", id="empty-url"),
        pytest.param("postgresql://h/db", "t", id="not-jdbc"),
    ],
)
def test_name_jdbc_invalid(url: str, table: str) -> None:
    with pytest.raises(ValueError, match=r"subquery|empty|jdbc|JDBC"):
        name_jdbc(url, table)


def test_name_jdbc_query_names_every_table() -> None:
    got = name_jdbc_query("jdbc:postgresql://h/db", "(select a from s.t1 join t2 on t1.id = t2.id) q")
    assert sorted(got) == [
        DatasetName("postgres://h:5432", "db.s.t1"),
        DatasetName("postgres://h:5432", "db.t2"),
    ]


def test_name_jdbc_query_invalid_sql() -> None:
    with pytest.raises(ValueError, match="query"):
        name_jdbc_query("jdbc:postgresql://h/db", "(this is not sql at all (((( ) q")


# (database, table, kwargs, expected or None)
SYMLINKS = [
    pytest.param(
        "db",
        "t",
        {"location": "file:/data/wh/db.db/t", "warehouse": "/data/wh"},
        ("file:/data/wh", "db.t"),
        id="local-bare-warehouse",
    ),
    pytest.param(
        "db",
        "t",
        {"location": "file:/data/wh/db.db/t", "warehouse": "file:/data/wh/"},
        ("file:/data/wh", "db.t"),
        id="local-qualified-warehouse-slash",
    ),
    pytest.param(
        "db",
        "t",
        {"location": "/data/wh/db.db/t", "warehouse": "file:///data/wh"},
        ("file:/data/wh", "db.t"),
        id="local-bare-location",
    ),
    pytest.param(
        "default",
        "t",
        {"location": "file:/data/wh/t", "warehouse": "file:/data/wh"},
        ("file:/data/wh", "default.t"),
        id="default-database",
    ),
    pytest.param(
        "db", "t", {"location": "file:/other/t", "warehouse": "file:/data/wh"}, None, id="custom-location"
    ),
    pytest.param(
        "db",
        "t",
        {"location": "file:/data/wh2/t", "warehouse": "file:/data/wh"},
        None,
        id="sibling-prefix-not-under",
    ),
    pytest.param("db", "t", {"location": "file:/data/wh/db.db/t"}, None, id="no-warehouse"),
    pytest.param("db", "t", {"location": None, "warehouse": "file:/data/wh"}, None, id="no-location"),
    pytest.param(
        "db",
        "t",
        {"location": "s3a://b/wh/db.db/t", "warehouse": "s3://b/wh"},
        ("s3://b/wh", "db.t"),
        id="s3",
    ),
    pytest.param(
        "db",
        "t",
        {"location": "hdfs://nn:8020/wh/db.db/t", "warehouse": "hdfs://nn:8020/wh"},
        ("hdfs://nn:8020/wh", "db.t"),
        id="hdfs",
    ),
    pytest.param(
        "db",
        "t",
        {"location": "dbfs:/wh/db.db/t", "warehouse": "dbfs:/wh"},
        ("dbfs:/wh", "db.t"),
        id="dbfs",
    ),
    pytest.param(
        "db",
        "t",
        {"location": "hdfs://other:8020/wh/t", "warehouse": "hdfs://nn:8020/wh"},
        None,
        id="other-namenode",
    ),
    pytest.param(
        "db",
        "t",
        {"location": "file:/data/wh/db.db/t", "metastore_uris": "thrift://meta:9083,thrift://b:9083"},
        ("hive://meta:9083", "db.t"),
        id="metastore-first-uri",
    ),
    pytest.param(
        "db",
        "t",
        {
            "location": "file:/elsewhere/t",
            "metastore_uris": "thrift://meta:9083",
            "warehouse": "file:/data/wh",
        },
        ("hive://meta:9083", "db.t"),
        id="metastore-wins",
    ),
    pytest.param(
        "db",
        "t",
        {"location": None, "metastore_uris": " thrift://10.1.0.1:9083 "},
        ("hive://10.1.0.1:9083", "db.t"),
        id="metastore-no-location",
    ),
    pytest.param(
        "",
        "t",
        {"location": "file:/data/wh/t", "warehouse": "file:/data/wh"},
        ("file:/data/wh", "t"),
        id="no-database",
    ),
]


@pytest.mark.parametrize(("database", "table", "kwargs", "expected"), SYMLINKS)
def test_name_table_symlink(
    database: str, table: str, kwargs: dict[str, str | None], expected: tuple | None
) -> None:
    got = name_table_symlink(database, table, **kwargs)  # type: ignore[arg-type]
    assert got == (DatasetName(*expected) if expected else None)


# (value, kwargs, namespace, name)
PARSED = [
    pytest.param("/data/x", {}, "file", "/data/x", id="absolute-path"),
    pytest.param("  /data/x  ", {}, "file", "/data/x", id="stripped"),
    pytest.param("/data/events/dt=2025-01-01", {}, "file", "/data/events", id="path-trimmed"),
    pytest.param(
        "/data/events/dt=2025-01-01", {"trim": False}, "file", "/data/events/dt=2025-01-01", id="no-trim"
    ),
    pytest.param("file:///data/x", {}, "file", "/data/x", id="file-uri"),
    pytest.param("s3a://b/k/", {}, "s3://b", "k", id="s3"),
    pytest.param("gs://b/k", {}, "gs://b", "k", id="gcs"),
    pytest.param("hdfs://nn:8020/p", {}, "hdfs://nn:8020", "/p", id="hdfs"),
    pytest.param("postgres://h:5432/db.s.t", {}, "postgres://h:5432", "db.s.t", id="ol-postgres"),
    pytest.param("postgresql://H/db.s.t", {}, "postgres://h:5432", "db.s.t", id="ol-postgresql-default-port"),
    pytest.param("mysql://h:3306/db.t", {}, "mysql://h:3306", "db.t", id="ol-mysql"),
    pytest.param("hive://meta:9083/db.t", {}, "hive://meta:9083", "db.t", id="ol-hive"),
    pytest.param("sqlserver://h:1433/db.dbo.t", {}, "sqlserver://h:1433", "db.dbo.t", id="ol-sqlserver"),
    pytest.param("kafka://broker:9092/topic", {}, "kafka://broker:9092", "topic", id="ol-kafka"),
    pytest.param("bigquery:p.d.t", {}, "bigquery", "p.d.t", id="bigquery-colon"),
    pytest.param("bigquery://p.d.t", {}, "bigquery", "p.d.t", id="bigquery-slashes"),
    pytest.param(
        "db.s.t", {"namespace": "postgres://h:5432"}, "postgres://h:5432", "db.s.t", id="with-namespace"
    ),
    pytest.param("rel/path", {"namespace": "file"}, "file", "rel/path", id="namespace-verbatim"),
    pytest.param(
        "jdbc:postgresql://h/db", {"table": "s.t"}, "postgres://h:5432", "db.s.t", id="jdbc-with-table"
    ),
]


@pytest.mark.parametrize(("value", "kwargs", "namespace", "name"), PARSED)
def test_parse_dataset(value: str, kwargs: dict[str, object], namespace: str, name: str) -> None:
    assert parse_dataset(value, **kwargs) == DatasetName(namespace, name)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "kwargs", "message"),
    [
        pytest.param("", {}, "empty", id="empty"),
        pytest.param("   ", {}, "empty", id="whitespace"),
        pytest.param(None, {}, "string", id="none"),
        pytest.param(3.14, {}, "string", id="float"),
        pytest.param("relative/path", {}, "absolute path", id="relative-without-namespace"),
        pytest.param("db.table", {}, "namespace", id="table-without-namespace"),
        pytest.param("jdbc:postgresql://h/db", {}, "table", id="jdbc-without-table"),
        pytest.param("jdbc:postgresql://h/db", {"namespace": "x"}, "JDBC", id="jdbc-with-namespace"),
        pytest.param("t", {"namespace": "  "}, "namespace", id="blank-namespace"),
        pytest.param("postgres://h:5432", {}, "name", id="db-uri-without-table"),
        pytest.param("postgres:db.t", {}, "host", id="db-uri-without-host"),
        pytest.param("bigquery:", {}, "table", id="bigquery-empty"),
    ],
)
def test_parse_dataset_invalid(value: object, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_dataset(value, **kwargs)  # type: ignore[arg-type]
    if isinstance(value, str) and value.strip():
        assert repr(value) in str(info.value)
