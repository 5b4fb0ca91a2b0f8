"""Marquez's web UI (upstream 0.51.1, ``../shared/marquez/web-src``) built with npm and served against a
running :class:`~tests.support.marquez.MarquezServer`: what a person opens to look at the lineage.

:func:`build` copies the source to ``~/.cache/lineage-operators/marquez-web/<source hash>``
(``$LINEAGE_MARQUEZ_CACHE``'s sibling ``marquez-web`` when that is set), installs exactly what
``package-lock.json`` pins (``npm ci``) and runs upstream's production build (``npm run build``, webpack:
~3 minutes on 2 cores, once per source). The source is pinned like the server's: its hash must be
:data:`SOURCE_SHA256`. :class:`MarquezWeb` serves the built app with upstream's own ``setupProxy.js``
(express: the app, and ``/api/v1`` proxied to the API), on a free loopback port.

``python -m tests.support.marquez build`` builds it with the server (``make test`` does).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.marquez import (
    MarquezServer,
    MarquezUnavailable,
    cache_root,
    publish,
    source_dir,
    source_hash,
)
from tests.support.ports import HOST, free_port
from tests.support.processes import log_tail, started_or_failed, stop_group, wait_until_answering

#: The hash of ``web-src`` (every file's path and SHA-256, sorted: :func:`~tests.support.marquez.source_hash`)
#: at upstream's tag 0.51.1; its ``package-lock.json`` pins every npm package.
SOURCE_SHA256 = "90bc3bd143bdc0a37603007a919b4ef7ba470ceb5aa3dca0bbc240c8a9d664b1"
START_TIMEOUT = 60.0
BUILD_TIMEOUT = 1800


def web_source() -> Path:
    return source_dir() / "web-src"


def web_cache_root() -> Path:
    return cache_root().parent / "marquez-web"


def _npm(args: list[str], cwd: Path, log: Path) -> None:
    with log.open("ab") as out:
        done = subprocess.run(
            ["npm", *args, "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            # NODE_ENV=production in a person's shell would make `npm ci` leave out webpack itself
            env={k: v for k, v in os.environ.items() if k != "NODE_ENV"},
            timeout=BUILD_TIMEOUT,
            check=False,
        )
    if done.returncode != 0:
        raise MarquezUnavailable(f"`npm {' '.join(args)}` for Marquez's web UI failed:\n{log_tail(log)}")


def build() -> Path:
    """The folder with the built app (``dist/``) and upstream's ``setupProxy.js``, built once per source."""
    source = web_source()
    if not (source / "package-lock.json").is_file():
        raise MarquezUnavailable(f"no Marquez web UI source at {source} (set LINEAGE_MARQUEZ_SOURCE)")
    found = source_hash(source)
    if found != SOURCE_SHA256:
        raise MarquezUnavailable(
            f"the Marquez web UI source in {source} is not the pinned tree (hash {found}, pinned "
            f"{SOURCE_SHA256}): update SOURCE_SHA256 in tests/support/marquez_web.py only with a new version"
        )
    out = web_cache_root() / found[:16]
    if (out / ".built").is_file():
        return out
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        needs = " and ".join(missing)
        raise MarquezUnavailable(f"building Marquez's web UI needs {needs}: run `make services`")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=out.parent))
    try:
        app = staging / "app"
        # the shared source is read-only where CI runs: a writable copy (npm writes beside package.json)
        shutil.copytree(source, app, copy_function=shutil.copyfile)
        for folder in [app, *(p for p in app.rglob("*") if p.is_dir())]:
            folder.chmod(0o755)
        log = staging / "build.log"
        _npm(["ci"], app, log)
        _npm(["run", "build"], app, log)
        if not (app / "dist" / "index.html").is_file():
            raise MarquezUnavailable(f"the web UI build wrote no dist/index.html:\n{log_tail(log)}")
        (app / ".built").write_text(f"{found}\n")
        publish(app, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not (out / ".built").is_file():
        raise MarquezUnavailable(f"the web UI build left no {out}")
    return out


class MarquezWeb:
    """Upstream's UI server (``node setupProxy.js``) for ``api``, on a free loopback port: ``url``."""

    def __init__(self, api: MarquezServer) -> None:
        self.api = api
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._log: Path | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, port: int | None = None) -> MarquezWeb:
        app = build()
        atexit.register(self.stop)
        self.port = port or free_port()
        handle, name = tempfile.mkstemp(prefix="lineage-marquez-web-", suffix=".log")
        os.close(handle)
        self._log = Path(name)
        env = {
            **os.environ,
            "MARQUEZ_HOST": HOST,
            "MARQUEZ_PORT": str(self.api.port),
            "WEB_PORT": str(self.port),
        }
        with self._log.open("ab") as log:
            self._process = subprocess.Popen(
                ["node", "setupProxy.js"],
                cwd=app,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

        def answers() -> bool:
            with urllib.request.urlopen(f"{self.url}/healthcheck", timeout=2):
                return True

        try:
            wait_until_answering(
                self._process,
                answers,
                name="Marquez's web UI",
                log=self._log,
                timeout=START_TIMEOUT,
                unavailable=MarquezUnavailable,
            )
        except MarquezUnavailable:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        process, self._process = self._process, None
        stop_group(process, 10)
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None


@pytest.fixture(scope="session")
def marquez_web(marquez: MarquezServer) -> Iterator[MarquezWeb]:
    """The UI over the session's Marquez; fails, never skips, when it cannot be built or served."""
    with started_or_failed(MarquezWeb(marquez), MarquezUnavailable) as web:
        yield web
