"""Dataset naming, as openlineage-spark and Airflow's providers name datasets.

Pure functions over strings (no Spark, no Airflow). Imports openlineage-python at module level:
import this module only from run-time code paths, never at package or DAG-parse time.

The rules follow openlineage-spark (Java client ``FilesystemDatasetUtils`` and the extractors in
``io.openlineage.client.utils.jdbc``, Spark ``PathUtils``) so that a dataset named here is the same
node as the one the Spark listener emits:

* file systems: ``file`` + absolute path; ``s3``/``s3a``/``s3n`` -> ``s3://bucket`` + key (no leading
  slash); ``gs://bucket`` + key; ``abfs``/``abfss`` -> ``abfss://container@host`` + path (no
  leading slash); ``wasbs://container@host`` + key; any other scheme -> ``scheme://authority`` (or
  bare ``scheme`` without authority) + path with its leading slash.
* JDBC: ``<scheme>://<host:port>`` + ``[database.]<table as given>``; default ports only where
  openlineage-spark adds them (postgres 5432, mysql 3306, oracle 1521, teradata 1025, db2 6789,
  trino 443, crate 5432, oceanbase 2881 -- not sqlserver).

Size: one naming rule per storage scheme and catalog (files, object stores, JDBC dialects,
Hive, Glue, Iceberg catalogs), each a few lines; together they are the one place names come from.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Mapping
from urllib.parse import unquote

from openlineage.client.dataset import DatasetConfig
from openlineage.client.dataset.trimmers import DatasetNameTrimmer
from openlineage.client.naming.dataset import (
    ABFSS,
    GCS,
    HDFS,
    S3,
    BigQuery,
    LocalFileSystem,
)

from lineage_operators.model import DatasetName
from lineage_operators.redaction import redact_url

__all__ = [
    "hive_catalog_uris",
    "name_jdbc",
    "name_jdbc_query",
    "name_location",
    "name_table_symlink",
    "parse_dataset",
    "to_location",
    "trim_partitions",
]

# --------------------------------------------------------------------------------------------
# file systems
# --------------------------------------------------------------------------------------------

_SCHEME_RE = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]+):(?P<rest>.*)$", re.DOTALL)
_GLOB_CHARS = frozenset("*?[]{}")
_ABFSS_HOST_RE = re.compile(r"^(?P<container>[^@/]+)@(?P<account>[^@/.]+)\.dfs\.core\.windows\.net$")
_AZURE_SCHEMES = ("abfs", "wasb")


def _object_store_scheme(scheme: str) -> str | None:
    """Canonical scheme for object stores, matched by prefix as openlineage-java does."""
    if scheme.startswith("s3"):
        return "s3"
    if scheme.startswith("gs"):
        return "gs"
    if scheme.startswith("abfs"):  # abfs and abfss both name as abfss
        return "abfss"
    if scheme.startswith("wasbs"):  # NOT plain wasb: openlineage-java keeps it as a generic scheme
        return "wasbs"
    return None


def _require_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string, got {type(value).__name__}: {value!r}")
    if not value.strip():
        raise ValueError(f"{what} must not be empty or whitespace, got {value!r}")
    return value


def _split_uri(value: str) -> tuple[str | None, str | None, str]:
    """Split into (scheme, authority, path) the way Hadoop's ``Path`` does.

    No query or fragment: ``?`` and ``#`` stay part of the path (``?`` is a glob character).
    """
    m = _SCHEME_RE.match(value)
    if not m:
        return None, None, value
    scheme = m.group("scheme").lower()
    rest = m.group("rest")
    if rest.startswith("//"):
        rest = rest[2:]
        slash = rest.find("/")
        if slash < 0:
            return scheme, rest or None, ""
        return scheme, rest[:slash] or None, rest[slash:]
    return scheme, None, rest


def _strip_userinfo(scheme: str, authority: str) -> str:
    """Drop credentials from an authority; Azure's ``container@account`` is not a credential."""
    if "@" not in authority:
        return authority
    userinfo, _, host = authority.rpartition("@")
    if scheme.startswith(_AZURE_SCHEMES) and ":" not in userinfo:
        return authority
    return host


def _normalize_path(path: str) -> str:
    """Collapse ``//``, resolve ``.``/``..`` like Hadoop's ``Path``; keep a leading slash if any."""
    if not path:
        return path
    absolute = path.startswith("/")
    normalized = posixpath.normpath(re.sub(r"/{2,}", "/", path))
    if normalized == ".":
        normalized = ""
    if absolute and not normalized.startswith("/"):
        normalized = "/" + normalized
    # normpath keeps a POSIX '//' prefix; we collapsed those already
    return normalized


def _cut_glob(path: str) -> tuple[str, bool]:
    """Return the directory above the first segment with a glob character, and whether one was cut."""
    segments = path.split("/")
    for index, segment in enumerate(segments):
        if any(ch in _GLOB_CHARS for ch in segment):
            parent = "/".join(segments[:index])
            if not parent and path.startswith("/"):
                parent = "/"
            return parent, True
    return path, False


def _is_year(segment: str) -> bool:
    return len(segment) == 4 and segment.isdigit() and 1000 <= int(segment) <= 2999


_TRIMMERS: list[DatasetNameTrimmer] | None = None


def _trimmers() -> list[DatasetNameTrimmer]:
    global _TRIMMERS
    if _TRIMMERS is None:
        # the built-ins: KeyValueTrimmer, DateTrimmer, MultiDirDateTrimmer, YearMonthTrimmer
        _TRIMMERS = DatasetConfig(reducing_enabled=True).get_dataset_name_trimmers()
    return _TRIMMERS


def trim_partitions(name: str) -> str:
    """Trim ``key=value`` and date-like trailing segments with openlineage-python's trimmers.

    The built-in trimmers (``KeyValueTrimmer``, ``DateTrimmer``, ``MultiDirDateTrimmer``,
    ``YearMonthTrimmer``) are applied until the name stops changing, as ``DatasetReducer`` does:
    ``/data/events/dt=2026-01-01/hour=3`` -> ``/data/events``, ``/data/daily/2025/10/30`` ->
    ``/data/daily``. Only trailing segments are looked at (``/a/b=1/c`` is unchanged) and the last
    remaining segment is never removed (``/20251030`` stays). A trailing slash is ignored.
    """
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {type(name).__name__}: {name!r}")
    return _trim_partitions(name)


@functools.lru_cache(maxsize=4096)
def _trim_partitions(name: str) -> str:
    """:func:`trim_partitions`, remembered: a task names the same locations over and over, and the
    date trimmers parse each segment with ``strptime``."""
    current = name.rstrip("/") or name
    seen = {current}
    for _ in range(64):
        trimmed = current
        for trimmer in _trimmers():
            trimmed = trimmer.trim(trimmed)
        if trimmed == current or trimmed in seen or len(trimmed) > len(current):
            return current
        seen.add(trimmed)
        current = trimmed
    return current


def _trim_with_glob(name: str, glob_cut: bool, leading_slash: bool) -> str:
    """Trimming plus the one rule the trimmers lack: ``<year>/<glob>`` counts as a date directory.

    ``logs/2025/*/x.json`` is cut to ``logs/2025`` (the directory above the glob); the glob stands
    for the month, so the year is a partial ``yyyy/MM`` date and is trimmed as well.
    """
    trimmed = trim_partitions(name)
    if glob_cut:
        parts = [p for p in trimmed.split("/") if p]
        if len(parts) > 1 and _is_year(parts[-1]):
            trimmed = trim_partitions(("/" if leading_slash else "") + "/".join(parts[:-1]))
    return trimmed


def name_location(uri: str, *, cwd: str | None = None, trim: bool = True) -> DatasetName:
    """Name a file-system location (path or URI) as openlineage-spark does.

    ``file:/tmp/x``, ``file:///tmp/x``, ``/tmp/x`` -> ``("file", "/tmp/x")``; relative paths are
    resolved against ``cwd`` (default: the process cwd). ``s3a://b/k/`` -> ``("s3://b", "k")``;
    bucket roots -> name ``/``. With ``trim``, partition/date segments are trimmed to the root.
    Raises ``ValueError`` on an unusable value.

    Details:

    * ``%`` is a plain character: ``file:/tmp/a%20b`` names the directory ``/tmp/a%20b``, as Hadoop's
      ``Path(String)`` (what Spark makes of a path it is given) reads it and openlineage-spark names
      it. Locations that Spark holds as ``java.net.URI`` (catalog tables) are decoded once where
      they are read (:mod:`lineage_operators.spark.plan.reader`), never here.
      ``//`` and ``.``/``..`` segments are normalized, trailing slashes dropped.
    * Credentials in the authority (``s3a://KEY:SECRET@bucket``) are dropped.
    * A path with a glob character (``*?[]{}``) is named by the directory above its first glob
      segment (``/data/in/*.csv`` -> ``/data/in``); a glob in the first segment names the root.
    * ``abfs``/``abfss`` -> ``abfss://container@host`` + path without leading slash.
    * ``wasbs://container@host/key`` -> ``("wasbs://container@host", "key")``, host kept as written
      (normally ``<account>.blob.core.windows.net``). Plain ``wasb://`` is NOT rewritten: like
      openlineage-spark it gets the generic form ``("wasb://container@host", "/key")``.
    * Any other scheme: ``("scheme://authority", "/path")``, or ``("scheme", "/path")`` without an
      authority (``dbfs:/p`` -> ``("dbfs", "/p")``, ``hdfs://nn:8020/p`` -> ``("hdfs://nn:8020", "/p")``).
    """
    _require_text(uri, "location")
    return _name_location(uri, cwd if cwd is not None else os.getcwd(), trim)


@functools.lru_cache(maxsize=4096)
def _name_location(uri: str, cwd: str, trim: bool) -> DatasetName:
    """:func:`name_location`, remembered (a pure function of its arguments; errors are not kept):
    a task's datasets name the same few locations hundreds of times while its result is built."""
    scheme, authority, raw_path = _split_uri(uri)

    glob_path, glob_cut = _cut_glob(raw_path)
    if glob_cut and scheme is not None and authority is not None and not glob_path:
        glob_path = "/"
    if authority is not None and any(ch in _GLOB_CHARS for ch in authority):
        raise ValueError(f"cannot name location {uri!r}: glob characters in the bucket/authority")

    if scheme is None or scheme == "file":
        path = glob_path
        if scheme == "file" and not path:
            raise ValueError(f"cannot name location {uri!r}: no path")
        if not path.startswith("/"):
            path = posixpath.join(cwd, path) if path else cwd
        path = _normalize_path(path).rstrip("/") or "/"
        if trim:
            path = _trim_with_glob(path, glob_cut, True)
        local = LocalFileSystem(path=path)
        return DatasetName(local.get_namespace(), local.get_name())

    host = _strip_userinfo(scheme, authority) if authority else authority
    path = _normalize_path(glob_path)
    canonical = _object_store_scheme(scheme)

    if canonical is not None:
        if not host:
            raise ValueError(f"cannot name location {uri!r}: {scheme}:// needs a bucket/container")
        key = path.strip("/") or "/"
        if trim and key != "/":
            key = _trim_with_glob(key, glob_cut, False)
        if canonical == "s3":
            s3 = S3(bucket_name=host, object_key=key)
            return DatasetName(s3.get_namespace(), s3.get_name())
        if canonical == "gs":
            gcs = GCS(bucket_name=host, object_key=key)
            return DatasetName(gcs.get_namespace(), gcs.get_name())
        match = _ABFSS_HOST_RE.match(host) if canonical == "abfss" else None
        if match:
            abfss = ABFSS(container=match.group("container"), service=match.group("account"), path=key)
            return DatasetName(abfss.get_namespace(), abfss.get_name())
        # wasbs, or abfss with a non-standard host: keep the host exactly as written
        return DatasetName(f"{canonical}://{host}", key)

    name = path.rstrip("/") or "/"
    if not name.startswith("/"):
        name = "/" + name
    if trim:
        name = _trim_with_glob(name, glob_cut, True)
    if host:
        hdfs_host, sep, port = host.rpartition(":")
        if scheme == "hdfs" and sep and port.isdigit() and hdfs_host:
            hdfs = HDFS(namenode_host=hdfs_host, namenode_port=port, path=name)
            return DatasetName(hdfs.get_namespace(), hdfs.get_name())
        return DatasetName(f"{scheme}://{host}", name)
    return DatasetName(scheme, name)


def to_location(dataset: DatasetName) -> str:
    """The location URI of a file-system dataset name (openlineage-java ``toLocation``).

    ``("file", "/a")`` -> ``file:/a``; ``("s3://b", "k")`` -> ``s3://b/k``; ``("dbfs", "/p")`` ->
    ``dbfs:/p``; name ``/`` -> the namespace itself (``file:/`` for ``file``).
    """
    namespace, name = dataset
    if ":/" not in namespace:
        namespace += ":/"
    if name == "/":
        return namespace
    return namespace.rstrip("/") + "/" + name.lstrip("/")


# --------------------------------------------------------------------------------------------
# session-catalog table symlinks
# --------------------------------------------------------------------------------------------


def _table_name(database: str | None, table: str) -> str:
    return f"{database}.{table}" if database else table


def _hive_namespace(metastore_uris: str) -> str | None:
    for raw in metastore_uris.split(","):
        candidate = raw.strip()
        if not candidate:
            continue
        _, authority, _ = _split_uri(candidate)
        if authority is None:
            authority = candidate.split("/", 1)[0] if "://" not in candidate else None
        if authority:
            return "hive://" + authority.rpartition("@")[2]
        return None
    return None


def hive_catalog_uris(warehouse: str | None, metastore_uris: str | None) -> tuple[str | None, str | None]:
    """(warehouse URI, metastore URI) of a Hive catalog as openlineage-spark's ``catalog`` facet
    writes them: ``file:/data/wh`` (as the symlink namespace) and ``hive://host:port``."""
    warehouse_uri = None
    if warehouse and warehouse.strip():
        try:
            warehouse_uri = to_location(name_location(warehouse, trim=False)).rstrip("/").rstrip(":")
        except ValueError:
            warehouse_uri = None
    metadata_uri = _hive_namespace(metastore_uris) if metastore_uris and metastore_uris.strip() else None
    return warehouse_uri, metadata_uri


def name_table_symlink(
    database: str,
    table: str,
    *,
    location: str | None,
    metastore_uris: str | None = None,
    warehouse: str | None = None,
) -> DatasetName | None:
    """The ``TABLE`` symlink of a session-catalog table, or None when it has none.

    As openlineage-spark ``PathUtils.fromTableIdentifier`` (Glue and Unity Catalog not handled):

    * ``metastore_uris`` set (Hive support): ``("hive://<host:port of the first URI>", "db.table")``,
      whatever the location.
    * else, when ``location`` lies under (or is) ``warehouse`` -- both qualified and normalized
      first, so ``/data/wh`` equals ``file:/data/wh`` and ``s3a://b/wh`` equals ``s3://b/wh``:
      ``(<warehouse location>, "db.table")`` where the namespace is the warehouse as openlineage
      writes it: ``file:/data/wh``, ``s3://b/wh``, ``hdfs://nn:8020/wh``, ``dbfs:/wh`` (no trailing
      slash; ``file`` for a warehouse at ``/``).
    * else None (a table at a custom location, or no warehouse known).

    ``database`` may be empty: the name is then just ``table``.
    """
    _require_text(table, "table")
    name = _table_name(database, table)
    if metastore_uris and metastore_uris.strip():
        namespace = _hive_namespace(metastore_uris)
        if namespace:
            return DatasetName(namespace, name)
    if not location or not warehouse or not location.strip() or not warehouse.strip():
        return None
    try:
        wh = name_location(warehouse, trim=False)
        loc = name_location(location, trim=False)
    except ValueError:
        return None
    wh_uri = to_location(wh)
    loc_uri = to_location(loc)
    if loc_uri != wh_uri and not loc_uri.startswith(wh_uri.rstrip("/") + "/"):
        return None
    namespace = wh_uri.rstrip("/").rstrip(":")
    return DatasetName(namespace, name)


# --------------------------------------------------------------------------------------------
# JDBC
# --------------------------------------------------------------------------------------------

# (prefix of the url after "jdbc:", namespace scheme, default port) -- openlineage-java extractors
_OVERRIDING = (
    ("postgres", "postgres", "5432"),
    ("mysql", "mysql", "3306"),
    ("crate", "crate", "5432"),
    ("db2", "db2", "6789"),
    ("trino", "trino", "443"),
    ("oceanbase", "oceanbase", "2881"),
)
_HOST_PORT_RE = re.compile(r"^[\[\]\w.\-]+:\d+$")
_MULTI_HOST_RE = re.compile(
    r"^(?P<scheme>\w+)://(?P<authority>[\w.\[\]:,\-]+)/?(?P<database>[\w.]+)?(?:\?.*)?$"
)
_SQLSERVER_RE = re.compile(
    r"^\w+://(?P<host>[\w.\-]+)?(?:\\)?(?P<instance>\w+)?(?::)?(?P<port>\d+)?(?P<params>.*)$", re.DOTALL
)
_TERADATA_RE = re.compile(r"^\w+://(?P<host>[\w.\[\]:\-]+)?/?(?P<params>.*)$", re.DOTALL)
_PROTOCOL_RE = re.compile(r"^[\w+:]+://")
_SUBQUERY_RE = re.compile(r"^\s*(\(|select\s|with\s)", re.IGNORECASE)


class _Unparsed(ValueError):
    """The JDBC URL could not be parsed into host and database."""


class _JdbcLocation:
    def __init__(
        self, scheme: str, authority: str | None, instance: str | None = None, database: str | None = None
    ) -> None:
        self.scheme = scheme
        self.authority = authority
        self.instance = instance
        self.database = database

    def namespace(self) -> str:
        result = self.scheme.lower() + ":"
        if self.authority:
            result += "//" + self.authority.lower()
        if self.instance:
            result += "/" + self.instance.lstrip("/")
        return result

    def name(self, table: str) -> str:
        parts = table.split(".")
        if self.database:
            parts.insert(0, self.database)
        return ".".join(parts)


def _drop_userinfo_hosts(authority: str) -> str:
    return ",".join(host.rpartition("@")[2] for host in authority.split(","))


def _split_authority(rest: str) -> tuple[str, str, str]:
    """``host:port/db?query`` (after ``scheme://``) -> (authority, path, query)."""
    end = len(rest)
    for sep in "/?#":
        idx = rest.find(sep)
        if 0 <= idx < end:
            end = idx
    authority, tail = rest[:end], rest[end:]
    path, _, query = tail.partition("?")
    return authority, path.split("#", 1)[0], query


def _generic_location(uri: str) -> _JdbcLocation:
    scheme_end = uri.find("://")
    if scheme_end <= 0 or not re.fullmatch(r"[A-Za-z][\w+.\-]*", uri[:scheme_end]):
        raise _Unparsed(uri)
    scheme = uri[:scheme_end]
    authority, path, _ = _split_authority(uri[scheme_end + 3 :])
    authority = _drop_userinfo_hosts(authority)
    if not authority:
        raise _Unparsed(uri)
    if "," in authority:
        match = _MULTI_HOST_RE.match(f"{scheme}://{authority}{path}")
        if not match:
            raise _Unparsed(uri)
        return _JdbcLocation(scheme, match.group("authority"), None, match.group("database"))
    if not re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[\w.\-]+)(:\d*)?", authority):
        raise _Unparsed(uri)
    host, _, port = authority.rpartition(":") if not authority.endswith("]") else (authority, "", "")
    if not host:
        host, port = authority, ""
    database = path[1:] if path.startswith("/") else path
    return _JdbcLocation(scheme, f"{host}:{port}" if port else host, None, unquote(database) or None)


def _with_default_port(authority: str | None, port: str) -> str | None:
    if not authority:
        return authority
    return ",".join(h if _HOST_PORT_RE.match(h) else f"{h}:{port}" for h in authority.split(","))


def _overriding(uri: str, scheme: str, port: str) -> _JdbcLocation:
    location = _generic_location(uri)
    return _JdbcLocation(scheme, _with_default_port(location.authority, port), None, location.database)


def _oracle_location(uri: str) -> _JdbcLocation:
    rest = re.sub(r"^.*@(//)?", "", uri, count=1, flags=re.DOTALL)
    rest = re.sub(r"\?.*$", "", rest, flags=re.DOTALL)
    if "(" in rest:
        raise _Unparsed(uri)  # TNS descriptor: not parsed by openlineage-spark either
    if "ldap" in rest.lower():
        ldap = next((t for t in rest.split() if "ldap" in t.lower()), rest)
        ldap = re.sub(r"(?i)^.*?ldaps?:(//)?/*", "", ldap)
        parts = ldap.split("/")
        db = parts[-1].split(",")[0] if len(parts) > 1 else ""
        rest = f"{parts[0]}/{db}"
    rest = re.sub(r"^\w+://", "", rest, count=1)
    if ":" in rest:
        head, _, last = rest.rpartition(":")
        if not ("]" in last or last.isdigit() or "/" in last):
            rest = f"{head}/{last}"  # host:1521:sid -> host:1521/sid
    return _overriding("oracle://" + rest, "oracle", "1521")


def _sqlserver_location(uri: str, properties: Mapping[str, str]) -> _JdbcLocation:
    match = _SQLSERVER_RE.match(uri)
    if not match:
        raise _Unparsed(uri)
    final: dict[str, str] = {}
    for key in ("host", "port", "instance"):
        if match.group(key) is not None:
            final[{"host": "servername", "port": "portnumber", "instance": "instancename"}[key]] = (
                match.group(key)
            )
    params = (match.group("params") or "").replace(";", "", 1).split(";")
    for param in params:
        parts = param.split("=")
        if len(parts) == 2:
            final.setdefault(parts[0].lower(), parts[1])
    for key, value in properties.items():
        final.setdefault(key.lower(), value)
    host = final.get("servername")
    if not host:
        raise _Unparsed(uri)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    port = final.get("portnumber")
    authority = f"{host}:{port}" if port else host
    database = final.get("databasename") or final.get("database")
    return _JdbcLocation("sqlserver", authority, final.get("instancename"), database)


def _teradata_location(uri: str) -> _JdbcLocation:
    match = _TERADATA_RE.match(uri)
    if not match or not match.group("host"):
        raise _Unparsed(uri)
    params: dict[str, str] = {}
    for param in (match.group("params") or "").split(","):
        parts = param.split("=")
        if len(parts) == 2:
            params[parts[0].upper()] = parts[1]
    authority = f"{match.group('host')}:{params.get('DBS_PORT', '1025')}"
    return _JdbcLocation("teradata", authority, None, params.get("DATABASE"))


def _derby_location(uri: str) -> _JdbcLocation:
    match = re.search(r"databaseName=([^;]+)", uri)
    database = match.group(1) if match else "metastore_db"
    home = os.environ.get("DERBY_SYSTEM_HOME") or os.getcwd()
    path = _normalize_path(posixpath.join(home, database))
    return _JdbcLocation("file", None, path, None)


def _jdbc_location(uri: str, properties: Mapping[str, str]) -> _JdbcLocation:
    lowered = uri.lower()
    if lowered.startswith("oracle"):
        return _oracle_location(uri)
    if lowered.startswith("sqlserver"):
        return _sqlserver_location(uri, properties)
    if lowered.startswith("teradata"):
        return _teradata_location(uri)
    if uri.startswith("derby:"):
        return _derby_location(uri)
    for prefix, scheme, port in _OVERRIDING:
        if lowered.startswith(prefix):
            if prefix in ("mysql", "oceanbase"):
                uri = _PROTOCOL_RE.sub(f"{prefix}://", uri, count=1)
            return _overriding(uri, scheme, port)
    return _generic_location(uri)


def _sanitized_jdbc_namespace(uri: str) -> str:
    """Fallback namespace for URLs that cannot be parsed: the URL without credentials or options."""
    cleaned = redact_url("jdbc:" + uri)[len("jdbc:") :]
    cleaned = re.sub(r"[A-Za-z0-9_%]+//?[A-Za-z0-9_%]*@", "@", cleaned)  # oracle user/password@
    cleaned = re.sub(r"(?i)[,;&:]?(?:user|username|password)=[^,;&:()]+[,;&:]?", "", cleaned)
    cleaned = re.sub(r"(\(\)){2,}|[,;&:]{2,}", "", cleaned)
    cleaned = re.sub(r"\?.*$", "", cleaned, flags=re.DOTALL)
    return cleaned


def _check_table(table: object) -> str:
    _require_text(table, "JDBC table")
    assert isinstance(table, str)
    if _SUBQUERY_RE.match(table):
        raise ValueError(
            f"JDBC table {table!r} is a subquery: no single table name can be derived from it; "
            "use name_jdbc_query() to name the tables it reads"
        )
    return table.strip()


def name_jdbc(url: str, table: str, *, properties: Mapping[str, str] | None = None) -> DatasetName:
    """``jdbc:postgresql://h:5432/db`` + ``s.t`` -> ``("postgres://h:5432", "db.s.t")``; no credentials.

    As openlineage-spark (``JdbcDatasetUtils.getDatasetIdentifier``): namespace
    ``<scheme>://<host:port>`` (lower-cased), name = the URL's database (if any) + the table exactly
    as given (``t`` -> ``db.t``; no default schema is inserted). ``properties`` are the JDBC
    connection properties (only SQL Server reads them: ``databaseName``, ``portNumber``, ...).

    * ``jdbc:postgresql://h/db`` -> ``postgres://h:5432``; mysql 3306, oracle 1521, teradata 1025,
      db2 6789, trino 443; SQL Server gets no default port (``sqlserver://h``, instance as
      ``sqlserver://h/inst``, database from ``databaseName=``/``database=``).
    * Oracle: ``@//h:1521/service`` and ``@h:1521:sid`` -> ``oracle://h:1521`` + ``service.s.t``.
    * URLs with no host (``jdbc:sqlite:/p.db``, ``jdbc:h2:mem:x``, Oracle TNS descriptors) are named
      like openlineage-spark does: namespace = the URL without ``jdbc:``, credentials and options,
      name = the table.
    * Credentials (``user:pw@``, ``?user=..&password=..``, ``;password=..``) never appear.

    Raises ``ValueError`` for an empty URL/table, a URL not starting with ``jdbc:`` and for a
    subquery table (``(select ...) alias``): callers name those with :func:`name_jdbc_query`.
    """
    _require_text(url, "JDBC URL")
    tbl = _check_table(table)
    stripped = url.strip()
    if not stripped.lower().startswith("jdbc:"):
        raise ValueError(f"JDBC URL must start with 'jdbc:', got {url!r}")
    uri = stripped[5:]
    try:
        location = _jdbc_location(uri, properties or {})
    except _Unparsed:
        return DatasetName(_sanitized_jdbc_namespace(uri), tbl)
    return DatasetName(location.namespace(), location.name(tbl))


def name_jdbc_query(
    url: str, query: str, *, properties: Mapping[str, str] | None = None
) -> list[DatasetName]:
    """Name the tables a JDBC query reads, as openlineage-spark does for subquery relations.

    ``query`` is the ``query`` option or a ``dbtable`` of the form ``(select ...) alias``. The SQL is
    parsed with openlineage-sql (the parser openlineage-spark uses) in the dialect named by the URL;
    each input table is named with :func:`name_jdbc`. Raises ``ValueError`` when the SQL cannot be
    parsed or reads no table.
    """
    _require_text(url, "JDBC URL")
    _require_text(query, "JDBC query")
    sql = query.strip()
    if sql.startswith("(") and ")" in sql:
        sql = sql[1 : sql.rindex(")")]
    match = re.match(r"(?i)^jdbc:([^:]+):", url.strip())
    dialect = match.group(1).lower() if match else None
    try:
        import openlineage_sql

        meta = openlineage_sql.parse([sql], dialect=dialect)
    except Exception as exc:  # missing native library or parser failure
        raise ValueError(f"cannot parse JDBC query {query!r}: {type(exc).__name__}") from exc
    if meta is None or meta.errors or not meta.in_tables:
        raise ValueError(f"cannot name the tables read by JDBC query {query!r}")
    return [name_jdbc(url, t.qualified_name, properties=properties) for t in meta.in_tables]


# --------------------------------------------------------------------------------------------
# Kafka
# --------------------------------------------------------------------------------------------


def name_kafka(bootstrap_servers: str, topic: str) -> DatasetName:
    """A Kafka topic: ``("kafka://<host:port>", topic)``, the host and port of the *first* server of
    ``kafka.bootstrap.servers`` as written (no resolution, no case change; a ``SASL_SSL://`` or other
    listener prefix dropped), as openlineage-spark names it: every job naming one cluster by the same
    first server gets one namespace, whatever servers follow it.

    ``ValueError`` for an empty server list or topic.
    """
    first = (bootstrap_servers or "").split(",", 1)[0].strip()
    if "://" in first:
        first = first.split("://", 1)[1]
    first = first.split("/", 1)[0]
    if not first:
        raise ValueError(f"no Kafka bootstrap server in {bootstrap_servers!r}")
    if not topic or not topic.strip():
        raise ValueError(f"no Kafka topic for servers {first!r}")
    return DatasetName(f"kafka://{first}", topic.strip())


# --------------------------------------------------------------------------------------------
# user input
# --------------------------------------------------------------------------------------------

# OpenLineage dataset URI schemes of databases: <scheme>://<authority>/<name>
_DB_SCHEMES = {
    "postgres": "5432",
    "postgresql": "5432",
    "mysql": "3306",
    "oracle": "1521",
    "teradata": "1025",
    "db2": "6789",
    "trino": "443",
    "crate": "5432",
    "oceanbase": "2881",
    "sqlserver": "",
    "hive": "",
    "redshift": "",
    "cassandra": "",
    "kafka": "",
    "snowflake": "",
    "awsathena": "",
    "azurekusto": "",
    "azurecosmos": "",
    "mssql": "",
    "clickhouse": "",
}

_ACCEPTED = (
    "accepted: an absolute path (/data/x), a URI (file:/..., s3://bucket/key, gs://, abfss://, hdfs://, "
    "...), an OpenLineage database URI (postgres://host:5432/db.schema.table, bigquery:project.ds.table), "
    "a jdbc: URL together with table=..., or a table name together with namespace=..."
)


def parse_dataset(
    value: str, *, namespace: str | None = None, table: str | None = None, trim: bool = True
) -> DatasetName:
    """Name what a user wrote: a path, a URI, a JDBC URL, an OL ``<namespace>/<name>`` URI,
    or a table name together with ``namespace``. Raises ``ValueError`` with a clear message.

    * ``namespace`` given: ``value`` is the dataset name in it, taken verbatim (stripped).
    * absolute path / file-system URI: :func:`name_location` (``trim`` as there).
    * ``jdbc:...``: only together with ``table=`` (then :func:`name_jdbc`); a bare JDBC URL names a
      database, not a dataset, and raises ``ValueError``.
    * ``postgres://h:5432/db.s.t`` (also mysql, hive, sqlserver, oracle, trino, redshift, kafka, ...)
      -> ``("postgres://h:5432", "db.s.t")``; scheme and host lower-cased, the default port
      openlineage-spark would add is added, ``postgresql`` is written ``postgres``.
    * ``bigquery:p.d.t`` / ``bigquery://p.d.t`` / ``bigquery:/p.d.t`` -> ``("bigquery", "p.d.t")``.
    * relative paths and bare table names without ``namespace``, empty values, non-strings:
      ``ValueError`` naming the value and what is accepted.
    """
    if not isinstance(value, str):
        raise ValueError(f"dataset must be a string, got {type(value).__name__}: {value!r}; {_ACCEPTED}")
    text = value.strip()
    if not text:
        raise ValueError(f"dataset must not be empty, got {value!r}; {_ACCEPTED}")

    if namespace is not None:
        if not isinstance(namespace, str) or not namespace.strip():
            raise ValueError(f"namespace for dataset {value!r} must be a non-empty string, got {namespace!r}")
        if text.lower().startswith("jdbc:"):
            raise ValueError(f"dataset {value!r} is a JDBC URL: pass it without namespace and with table=...")
        return DatasetName(namespace.strip(), text)

    if text.lower().startswith("jdbc:"):
        if table is None:
            raise ValueError(
                f"dataset {value!r} is a JDBC URL, which names a database, not a table: "
                "pass the table too (parse_dataset(url, table='schema.table'))"
            )
        return name_jdbc(text, table)

    scheme, authority, path = _split_uri(text)
    if scheme is None:
        if text.startswith("/"):
            return name_location(text, trim=trim)
        raise ValueError(
            f"dataset {value!r} is neither an absolute path nor a URI "
            f"(a relative path or a table name needs namespace=...); {_ACCEPTED}"
        )

    if scheme == "bigquery":
        name = text.split(":", 1)[1].lstrip("/")
        if not name:
            raise ValueError(f"dataset {value!r} has no table name; {_ACCEPTED}")
        parts = name.split(".")
        if len(parts) == 3 and all(parts):
            bq = BigQuery(project_id=parts[0], dataset_name=parts[1], table_name=parts[2])
            return DatasetName(bq.get_namespace(), bq.get_name())
        return DatasetName("bigquery", name)

    if scheme in _DB_SCHEMES:
        if not authority:
            raise ValueError(f"dataset {value!r} has no host; expected {scheme}://host:port/name")
        name = path.lstrip("/")
        if not name:
            raise ValueError(f"dataset {value!r} has no dataset name after the host; {_ACCEPTED}")
        host = authority.rpartition("@")[2].lower()
        port = _DB_SCHEMES[scheme]
        if port:
            host = _with_default_port(host, port) or host
        ns_scheme = "postgres" if scheme == "postgresql" else scheme
        return DatasetName(f"{ns_scheme}://{host}", name)

    return name_location(text, trim=trim)
