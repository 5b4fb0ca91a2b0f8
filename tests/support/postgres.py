"""A real, throwaway PostgreSQL server for tests, plus its JDBC driver jar.

``PostgresServer`` runs ``initdb`` into a fresh temporary directory, starts the server on
127.0.0.1 on a free port (its unix socket lives inside the same directory, never in
/var/run/postgresql), creates the role ``lineage_user`` (password auth over TCP) and the
database ``lineage`` it owns, and at ``stop()`` shuts the server down and deletes everything.

Binaries come from Debian's ``postgresql`` package (``/usr/lib/postgresql/<major>/bin``, newest
major wins; ``LINEAGE_TEST_PG_BIN`` overrides) and the driver from ``libpostgresql-jdbc-java``
(``/usr/share/java/postgresql*.jar``; ``LINEAGE_TEST_PG_JDBC_JAR`` overrides). Neither is
installed here: ``scripts/ensure_test_services.sh`` does that, and a missing one makes the
fixture *fail* (never skip) with a message saying so.

PostgreSQL refuses to run as root. When the tests run as root, every PostgreSQL program
(initdb, postgres, psql, and pg_ctl when reaping a stale cluster) runs as the ``postgres`` OS
user (created by the Debian package; created here as a system user if absent) through
``subprocess``'s ``user=``/``group=``/``extra_groups=`` arguments: a plain
setgroups/setgid/setuid in the forked child, done by CPython in C, so no ``preexec_fn`` (unsafe
with the JVM's and py4j's threads) and no dependency on runuser/su/sudo. As a normal user
everything simply runs as that user.

The postmaster is started directly as a child process (not daemonized by ``pg_ctl``), so
``stop()`` reaps it and no process, not even a zombie, outlives the fixture. A test process that
is SIGKILLed cannot clean up; the next ``start()`` on the machine stops and deletes such orphans
(directories ``lineage-pg-*`` whose ``owner.pid`` process is gone).

Use from a conftest::

    from tests.support.postgres import postgres  # noqa: F401  (session-scoped fixture)

or ``make_postgres_fixture(scope="function", name="fresh_postgres")`` for another scope.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import grp
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from tests.support.ports import free_port as _free_port
from tests.support.processes import started_or_failed

HOST = "127.0.0.1"
DATABASE = "lineage"
USER = "lineage_user"
# A constant that looks random, so tests can assert it never shows up in lineage events or logs.
PASSWORD = "s3cr3t-Pa55w0rd"
SUPERUSER = "postgres"  # the database superuser, reachable only through the private unix socket
OS_USER = "postgres"  # the OS account the server runs as when the tests run as root
JDBC_DRIVER = "org.postgresql.Driver"

ENSURE_HINT = "run scripts/ensure_test_services.sh (as root, or with sudo) to install it"
_TMP_PREFIX = "lineage-pg-"
_OWNER_FILE = "owner.pid"
_START_ATTEMPTS = 3


class PostgresUnavailable(RuntimeError):
    """The server binaries or the JDBC jar are missing, or the server could not be started."""


# --------------------------------------------------------------------------- discovery


def find_pg_bin() -> Path | None:
    """The newest ``/usr/lib/postgresql/<major>/bin`` holding initdb, pg_ctl, postgres and psql."""
    needed = ("initdb", "pg_ctl", "postgres", "psql")
    override = os.environ.get("LINEAGE_TEST_PG_BIN")
    candidates = [Path(override)] if override else [Path(p) for p in glob.glob("/usr/lib/postgresql/*/bin")]

    def major(path: Path) -> int:
        try:
            return int(path.parent.name)
        except ValueError:
            return -1

    for path in sorted(candidates, key=major, reverse=True):
        if all(os.access(path / name, os.X_OK) for name in needed):
            return path
    return None


def find_jdbc_jar() -> Path | None:
    """Debian's PostgreSQL JDBC driver jar (``/usr/share/java/postgresql.jar`` preferred)."""
    override = os.environ.get("LINEAGE_TEST_PG_JDBC_JAR")
    candidates = (
        [override]
        if override
        else [
            "/usr/share/java/postgresql.jar",
            *sorted(glob.glob("/usr/share/java/postgresql*.jar")),
        ]
    )
    for candidate in candidates:
        if candidate and os.path.isfile(candidate):
            return Path(candidate).resolve()
    return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --------------------------------------------------------------------------- the OS account


class _RunAs:
    """Who the server-side programs run as: ``postgres`` when we are root, else ourselves."""

    def __init__(self) -> None:
        self.as_root = os.geteuid() == 0
        if self.as_root:
            entry = self._ensure_os_user()
            self.uid, self.gid, self.name = entry.pw_uid, entry.pw_gid, entry.pw_name
        else:
            self.uid, self.gid = os.geteuid(), os.getegid()
            try:
                self.name = pwd.getpwuid(self.uid).pw_name
            except KeyError:  # an anonymous uid, e.g. in some containers
                self.name = str(self.uid)

    @staticmethod
    def _ensure_os_user() -> pwd.struct_passwd:
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(OS_USER)
        try:
            grp.getgrnam(OS_USER)
            group_args = ["-g", OS_USER]
        except KeyError:
            group_args = ["-U"]
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        result = subprocess.run(
            [
                useradd,
                "--system",
                *group_args,
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                OS_USER,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        try:  # a concurrent test process may have created it first
            return pwd.getpwnam(OS_USER)
        except KeyError:
            raise PostgresUnavailable(
                f"PostgreSQL cannot run as root and there is no '{OS_USER}' OS user; creating it failed: "
                f"{result.stderr.strip() or result.returncode}; {ENSURE_HINT}"
            ) from None

    def kwargs(self) -> dict[str, object]:
        if not self.as_root:
            return {}
        return {"user": self.uid, "group": self.gid, "extra_groups": []}

    def chown(self, path: Path) -> None:
        if self.as_root:
            os.chown(path, self.uid, self.gid)


# --------------------------------------------------------------------------- the server


class PostgresServer:
    """A throwaway PostgreSQL cluster on 127.0.0.1; see the module docstring.

    Attributes (valid after ``start()``): ``host``, ``port``, ``database``, ``user``, ``password``,
    ``jdbc_url``, ``jdbc_url_with_credentials``, ``jdbc_jar``, ``jdbc_driver``,
    ``jdbc_properties``, ``spark_conf``, ``bin_dir``, ``base_dir``, ``data_dir``, ``socket_dir``,
    ``log_path``, ``startup_seconds``.
    """

    def __init__(
        self,
        *,
        database: str = DATABASE,
        user: str = USER,
        password: str = PASSWORD,
        start_timeout: float = 60.0,
    ) -> None:
        self.host = HOST
        self.database = database
        self.user = user
        self.password = password
        self.jdbc_driver = JDBC_DRIVER
        self.start_timeout = start_timeout
        self.port: int = 0
        self.bin_dir: Path | None = None
        self.jdbc_jar: str = ""
        self.base_dir: Path | None = None
        self._running = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._runas: _RunAs | None = None
        self.startup_seconds: float | None = None

    # ----- derived attributes

    @property
    def data_dir(self) -> Path:
        return self._base / "data"

    @property
    def socket_dir(self) -> Path:
        return self._base / "sock"

    @property
    def log_path(self) -> Path:
        return self._base / "postgres.log"

    @property
    def jdbc_url(self) -> str:
        """``jdbc:postgresql://127.0.0.1:<port>/lineage``: no credentials in it."""
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.database}"

    @property
    def jdbc_url_with_credentials(self) -> str:
        """The JDBC URL carrying ``user`` and ``password`` as query parameters."""
        return f"{self.jdbc_url}?user={quote(self.user, safe='')}&password={quote(self.password, safe='')}"

    @property
    def jdbc_properties(self) -> dict[str, str]:
        """Connection properties for ``spark.read.jdbc(url, table, properties=...)``."""
        return {"user": self.user, "password": self.password, "driver": self.jdbc_driver}

    @property
    def spark_conf(self) -> dict[str, str]:
        """SparkSession settings that put the JDBC driver on Spark's classpath (apply before the JVM starts).

        ``spark.jars`` alone ships the jar but leaves it invisible to ``java.sql.DriverManager``,
        so a JDBC read without ``.option("driver", "org.postgresql.Driver")`` fails with
        "No suitable driver"; the extraClassPath entries make URL-based driver lookup work too.
        """
        return {
            "spark.jars": self.jdbc_jar,
            "spark.driver.extraClassPath": self.jdbc_jar,
            "spark.executor.extraClassPath": self.jdbc_jar,
        }

    @property
    def _base(self) -> Path:
        if self.base_dir is None:
            raise RuntimeError("PostgresServer is not started")
        return self.base_dir

    # ----- lifecycle

    def start(self) -> PostgresServer:
        if self._running:
            return self
        began = time.monotonic()
        bin_dir = find_pg_bin()
        if bin_dir is None:
            raise PostgresUnavailable(
                "PostgreSQL server binaries (initdb, pg_ctl, postgres, psql) not found under "
                f"/usr/lib/postgresql/*/bin; {ENSURE_HINT}"
            )
        jar = find_jdbc_jar()
        if jar is None:
            raise PostgresUnavailable(
                f"PostgreSQL JDBC driver not found (/usr/share/java/postgresql*.jar); {ENSURE_HINT}"
            )
        self.bin_dir, self.jdbc_jar = bin_dir, str(jar)
        self._runas = _RunAs()

        tmp_root = self._tmp_root()
        _reap_stale_servers(tmp_root, bin_dir)
        self.base_dir = Path(tempfile.mkdtemp(prefix=_TMP_PREFIX, dir=tmp_root))
        atexit.register(self.stop)
        try:
            (self.base_dir / _OWNER_FILE).write_text(f"{os.getpid()}\n")
            self.socket_dir.mkdir(mode=0o700)
            for path in (self.base_dir, self.socket_dir):
                self._runas.chown(path)
            os.chmod(self.base_dir, 0o700)
            self._initdb()
            self._start_server()
            self._bootstrap()
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - began
        return self

    def stop(self) -> None:
        """Stop the server (fast, then immediate, then SIGKILL) and delete its directory. Idempotent."""
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        base = self.base_dir
        if base is None:
            return
        self._terminate_server()
        shutil.rmtree(base, ignore_errors=True)
        self.base_dir = None

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # ----- running SQL

    def execute(self, sql: str, *, superuser: bool = False) -> str:
        """Run ``sql`` (one or more statements) with psql and return its unaligned, tuples-only output.

        By default it connects over TCP as ``lineage_user`` with its password (so the objects it
        creates belong to the role the tests use); ``superuser=True`` connects as ``postgres``
        through the private unix socket. Stops at the first error and raises ``RuntimeError``
        whose text never contains the password.
        """
        return self._psql(sql, superuser=superuser)

    def query(self, sql: str, *, superuser: bool = False) -> list[tuple[str | None, ...]]:
        """Rows of the result of ``sql`` (a single query) as tuples of text, SQL NULL as ``None``."""
        out = self._psql(sql, superuser=superuser, machine_readable=True)
        rows = []
        for record in out.split("\x1e"):
            if record.strip("\n") == "":
                continue
            rows.append(tuple(None if f == "\x1c" else f for f in record.strip("\n").split("\x1f")))
        return rows

    def log_text(self) -> str:
        """The server's log so far (for failure messages)."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    # ----- internals

    def _tmp_root(self) -> str:
        explicit = os.environ.get("LINEAGE_TEST_PG_TMPDIR")
        if explicit:
            return explicit
        # As root the postgres OS user must be able to traverse the parent; $TMPDIR may be private.
        return "/tmp" if self._runas is not None and self._runas.as_root else tempfile.gettempdir()

    def _env(self, *, password: bool) -> dict[str, str]:
        # A clean environment: no PGHOST/PGPORT/PGSERVICE/... from the caller, no locale surprises.
        env = {
            "PATH": f"{self.bin_dir}:/usr/sbin:/usr/bin:/sbin:/bin",
            "LC_ALL": "C",
            "LANG": "C",
            "TZ": "UTC",
            "HOME": str(self._base),
            "PGCONNECT_TIMEOUT": "10",
        }
        if password:
            env["PGPASSWORD"] = self.password
        return env

    def _run(
        self,
        args: list[str],
        *,
        what: str,
        input_text: str | None = None,
        password: bool = False,
        timeout: float = 60.0,
    ) -> subprocess.CompletedProcess[str]:
        assert self._runas is not None
        try:
            result = subprocess.run(
                args,
                input=input_text,
                stdin=None if input_text is not None else subprocess.DEVNULL,
                capture_output=True,
                text=True,
                env=self._env(password=password),
                cwd=self._base,
                timeout=timeout,
                check=False,
                **self._runas.kwargs(),  # type: ignore[arg-type]
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{what} timed out after {timeout:.0f}s") from None
        if result.returncode != 0:
            detail = self._redact((result.stderr or "") + (result.stdout or "")).strip()
            raise RuntimeError(f"{what} failed (exit {result.returncode}): {detail}")
        return result

    def _redact(self, text: str) -> str:
        return text.replace(self.password, "***") if self.password else text

    def _bin(self, name: str) -> str:
        return str(self.bin_dir / name)  # type: ignore[operator]

    def _initdb(self) -> None:
        self._run(
            [
                self._bin("initdb"),
                "-D",
                str(self.data_dir),
                "-U",
                SUPERUSER,
                "-E",
                "UTF8",
                "--locale=C",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--no-sync",
            ],
            what="initdb",
        )
        settings = {
            "listen_addresses": f"'{HOST}'",
            "unix_socket_directories": f"'{self.socket_dir}'",
            "max_connections": "40",
            "shared_buffers": "32MB",
            "fsync": "off",  # throwaway data: trade durability for speed
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "password_encryption": "'scram-sha-256'",
            "ssl": "off",
            "logging_collector": "off",
            "log_min_messages": "warning",
        }
        with (self.data_dir / "postgresql.conf").open("a") as conf:
            conf.write("\n# lineage_operators tests\n")
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())

    def pause(self) -> None:
        """Stop the server and keep its data: a database that goes down under its clients."""
        self._terminate_server()

    def resume(self) -> None:
        """Start the paused server again, on the same port, with its data."""
        self._start_server(port=self.port)

    def _start_server(self, port: int | None = None) -> None:
        # The postmaster is our own child (not daemonized through pg_ctl), so stop() can wait() for
        # it and nothing is left behind, not even a zombie for PID 1 to reap.
        assert self._runas is not None
        last_error = ""
        for _ in range(1 if port else _START_ATTEMPTS):  # a free port can be taken before it is bound
            self.port = port or _free_port()
            with self.log_path.open("ab") as log:
                self._runas.chown(self.log_path)
                self._proc = subprocess.Popen(
                    [self._bin("postgres"), "-D", str(self.data_dir), "-p", str(self.port)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=self._env(password=False),
                    cwd=self._base,
                    start_new_session=True,  # a Ctrl-C in the terminal reaches pytest, not the server
                    **self._runas.kwargs(),  # type: ignore[arg-type]
                )
            self._running = True
            if self._wait_ready():
                return
            self._terminate_server()
            last_error = self._redact(self.log_text())[-4000:]
            if "could not bind" not in last_error and "already in use" not in last_error:
                break
        raise PostgresUnavailable(f"could not start PostgreSQL; server log:\n{last_error}")

    def _wait_ready(self) -> bool:
        """Wait until the postmaster reports "ready" in postmaster.pid (what ``pg_ctl -w`` checks)."""
        assert self._proc is not None
        pid_file = self.data_dir / "postmaster.pid"
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                return False
            with contextlib.suppress(OSError):
                lines = pid_file.read_text().splitlines()
                # line 1: pid, line 8: status (PM_STATUS_READY is "ready" padded with spaces)
                if (
                    len(lines) >= 8
                    and lines[0].strip() == str(self._proc.pid)
                    and lines[7].strip() == "ready"
                ):
                    return True
            time.sleep(0.02)
        return False

    def _terminate_server(self) -> None:
        """Fast shutdown (SIGINT), then immediate (SIGQUIT), then SIGKILL; reaps the postmaster."""
        proc, self._proc = self._proc, None
        self._running = False
        if proc is None:
            return
        for sig, wait in ((signal.SIGINT, 30.0), (signal.SIGQUIT, 10.0), (signal.SIGKILL, 10.0)):
            if proc.poll() is not None:
                return
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(wait)
                return

    def _bootstrap(self) -> None:
        # Sent on stdin, not argv, so the password is not visible in `ps`.
        role = self.user.replace('"', '""')
        secret = self.password.replace("'", "''")
        self._psql(
            f"CREATE ROLE \"{role}\" LOGIN PASSWORD '{secret}';\n"
            f'CREATE DATABASE "{self.database}" OWNER "{role}";\n',
            superuser=True,
            dbname="postgres",
        )
        # Proves TCP + password authentication work before any test uses the server.
        if self._psql("SELECT 1", superuser=False).strip() != "1":
            raise PostgresUnavailable("PostgreSQL started but the test role cannot log in over TCP")

    def _psql(
        self, sql: str, *, superuser: bool, machine_readable: bool = False, dbname: str | None = None
    ) -> str:
        if not self._running:
            raise RuntimeError("PostgresServer is not started")
        if superuser:
            conn = ["-h", str(self.socket_dir), "-U", SUPERUSER]
        else:
            conn = ["-h", self.host, "-U", self.user]
        conn += ["-p", str(self.port), "-d", dbname or self.database]
        fmt = (
            ["-A", "-t", "-F", "\x1f", "-R", "\x1e", "-P", "null=\x1c"] if machine_readable else ["-A", "-t"]
        )
        result = self._run(
            [self._bin("psql"), "-X", "-q", "-w", "-v", "ON_ERROR_STOP=1", *conn, *fmt, "-f", "-"],
            what="psql",
            input_text=sql,
            password=not superuser,
        )
        return result.stdout


def _stop_cluster(bin_dir: Path, data_dir: Path, runas: _RunAs) -> None:
    """Stop the cluster in ``data_dir``: fast, then immediate, then SIGKILL the postmaster."""
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "LC_ALL": "C", "HOME": str(data_dir.parent)}
    for mode, wait in (("fast", 20), ("immediate", 10)):
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            result = subprocess.run(
                [
                    str(bin_dir / "pg_ctl"),
                    "-D",
                    str(data_dir),
                    "-m",
                    mode,
                    "-w",
                    "-t",
                    str(wait),
                    "-s",
                    "stop",
                ],
                capture_output=True,
                text=True,
                env=env,
                cwd=str(data_dir.parent),
                timeout=wait + 10,
                check=False,
                **runas.kwargs(),  # type: ignore[arg-type]
            )
            if result.returncode == 0 or not (data_dir / "postmaster.pid").exists():
                return
    with contextlib.suppress(OSError, ValueError, IndexError):
        pid = int((data_dir / "postmaster.pid").read_text().splitlines()[0])
        os.kill(pid, signal.SIGKILL)


def _reap_stale_servers(tmp_root: str, bin_dir: Path) -> None:
    """Stop and delete clusters left by test processes that died without tearing down (e.g. SIGKILL)."""
    for base in glob.glob(os.path.join(tmp_root, _TMP_PREFIX + "*")):
        owner = Path(base) / _OWNER_FILE
        try:
            pid = int(owner.read_text().strip())
        except (OSError, ValueError):
            continue  # not (yet) one of ours: leave it alone
        if _pid_alive(pid):
            continue
        with contextlib.suppress(Exception):
            data = Path(base) / "data"
            if (data / "postmaster.pid").exists():
                _stop_cluster(bin_dir, data, _RunAs())
            shutil.rmtree(base, ignore_errors=True)


# --------------------------------------------------------------------------- pytest fixtures


def make_postgres_fixture(scope: str = "session", name: str = "postgres") -> Callable[..., object]:
    """A pytest fixture of the given scope yielding a started ``PostgresServer``.

    It never skips: when PostgreSQL or the JDBC jar is missing it fails, saying to run
    scripts/ensure_test_services.sh.
    """

    def _fixture() -> Iterator[PostgresServer]:
        with started_or_failed(PostgresServer(), PostgresUnavailable) as server:
            yield server

    return pytest.fixture(scope=scope, name=name)(_fixture)  # type: ignore[call-overload]


postgres = make_postgres_fixture()
"""Session-scoped fixture: a started ``PostgresServer`` shared by every test of the session."""
