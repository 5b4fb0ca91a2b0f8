"""A real S3 API on loopback for tests: S3Proxy with its filesystem backend, and Spark's S3A pointed at it.

S3Proxy (``org.gaul.s3proxy.Main``, jars pinned in tests/support/s3proxy_pins.py) serves the S3 REST API
over jclouds' ``filesystem`` blob store: a bucket is a folder under the server's temporary directory, an
object a file. It checks AWS signatures (v2 or v4) against one fixed test identity: the tests read and
write with credentials, as a user's job does, so they can show that the credentials never reach an event
or a log line of ours. Those test values are canaries (tests/support/canary.py): the suite-wide scan
fails the session wherever they turn up.

:func:`s3a_conf` is the Spark conf for S3A against the server (endpoint, path-style access, no SSL, the
simple credentials provider); :func:`s3a_jars` the pinned ``hadoop-aws`` and AWS SDK jars for the Hadoop
version of this process's pyspark. Buckets are made through the S3 API itself (:meth:`S3Server.
create_bucket`, a SigV4-signed ``PUT``), not by writing into the backend's folder.
"""

from __future__ import annotations

import atexit
import datetime
import hashlib
import hmac
import os
import re
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.canary import S3_ACCESS_KEY, S3_SECRET_KEY
from tests.support.iceberg_rest import java
from tests.support.ports import HOST, free_port
from tests.support.processes import log_tail, started_or_failed, stop_group, wait_until_answering
from tests.support.s3proxy_pins import S3PROXY_MAIN

REGION = "us-east-1"
START_TIMEOUT = 90.0
JVM_OPTIONS = ("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
#: The server's log: its warnings and errors, one line each (the log tail of an S3Unavailable).
LOGBACK = """<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="out"/></root>
</configuration>
"""


class S3Unavailable(RuntimeError):
    """S3Proxy's jars could not be had, or the server did not start; the message says why."""


def pyspark_hadoop_version() -> str:
    """The Hadoop version of this process's pyspark: its ``hadoop-client-api-<version>.jar``."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    found = [
        m.group(1)
        for p in jars.glob("hadoop-client-api-*.jar")
        if (m := re.search(r"-(\d[\d.]*)\.jar$", p.name))
    ]
    if len(found) != 1:
        raise S3Unavailable(f"pyspark's jars ({jars}) hold no single hadoop-client-api jar: {found}")
    return found[0]


def s3a_jars() -> list[Path]:
    """The pinned S3A jars (``hadoop-aws`` and the AWS SDK modules) of this pyspark's Hadoop version."""
    from tests.support.maven_jars import S3A_NAMES, JarUnavailable, fetch_all

    hadoop = pyspark_hadoop_version()
    if hadoop not in S3A_NAMES:
        raise S3Unavailable(
            f"no S3A jars are pinned for Hadoop {hadoop} (pinned: {', '.join(S3A_NAMES)}; "
            "tests/support/s3_pins.py says why a line is missing)"
        )
    try:
        return fetch_all(S3A_NAMES[hadoop])
    except JarUnavailable as error:
        raise S3Unavailable(f"the pinned S3A jars for Hadoop {hadoop} are unavailable: {error}") from None


def s3a_conf(endpoint: str) -> dict[str, str]:
    """Spark conf for S3A against ``endpoint``: path-style, plain HTTP, the fixed test credentials, no bulk
    delete, few and short retries (a server that went away fails a test in seconds, not after minutes), no
    cleanup of a file write's ``_temporary`` folder."""
    prefix = "spark.hadoop.fs.s3a."
    return {
        f"{prefix}impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        f"{prefix}endpoint": endpoint,
        f"{prefix}endpoint.region": REGION,
        f"{prefix}path.style.access": "true",
        f"{prefix}connection.ssl.enabled": "false",
        f"{prefix}aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        f"{prefix}access.key": S3_ACCESS_KEY,
        f"{prefix}secret.key": S3_SECRET_KEY,
        # S3Proxy answers a bulk DeleteObjects carrying SDK v2's checksum headers with 501: one DELETE a key
        f"{prefix}multiobjectdelete.enable": "false",
        # Hadoop 3.3's S3A deletes the parent folders' markers after every write; the filesystem backend's
        # marker of a folder is the folder, which it cannot remove while it holds objects (it retries for
        # minutes). 3.4+ keeps markers by default.
        f"{prefix}directory.marker.retention": "keep",
        # A job's commit deletes its `_temporary` folder, the folder's own marker first: the filesystem
        # backend cannot remove a folder that still holds the markers below it and retries for 10 s (jclouds'
        # Utils.delete, ten tries a second apart) on every file write. A marker left behind costs nothing.
        "spark.hadoop.mapreduce.fileoutputcommitter.cleanup.skipped": "true",
        f"{prefix}attempts.maximum": "2",
        f"{prefix}retry.limit": "2",
        f"{prefix}connection.establish.timeout": "5000",
        f"{prefix}connection.timeout": "20000",
    }


def _sign(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signed_headers(method: str, host: str, path: str, body: bytes = b"") -> dict[str, str]:
    """AWS Signature Version 4 headers for a request without a query string (what ``create_bucket`` and
    ``put_object`` send): the test identity, region :data:`REGION`, service ``s3``."""
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload = hashlib.sha256(body).hexdigest()
    headers = {"host": host, "x-amz-content-sha256": payload, "x-amz-date": stamp}
    names = ";".join(sorted(headers))
    canonical = "\n".join(
        [
            method,
            urllib.parse.quote(path),
            "",
            *(f"{k}:{headers[k]}" for k in sorted(headers)),
            "",
            names,
            payload,
        ]
    )
    scope = f"{day}/{REGION}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + S3_SECRET_KEY).encode()
    for part in (day, REGION, "s3", "aws4_request"):
        key = _sign(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    authorization = (
        f"AWS4-HMAC-SHA256 Credential={S3_ACCESS_KEY}/{scope}, SignedHeaders={names}, Signature={signature}"
    )
    return {"x-amz-content-sha256": payload, "x-amz-date": stamp, "Authorization": authorization}


class S3Server:
    """S3Proxy on a free loopback port over a filesystem backend in a temporary directory."""

    def __init__(self) -> None:
        self.port = 0
        self.root: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def log(self) -> Path:
        assert self.root is not None, "S3Server.start() first"
        return self.root / "s3proxy.log"

    @property
    def blobs(self) -> Path:
        """The backend's folder: one sub-folder per bucket."""
        assert self.root is not None, "S3Server.start() first"
        return self.root / "blobs"

    def start(self) -> S3Server:
        from tests.support.maven_jars import S3PROXY_NAMES, JarUnavailable, fetch_all

        try:
            jars = fetch_all(S3PROXY_NAMES)
        except JarUnavailable as error:
            raise S3Unavailable(f"S3Proxy's pinned jars are unavailable: {error}") from None
        atexit.register(self.stop)  # a process that ends without stop(): no server outlives it
        self.root = Path(tempfile.mkdtemp(prefix="lineage-s3-"))
        self.blobs.mkdir()
        self.port = free_port()
        properties = self.root / "s3proxy.conf"
        properties.write_text(
            "".join(
                f"{key}={value}\n"
                for key, value in {
                    "s3proxy.endpoint": self.endpoint,
                    "s3proxy.authorization": "aws-v2-or-v4",
                    "s3proxy.identity": S3_ACCESS_KEY,
                    "s3proxy.credential": S3_SECRET_KEY,
                    "jclouds.provider": "filesystem",
                    "jclouds.filesystem.basedir": str(self.blobs),
                }.items()
            )
        )
        classpath = os.pathsep.join(str(jar) for jar in jars)
        try:
            runtime = java()
        except RuntimeError as error:
            raise S3Unavailable(f"S3Proxy cannot start: {error}") from None
        logging = self.root / "logback.xml"  # S3Proxy ships no logback config: logback's default is DEBUG
        logging.write_text(LOGBACK)
        command = [
            runtime,
            *JVM_OPTIONS,
            f"-Dlogback.configurationFile={logging}",
            "-cp",
            classpath,
            S3PROXY_MAIN,
            "--properties",
            str(properties),
        ]
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                command,
                cwd=self.root,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        def answers() -> bool:
            try:  # any S3 answer (an anonymous request is refused: 403) says the server is up
                with urllib.request.urlopen(f"{self.endpoint}/", timeout=2):
                    return True
            except urllib.error.HTTPError:
                return True

        wait_until_answering(
            self._process,
            answers,
            name="S3Proxy",
            log=self.log,
            timeout=START_TIMEOUT,
            unavailable=S3Unavailable,
        )

    def request(self, method: str, path: str, body: bytes = b"") -> int:
        """A signed request (``path`` quoted as S3 expects, no query string); its HTTP status."""
        host = f"{HOST}:{self.port}"
        headers = signed_headers(method, host, path, body)
        request = urllib.request.Request(
            f"{self.endpoint}{urllib.parse.quote(path)}", data=body or None, method=method, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)

    def create_bucket(self, bucket: str) -> None:
        """Create ``bucket`` (an existing one is kept)."""
        status = self.request("PUT", f"/{bucket}")
        if status not in (200, 409):
            raise S3Unavailable(f"creating bucket {bucket!r} answered HTTP {status}:\n{self.log_tail()}")

    def put_object(self, bucket: str, key: str, body: bytes) -> None:
        status = self.request("PUT", f"/{bucket}/{key}", body)
        if status != 200:
            raise S3Unavailable(f"PUT s3://{bucket}/{key} answered HTTP {status}:\n{self.log_tail()}")

    def keys(self, bucket: str) -> list[str]:
        """The keys of ``bucket``'s objects, read from the backend's folder (sorted)."""
        base = self.blobs / bucket
        return sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file())

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log, lines) if self.root is not None else "<not started>"

    def stop(self) -> None:
        """End the server's process group and remove its directory (the buckets with it)."""
        process, self._process = self._process, None
        stop_group(process)
        root, self.root = self.root, None
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """S3Proxy for the whole session; one that cannot start fails the tests that need it (no skip)."""
    with started_or_failed(S3Server(), S3Unavailable) as server:
        yield server
