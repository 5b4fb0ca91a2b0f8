"""The real Marquez (the OpenLineage reference backend, upstream 0.51.1) as a test service on loopback.

No registry serves a runnable Marquez server, so the server is built from upstream's own source, which
sits beside the project in ``../shared/marquez`` (``$LINEAGE_MARQUEZ_SOURCE`` overrides; its README says
how it was taken from upstream). That folder is read-only where CI runs: :func:`build` passes writable
places to its ``build.sh`` and keeps the server jar and its ``lib/`` in ``~/.cache/lineage-operators/
marquez/<source hash>`` (``$LINEAGE_MARQUEZ_CACHE`` overrides), with Maven's own repository for the
dependencies. The source tree is pinned like the test-only jars: its hash must be :data:`SOURCE_SHA256`,
or the build stops and says so (a different Marquez would make the tests say nothing about this one).

:class:`MarquezServer` starts the server the way upstream's image does, on its own throwaway PostgreSQL
cluster (``tests/support/postgres.py``: Marquez runs its 91 migrations into the empty database on
start), on free loopback ports; stopping it stops both and deletes the cluster. The JVM records a
class-data archive the first time (in the cache, beside the jar) and loads it afterwards: the start
goes from ~10 s to ~5 s on 2 cores. Anything that keeps it from starting raises
:class:`MarquezUnavailable` with the reason and the end of the server's log: the fixtures fail with
that, they never skip.

``python -m tests.support.marquez build`` builds it and its web UI (tests/support/marquez_web.py; ``make
test`` does, before the suites);
``python -m tests.support.marquez serve`` is ``make marquez``: the server for a person, until Ctrl-C.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.ports import HOST, free_port, is_free
from tests.support.postgres import PostgresServer, PostgresUnavailable
from tests.support.processes import log_tail, started_or_failed, stop_group, wait_until_answering

ROOT = Path(__file__).resolve().parents[2]
VERSION = "0.51.1"
#: The hash of ``marquez-src`` (every file's path and SHA-256, sorted) at upstream's tag 0.51.1 with the
#: folder's Maven build: :func:`source_hash`.
SOURCE_SHA256 = "8cc423658896ecb724343e9466bd1471b6f942e142d8ce62e68c5597553941a1"
JAR_NAME = f"marquez-api-{VERSION}.jar"
DATABASE = "marquez"
DB_USER = "marquez"
DB_PASSWORD = "marquez-db-Pa55"  # the server's own database: never in an event or a task's log
START_TIMEOUT = 180.0
STOP_TIMEOUT = 30.0
JVM_OPTIONS = ("-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Duser.timezone=UTC")


class MarquezUnavailable(RuntimeError):
    """Marquez could not be built or started; the message says why."""


def source_dir() -> Path:
    """The folder with upstream's source (``marquez-src``) and its ``build.sh``."""
    return Path(os.environ.get("LINEAGE_MARQUEZ_SOURCE") or ROOT.parent / "shared" / "marquez")


def cache_root() -> Path:
    return Path(
        os.environ.get("LINEAGE_MARQUEZ_CACHE") or Path.home() / ".cache" / "lineage-operators" / "marquez"
    )


def source_hash(tree: Path) -> str:
    """SHA-256 over every file of ``tree``: its relative path, then its content's SHA-256, sorted by path."""
    digest = hashlib.sha256()
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        content = hashlib.sha256(path.read_bytes()).digest()
        digest.update(str(path.relative_to(tree)).encode() + b"\0" + content)
    return digest.hexdigest()


def publish(built: Path, out: Path) -> None:
    """Put a complete build in its cache folder, replacing whatever half a build or another process left
    there; when another process put its own complete build there first, that one stays."""
    if out.exists():
        shutil.rmtree(out, ignore_errors=True)
    with contextlib.suppress(OSError):
        built.rename(out)


def build() -> Path:
    """The server jar (``lib/`` beside it), built once per source into the cache; later calls find it."""
    source = source_dir()
    tree = source / "marquez-src"
    if not (source / "build.sh").is_file() or not tree.is_dir():
        raise MarquezUnavailable(
            f"no Marquez source at {source} (build.sh and marquez-src/): the tests build the real server "
            "from it; set LINEAGE_MARQUEZ_SOURCE to the folder that holds them"
        )
    found = source_hash(tree)
    if found != SOURCE_SHA256:
        raise MarquezUnavailable(
            f"the Marquez source in {tree} is not the pinned {VERSION} tree (hash {found}, pinned "
            f"{SOURCE_SHA256}): update SOURCE_SHA256 in tests/support/marquez.py only with the new version"
        )
    out = cache_root() / found[:16]
    jar = out / JAR_NAME
    if jar.is_file() and (out / ".built").is_file():
        return jar
    if shutil.which("mvn") is None:
        raise MarquezUnavailable("building Marquez needs `mvn` (README: Install, Java 17 and Maven)")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=out.parent))
    try:
        repository = os.environ.get("MAVEN_REPO_LOCAL") or str(Path.home() / ".m2" / "repository")
        done = subprocess.run(
            ["bash", str(source / "build.sh"), str(tree), str(staging)],
            env={**os.environ, "MAVEN_REPO_LOCAL": repository},
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        if done.returncode != 0 or not (staging / JAR_NAME).is_file():
            log = staging / "build.log"
            tail = log.read_text(errors="replace")[-3000:] if log.is_file() else done.stdout + done.stderr
            raise MarquezUnavailable(f"building Marquez {VERSION} from {tree} failed:\n{tail}")
        (staging / ".built").write_text(f"{VERSION} {found}\n")
        publish(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not jar.is_file():
        raise MarquezUnavailable(f"the Marquez build left no {jar}")
    return jar


class MarquezServer:
    """Marquez on its own PostgreSQL, on free loopback ports. ``url`` is the API's base (what the
    provider's HTTP transport and the harness take); :meth:`get` reads its API as JSON.

    :meth:`stop_server` / :meth:`start_server` stop and start the server alone (same ports, same data):
    a backend that goes down mid-DAG and comes back."""

    def __init__(self) -> None:
        self.port = 0
        self.admin_port = 0
        self.jar: Path | None = None
        self.database: PostgresServer | None = None
        self.log_path: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._work: Path | None = None
        self._recording: Path | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, port: int | None = None) -> MarquezServer:
        """``port``: the API's port when it is free (a person's bookmark), else any free one."""
        began = time.monotonic()
        self.jar = build()
        atexit.register(self.stop)  # a process that ends without stop(): no server outlives it
        self._work = Path(tempfile.mkdtemp(prefix="lineage-marquez-"))
        self.log_path = self._work / "marquez.log"
        self.database = PostgresServer(database=DATABASE, user=DB_USER, password=DB_PASSWORD)
        try:
            self.database.start()
            self.port = port if port is not None and is_free(port) else free_port()
            self.admin_port = free_port()
            self.start_server(deadline=began + START_TIMEOUT)
        except PostgresUnavailable as exc:
            self.stop()
            raise MarquezUnavailable(f"Marquez's PostgreSQL could not start: {exc}") from None
        except BaseException:
            self.stop()
            raise
        return self

    def start_server(self, *, deadline: float | None = None) -> None:
        """Start the server process (its database already up) and wait until its API answers."""
        if self.jar is None or self.database is None or self.log_path is None:
            raise RuntimeError("MarquezServer.start() first")
        archive = self.jar.parent / "classes.jsa"
        recording = self.jar.parent / f".classes-{os.getpid()}.jsa"
        cds = (
            [f"-XX:SharedArchiveFile={archive}"]
            if archive.is_file()
            else [f"-XX:ArchiveClassesAtExit={recording}"]
        )
        env = {
            **os.environ,
            "MARQUEZ_BIND": HOST,
            "MARQUEZ_PORT": str(self.port),
            "MARQUEZ_ADMIN_PORT": str(self.admin_port),
            "POSTGRES_HOST": HOST,
            "POSTGRES_PORT": str(self.database.port),
            "POSTGRES_DB": DATABASE,
            "POSTGRES_USER": DB_USER,
            "POSTGRES_PASSWORD": DB_PASSWORD,
            "LOG_LEVEL": "WARN",
        }
        command = [
            "java",
            *JVM_OPTIONS,
            *cds,
            "-Xlog:cds=off",
            "-Xlog:cds+dynamic=off",
            "-Dlog4j2.formatMsgNoLookups=true",
            "-jar",
            str(self.jar),
            "server",
            str(source_dir() / "marquez-src" / "marquez.local.yml"),
        ]
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(
                command,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._recording = None if archive.is_file() else recording
        self._wait_ready(deadline or time.monotonic() + START_TIMEOUT)

    def _wait_ready(self, deadline: float) -> None:
        wait_until_answering(
            self._process,
            lambda: self.get("/api/v1/namespaces", timeout=2) is not None,
            name="Marquez",
            log=self.log_path,
            timeout=deadline - time.monotonic(),
            unavailable=MarquezUnavailable,
            interval=0.25,
        )

    def stop_server(self) -> None:
        """SIGTERM (the JVM writes its class-data archive then), SIGKILL if it lingers."""
        process, self._process = self._process, None
        stop_group(process, STOP_TIMEOUT)
        recording, self._recording = self._recording, None
        if recording is not None and recording.is_file():
            if recording.stat().st_size > 0 and self.jar is not None:
                with contextlib.suppress(OSError):
                    recording.replace(self.jar.parent / "classes.jsa")
            recording.unlink(missing_ok=True)

    def stop(self) -> None:
        """Stop the server and its database; delete the database's cluster and the work folder."""
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        self.stop_server()
        if self.database is not None:
            self.database.stop()
            self.database = None
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self._work = None

    def __enter__(self) -> MarquezServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _log_tail(self) -> str:
        return log_tail(self.log_path) if self.log_path is not None else "<no log>"

    def post(self, events: Iterable[dict[str, Any]]) -> None:
        """Store events as an OpenLineage client does (``POST /api/v1/lineage``), one by one, in order."""
        for event in events:
            request = urllib.request.Request(
                f"{self.url}/api/v1/lineage",
                data=json.dumps(event).encode(),
                headers={"Content-Type": "application/json"},
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                response.read()

    def get(self, path: str, params: dict[str, Any] | None = None, *, timeout: float = 30) -> Any:
        """``GET`` an API path (``/api/v1/...``), JSON decoded; ``urllib.error.HTTPError`` on an error."""
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        request = urllib.request.Request(f"{self.url}{path}{query}", headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read() or b"null")


def assert_table_drawn_as_its_location(marquez: MarquezServer, table: dict[str, Any], writer: str) -> None:
    """A catalog table an event names by its location, with its table name as a symlink: Marquez draws
    the location's node (``writer``, a job node id, writes it), and the table name finds the same
    dataset, with the same fields."""
    quote = functools.partial(urllib.parse.quote, safe="")
    node = marquez.get(f"/api/v1/namespaces/{quote(table['namespace'])}/datasets/{quote(table['name'])}")
    assert node["name"] == table["name"]
    (symlink,) = table["facets"]["symlinks"]["identifiers"]
    assert node["facets"]["symlinks"]["identifiers"] == [symlink]
    by_table_name = marquez.get(
        f"/api/v1/namespaces/{quote(symlink['namespace'])}/datasets/{quote(symlink['name'])}"
    )
    assert by_table_name["physicalName"] == table["name"]
    assert by_table_name["fields"] == node["fields"]
    assert [f["name"] for f in node["fields"]] == [f["name"] for f in table["facets"]["schema"]["fields"]]
    graph = marquez.get("/api/v1/lineage", {"nodeId": writer, "depth": 1})["graph"]
    edges = {e["destination"] for n in graph if n["id"] == writer for e in n["outEdges"]}
    assert f"dataset:{table['namespace']}:{table['name']}" in edges
    table_node = f"dataset:{symlink['namespace']}:{symlink['name']}"
    assert table_node not in {n["id"] for n in graph}  # the table name has no node of its own


@pytest.fixture(scope="session")
def marquez() -> Iterator[MarquezServer]:
    """One Marquez per test process (tests keep apart by their own OpenLineage namespace and paths).
    It fails, never skips, when Marquez cannot be built or started."""
    with started_or_failed(MarquezServer(), MarquezUnavailable) as server:
        yield server


def main(argv: list[str]) -> int:
    if argv == ["build"]:
        from tests.support import marquez_web

        try:
            print(build())
            print(marquez_web.build())
        except MarquezUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    if argv == ["serve"]:
        from tests.support.marquez_demo import serve

        return serve()
    print("usage: python -m tests.support.marquez build | serve", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
