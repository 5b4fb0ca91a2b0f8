"""Secrets never survive redaction; redaction never raises."""

from __future__ import annotations

import hypothesis
import hypothesis.strategies as st
import pytest

from lineage_operators.redaction import REDACTED, is_secret_key, redact_mapping, redact_text, redact_url

SECRET = "Hunter2xSECRETx9"

SECRET_KEYS = [
    "password",
    "PASSWORD",
    "db.password",
    "spark.hadoop.javax.jdo.option.ConnectionPassword",
    "passwd",
    "pwd",
    "PWD",
    "db_pwd",
    "spark.hadoop.fs.s3a.secret.key",
    "fs.s3a.access.key",
    "spark.hadoop.fs.s3a.session.token",
    "fs.azure.account.key.acct.blob.core.windows.net",
    "fs.azure.account.key.acct.dfs.core.windows.net",
    "spark.hadoop.fs.azure.account.oauth2.client.secret",
    "fs.azure.sas.container.acct.blob.core.windows.net",
    "spark.openlineage.transport.auth.apiKey",
    "spark.openlineage.transport.auth.type",
    "apikey",
    "api_key",
    "api-key",
    "API.KEY",
    "x-api-key",
    "token",
    "accessToken",
    "access_token",
    "sessiontoken",
    "spark.kubernetes.authenticate.oauthToken",
    "credential",
    "credentials",
    "google.cloud.auth.service.account.json.credentials",
    "private.key",
    "privateKey",
    "private_key_id",
    "sslkey",
    "sslpassword",
    "secret",
    "client_secret",
    "spark.authenticate.secret",
    "spark.hadoop.fs.s3a.server-side-encryption.key",
    "auth",
    "Authorization",
    "AccountKey",
    "storage.connection.string",
    "keystore.passphrase",
]

NOT_SECRET_KEYS = [
    "user",
    "username",
    "USER",
    "spark.sql.shuffle.partitions",
    "spark.app.name",
    "tokenizer",
    "max_tokens",
    "spark.authenticate",
    "spark.sql.catalog.x.uri",
    "spark.sql.warehouse.dir",
    "hive.metastore.uris",
    "hive.metastore.kerberos.principal",
    "keytab",
    "spark.sql.sources.partitionColumnTypeInference.enabled",
    "url",
    "dbtable",
    "driver",
    "key",
    "partition.key",
    "spark.openlineage.transport.url",
    "",
]


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_secret_keys(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize("key", NOT_SECRET_KEYS)
def test_not_secret_keys(key: str) -> None:
    assert not is_secret_key(key)


@pytest.mark.parametrize("key", [None, 1, b"password", ("password",)])
def test_non_string_keys_are_not_secret(key: object) -> None:
    assert is_secret_key(key) is False  # type: ignore[arg-type]


# (url, expected) -- the secret never survives, everything else does
URLS = [
    pytest.param(f"postgres://alice:{SECRET}@h:5432/db", "postgres://h:5432/db", id="userinfo"),
    pytest.param("https://alice@h/x", "https://h/x", id="user-only"),
    pytest.param(f"jdbc:postgresql://alice:{SECRET}@h/db", "jdbc:postgresql://h/db", id="jdbc-userinfo"),
    pytest.param(
        f"jdbc:postgresql://h/db?user=alice&password={SECRET}",
        "jdbc:postgresql://h/db?user=alice",
        id="jdbc-query",
    ),
    pytest.param(
        f"jdbc:postgresql://h/db?password={SECRET}&user=alice&sslkey=/k.pem&ssl=true",
        "jdbc:postgresql://h/db?user=alice&ssl=true",
        id="jdbc-query-first-and-sslkey",
    ),
    pytest.param(
        f"jdbc:sqlserver://h;user=alice;password={SECRET}", "jdbc:sqlserver://h;user=alice", id="sqlserver"
    ),
    pytest.param(
        f"jdbc:sqlserver://h;password={{{SECRET};x}};databaseName=db",
        "jdbc:sqlserver://h;databaseName=db",
        id="sqlserver-braced",
    ),
    pytest.param(f"jdbc:oracle:thin:alice/{SECRET}@h:1521/svc", "jdbc:oracle:thin:@h:1521/svc", id="oracle"),
    pytest.param(
        f"jdbc:oracle:thin:alice/{SECRET}@//h:1521/svc", "jdbc:oracle:thin:@//h:1521/svc", id="oracle-slashes"
    ),
    pytest.param(f"jdbc:mysql://alice:{SECRET}@h/db", "jdbc:mysql://h/db", id="mysql"),
    pytest.param(
        f"jdbc:mysql://alice:{SECRET}@h1:1,bob:{SECRET}@h2:2/db",
        "jdbc:mysql://h1:1,h2:2/db",
        id="mysql-multi-host",
    ),
    pytest.param(
        f"jdbc:mysql://address=(host=h)(port=1)(user=alice)(password={SECRET}),address=(host=h2)",
        "jdbc:mysql://address=(host=h)(port=1)(user=alice),address=(host=h2)",
        id="mysql-address",
    ),
    pytest.param(
        f"jdbc:mysql://(host=h,port=1,user=alice,password={SECRET})",
        "jdbc:mysql://(host=h,port=1,user=alice)",
        id="mysql-key-value",
    ),
    pytest.param(f"postgres://alice:pa@{SECRET}@h/db", "postgres://h/db", id="at-in-password"),
    pytest.param(
        f"jdbc:postgresql://alice:pa/{SECRET}@h/db", "jdbc:postgresql://h/db", id="slash-in-password"
    ),
    pytest.param(
        f"wasbs://c:{SECRET}@acct.blob.core.windows.net/p",
        "wasbs://acct.blob.core.windows.net/p",
        id="wasbs-key",
    ),
    pytest.param(f"https://h/x?sig={SECRET}&sv=2020", "https://h/x?sv=2020", id="sas-signature"),
    pytest.param(f"http://h/?token={SECRET}", "http://h/", id="only-param-dropped"),
    pytest.param(f"jdbc:h2:mem:x;user=sa;password={SECRET}", "jdbc:h2:mem:x;user=sa", id="h2"),
    pytest.param(
        "abfss://c@acct.dfs.core.windows.net/p",
        "abfss://c@acct.dfs.core.windows.net/p",
        id="abfss-container-kept",
    ),
    pytest.param("postgres://h:5432/db?mail=a@b", "postgres://h:5432/db?mail=a@b", id="at-in-query-kept"),
    pytest.param(
        "jdbc:postgresql://h1,h2/db?ssl=true", "jdbc:postgresql://h1,h2/db?ssl=true", id="clean-unchanged"
    ),
    pytest.param("s3://bucket/key", "s3://bucket/key", id="no-credentials"),
    pytest.param("not a url", "not a url", id="not-a-url"),
    pytest.param("", "", id="empty"),
]


@pytest.mark.parametrize(("url", "expected"), URLS)
def test_redact_url(url: str, expected: str) -> None:
    result = redact_url(url)
    assert result == expected
    assert SECRET not in result


@pytest.mark.parametrize(
    "value",
    [
        None,
        42,
        b"\xff\xfe",
        "://@@@",
        "jdbc:",
        "jdbc:oracle:thin:/@",
        "?&;=",
        "((((",
        "\x00\n\t",
        "a" * 10000,
    ],
    ids=[
        "none",
        "int",
        "bytes",
        "at-signs",
        "jdbc-only",
        "oracle-empty",
        "separators",
        "parens",
        "control",
        "long",
    ],
)
def test_redact_url_garbage_never_raises(value: object) -> None:
    assert isinstance(redact_url(value), str)  # type: ignore[arg-type]
    assert isinstance(redact_text(value), str)  # type: ignore[arg-type]


TEXTS = [
    pytest.param(
        f"could not connect to postgres://alice:{SECRET}@db:5432/x: password authentication failed",
        "could not connect to postgres://db:5432/x: password authentication failed",
        id="url-in-message",
    ),
    pytest.param(f"password={SECRET}&user=alice", "password=***&user=alice", id="kv"),
    pytest.param(f"PASSWORD = {SECRET}", "PASSWORD = ***", id="kv-spaces"),
    pytest.param(
        f'conf {{"password": "{SECRET}", "user": "alice"}}',
        'conf {"password": "***", "user": "alice"}',
        id="json",
    ),
    pytest.param(f"{{'secret': '{SECRET}'}}", "{'secret': '***'}", id="python-repr"),
    pytest.param(f"apiKey => '{SECRET}'", "apiKey => '***'", id="arrow"),
    pytest.param(
        f"ALTER USER alice WITH PASSWORD '{SECRET}'",
        "ALTER USER alice WITH PASSWORD '***'",
        id="sql-password",
    ),
    pytest.param(
        f"CREATE USER alice IDENTIFIED BY {SECRET};",
        "CREATE USER alice IDENTIFIED BY '***';",
        id="sql-identified",
    ),
    pytest.param(f"Authorization: Bearer {SECRET}", "Authorization: Bearer ***", id="bearer-header"),
    pytest.param(f"-H 'Authorization: Basic {SECRET}'", "-H 'Authorization: Basic ***'", id="basic-header"),
    pytest.param(f"sent bearer {SECRET} to api", "sent bearer *** to api", id="bare-bearer"),
    pytest.param(
        f"spark.hadoop.fs.s3a.secret.key={SECRET}/AbC+",
        "spark.hadoop.fs.s3a.secret.key=***",
        id="aws-secret-conf",
    ),
    pytest.param("using key AKIAIOSFODNN7EXAMPLE now", "using key *** now", id="aws-key-id"),
    pytest.param(
        f"--conf spark.openlineage.transport.auth.apiKey={SECRET} --conf spark.app.name=x",
        "--conf spark.openlineage.transport.auth.apiKey=*** --conf spark.app.name=x",
        id="spark-submit-args",
    ),
    pytest.param(f"jdbc:oracle:thin:alice/{SECRET}@h:1521/s", "jdbc:oracle:thin:@h:1521/s", id="oracle"),
    pytest.param(
        f"Traceback ...\n  url='jdbc:postgresql://h/db?user=alice&password={SECRET}'\nError",
        "Traceback ...\n  url='jdbc:postgresql://h/db?user=alice&password=***'\nError",
        id="stack-trace",
    ),
    pytest.param(
        f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={SECRET};EndpointSuffix=core.windows.net",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=***;EndpointSuffix=core.windows.net",
        id="azure-connection-string",
    ),
    pytest.param("tokenizer=bert user=alice", "tokenizer=bert user=alice", id="no-false-positive"),
    pytest.param(
        "abfss://c@acct.dfs.core.windows.net/p", "abfss://c@acct.dfs.core.windows.net/p", id="abfss-kept"
    ),
    pytest.param("SELECT * FROM t WHERE a = 1", "SELECT * FROM t WHERE a = 1", id="plain-sql"),
]


@pytest.mark.parametrize(("text", "expected"), TEXTS)
def test_redact_text(text: str, expected: str) -> None:
    result = redact_text(text)
    assert result == expected
    assert SECRET not in result


def test_redact_mapping() -> None:
    values = {
        "spark.hadoop.fs.s3a.secret.key": SECRET,
        "spark.hadoop.fs.s3a.access.key": "AKIAIOSFODNN7EXAMPLE",
        "url": f"jdbc:postgresql://h/db?user=alice&password={SECRET}",
        "uri": f"postgres://alice:{SECRET}@h/db",
        "message": f"failed: password={SECRET}",
        "nested": {"password": SECRET, "port": 5432, "hosts": [f"mysql://u:{SECRET}@h/db", "plain"]},
        "tuple": (f"token={SECRET}",),
        "token": None,
        "user": "alice",
        "count": 3,
    }
    original = dict(values)
    result = redact_mapping(values)
    assert SECRET not in repr(result)
    assert "AKIAIOSFODNN7EXAMPLE" not in repr(result)
    assert result["spark.hadoop.fs.s3a.secret.key"] == REDACTED
    assert result["url"] == "jdbc:postgresql://h/db?user=alice"
    assert result["uri"] == "postgres://h/db"
    assert result["message"] == "failed: password=***"
    assert result["nested"] == {"password": REDACTED, "port": 5432, "hosts": ["mysql://h/db", "plain"]}
    assert result["tuple"] == ("token=***",)
    assert result["token"] is None
    assert result["user"] == "alice"
    assert result["count"] == 3
    assert values == original  # not modified


def test_redact_mapping_secret_key_with_mapping_value_is_recursed() -> None:
    result = redact_mapping({"credentials": {"user": "alice", "password": SECRET}})
    assert result == {"credentials": {"user": "alice", "password": REDACTED}}


def test_redact_mapping_non_string_keys() -> None:
    assert redact_mapping({1: "x", None: SECRET})[1] == "x"  # type: ignore[dict-item]


_PASSWORDS = st.text(
    alphabet="abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!$*+-._~", min_size=8, max_size=30
)


@hypothesis.settings(database=None)
@hypothesis.given(password=_PASSWORDS, user=st.from_regex(r"[a-z]{3,10}", fullmatch=True))
@hypothesis.example(password="p@ss:w/rd?x", user="bob")
@hypothesis.example(password="NEGoTiATE", user="bob")
def test_property_userinfo_password_never_survives(password: str, user: str) -> None:
    for template in (
        "postgres://{u}:{p}@db.example.com:5432/x",
        "jdbc:mysql://{u}:{p}@db.example.com/x",
        "jdbc:oracle:thin:{u}/{p}@db.example.com:1521/svc",
    ):
        url = template.format(u=user, p=password)
        assert password not in redact_url(url)
        assert password not in redact_text(f"error connecting to {url} (timeout)")


@hypothesis.settings(database=None)
@hypothesis.given(password=_PASSWORDS, key=st.sampled_from(["password", "secret", "token", "apiKey", "pwd"]))
def test_property_secret_param_never_survives(password: str, key: str) -> None:
    # A password that spells a key or a literal of the URL ("password", "databaseName") is
    # trivially "present"; it says nothing about redaction.
    hypothesis.assume(password not in f"jdbc:postgresql://h/db?user=u&{key}=&ssl=true;databaseName=d")
    for url in (
        f"jdbc:postgresql://h/db?user=u&{key}={password}&ssl=true",
        f"jdbc:sqlserver://h;user=u;{key}={password};databaseName=d",
    ):
        assert password not in redact_url(url)
        assert password not in redact_text(url)
    assert password not in repr(redact_mapping({f"x.{key}": password}))


@hypothesis.settings(max_examples=300, database=None)
@hypothesis.given(text=st.text(max_size=300))
def test_property_never_raises(text: str) -> None:
    assert isinstance(redact_url(text), str)
    assert isinstance(redact_text(text), str)
    assert isinstance(is_secret_key(text), bool)
    assert isinstance(redact_mapping({text: text}), dict)


# ------------------------------------------------------------------------------------------------
# issue 14: Spark Connect URLs, values for Airflow's masker, Spark's own redaction settings
# ------------------------------------------------------------------------------------------------

CONNECT_URLS = [
    f"sc://h:15002/;token={SECRET};user_id=alice",
    f"sc://h:15002/;user_id=alice;token={SECRET};use_ssl=true",
    f"sc://bob:{SECRET}@h:15002/;user_id=alice",
]


@pytest.mark.parametrize("url", CONNECT_URLS)
def test_connect_urls_lose_token_user_id_and_userinfo(url):
    for redacted in (
        redact_url(url),
        redact_text(f"[CANNOT_CONFIGURE] Spark Connect [{url}]."),
        redact_text(url),
    ):
        assert SECRET not in redacted
        assert "alice" not in redacted
        assert "sc://h:15002" in redacted


def test_user_id_outside_connect_urls_is_kept():
    assert redact_text("user_id=alice") == "user_id=alice"


@pytest.mark.parametrize(
    ("value", "secrets"),
    [
        (f"jdbc:postgresql://db/x?user=u&password={SECRET}", [SECRET]),
        (f"jdbc:mysql://u:{SECRET}@db:3306/x", [SECRET]),
        (f"jdbc:oracle:thin:scott/{SECRET}@db:1521/x", [SECRET]),
        (f"sc://h:1/;token={SECRET};user_id=alice7", [SECRET, "alice7"]),
        ({"fs.azure.account.key.a.dfs.core.windows.net": SECRET, "x": "/plain/path"}, [SECRET]),
        ([{"spark.hadoop.fs.s3a.secret.key": SECRET}, "s3a://bucket/k"], [SECRET]),
        ({"a": 1, "b": None, "c": "/data/in"}, []),
    ],
)
def test_secret_values_are_what_redaction_hides(value, secrets):
    from lineage_operators.redaction import secret_values

    assert secret_values(value) == secrets


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_sparks_key_redaction_regex_covers_every_secret_key(key):
    """The Java regex is plain enough for Python's re to evaluate it the same way."""
    import re

    from lineage_operators.redaction import SPARK_REDACTION_CONF

    assert re.search(SPARK_REDACTION_CONF["spark.redaction.regex"], key)


_SECRET_KEYWORDS = (
    "password", "passwd", "pwd", "secret", "token", "user_id", "sig",
    "api_key", "apikey", "access-key", "access.key", "account_key",
)  # fmt: skip
#: Each alternative of the regex, in lower, upper and mixed case, alone and inside other text.
_EVERY_ALTERNATIVE = [
    f"{prefix}{text}{suffix}"
    for keyword in _SECRET_KEYWORDS
    for cased in (keyword, keyword.upper(), keyword.title())
    for text in (f"{cased}=v1", f"{cased} -> v2", f"{cased}: v3")
    for prefix, suffix in (("", ""), ("x ", ";y"), ("sum(", ")"))
] + [
    "s3a://KEY:SECRET@bucket/p",
    "jdbc:postgresql://u:p@h/d",
    "x AKIAABCDEFGHIJKLMNOP y",
    "ASIA0123456789ABCDEF",
    "FileScan parquet [id#0L] Location: InMemoryFileIndex[file:/tmp/data/raw_0], ReadSchema: struct<a:int>",
]
_MIXED_TEXT = st.lists(
    st.sampled_from(["password", "Token", "user_id", "Access_Key", "AKIA", "://", "@", "=", "->", ":", " "])
    | st.text(alphabet="pPsStTuUaAwWkK:/@= -_.&;,)'\"0123456789", max_size=4),
    max_size=30,
).map("".join)


def _same_replacements(text: str) -> None:
    import re

    from lineage_operators.redaction import _SPARK_SECRETS_IN_TEXT, SPARK_REDACTION_CONF

    pattern = SPARK_REDACTION_CONF["spark.redaction.string.regex"]
    assert re.sub(pattern, "<r>", text) == re.sub("(?i)" + _SPARK_SECRETS_IN_TEXT, "<r>", text), text


@pytest.mark.parametrize("text", _EVERY_ALTERNATIVE)
def test_sparks_string_redaction_look_ahead_keeps_every_alternative(text):
    """The look-ahead that makes the regex cheap for Spark skips only positions where no
    alternative can start: each alternative is still replaced, in any case."""
    _same_replacements(text)


@hypothesis.given(_MIXED_TEXT)
@hypothesis.settings(max_examples=300, deadline=None)
def test_sparks_string_redaction_look_ahead_changes_no_match(text):
    _same_replacements(text)


def test_sparks_string_redaction_regex_hides_urls_and_pairs():
    import re

    from lineage_operators.redaction import SPARK_REDACTION_CONF

    pattern = SPARK_REDACTION_CONF["spark.redaction.string.regex"]
    for text in (
        f"s3a://KEY:{SECRET}@bucket/p",
        f"jdbc:x://h/d?password={SECRET}",
        f"sc://h/;token={SECRET}",
    ):
        assert SECRET not in re.sub(pattern, "*****", text), text
    assert re.sub(pattern, "*****", "/data/in/part-0.parquet") == "/data/in/part-0.parquet"
