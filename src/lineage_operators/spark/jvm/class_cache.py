"""The disk cache of the Java classes this package compiles in the driver's JVM (pure Python, no JVM).

Airflow runs each task in a fresh process, and for a local Spark session a fresh driver JVM: compiling
``jvm/java/*.java`` with Janino cost every task ~1.2 CPU-s (Handles alone ~0.66 s wall on the task's
side). The bytecode Janino produces depends only on the source text and on the APIs it is linked
against, so it is kept on disk keyed by (Spark version, Scala version, Java version, the source's
sha256) and later JVMs define the classes from those bytes (:mod:`~lineage_operators.spark.jvm.classes`).

The cache can never fail or slow a task: every problem (a directory that cannot be made or read, a
file that is truncated, tampered with or written by another user, a disk that is full) is logged at
DEBUG and the classes are compiled as before. Files are written whole (temporary file, then an atomic
rename), carry the sha256 of their classes, and are read only when owned by this user and writable by
no one else (they become code in the driver's JVM).

``LINEAGE_OPERATORS_JVM_CLASS_CACHE``: a directory instead of the user's cache directory
(``$XDG_CACHE_HOME/lineage-operators/jvm-classes``, ``~/.cache/...`` when unset), or ``off`` to
compile in every JVM.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lineage_operators._logging import get_logger

log = get_logger(__name__)

ENV_VAR = "LINEAGE_OPERATORS_JVM_CLASS_CACHE"
OFF_VALUES = frozenset({"off", "0", "false", "no", "none", "disabled"})
FORMAT = 1
#: Every class file starts with these four bytes.
CLASS_MAGIC = b"\xca\xfe\xba\xbe"
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")


@dataclass(frozen=True)
class CacheKey:
    """What compiled bytes depend on: the source text and the JVM they were linked in."""

    class_name: str
    source_sha256: str
    spark_version: str
    scala_version: str
    java_version: str

    @classmethod
    def of(cls, class_name: str, source: str, spark: str, scala: str, java: str) -> CacheKey:
        digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
        return cls(class_name, digest, spark, scala, java)

    def folder(self) -> str:
        """One folder per JVM flavour, so a line's files are easy to find and remove."""
        return _safe(f"spark-{self.spark_version}_scala-{self.scala_version}_java-{self.java_version}")

    def file_name(self) -> str:
        return _safe(f"{self.class_name}-{self.source_sha256[:24]}.json")


def _safe(name: str) -> str:
    """A file-name-safe form of a version or class name (a version string comes from the JVM)."""
    return _UNSAFE.sub("_", name)[:200]


def _user_cache_root(env: Mapping[str, str]) -> Path:
    if sys.platform == "win32":
        return Path(env.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    return Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def cache_root(environ: Mapping[str, str] | None = None) -> Path | None:
    """The cache's directory, or None when ``LINEAGE_OPERATORS_JVM_CLASS_CACHE`` turns it off."""
    env = os.environ if environ is None else environ
    value = env.get(ENV_VAR, "").strip()
    if value.lower() in OFF_VALUES:
        return None
    if value:
        return Path(value).expanduser()
    try:
        return _user_cache_root(env) / "lineage-operators" / "jvm-classes"
    except Exception as exc:  # no home directory: nothing to cache into
        log.debug("lineage capture: no user cache directory for compiled classes (%s)", exc)
        return None


def cache_path(root: Path, key: CacheKey) -> Path:
    return root / key.folder() / key.file_name()


def digest(classes: Mapping[str, bytes]) -> str:
    """sha256 over the classes' names and bytes, in name order (what a file's ``sha256`` holds)."""
    hasher = hashlib.sha256()
    for name in sorted(classes):
        for part in (name.encode("utf-8"), classes[name]):
            hasher.update(len(part).to_bytes(8, "big"))
            hasher.update(part)
    return hasher.hexdigest()


def encode(key: CacheKey, classes: Mapping[str, bytes]) -> bytes:
    """A cache file's content: the key, the classes (base64) and their digest."""
    document = {
        "format": FORMAT,
        "key": key.__dict__,
        "classes": {name: base64.b64encode(data).decode("ascii") for name, data in sorted(classes.items())},
        "sha256": digest(classes),
    }
    return json.dumps(document, sort_keys=True).encode("utf-8")


def decode(key: CacheKey, content: bytes) -> dict[str, bytes] | None:
    """The classes in ``content`` if it is a whole file of ``key`` whose digest matches, else None."""
    try:
        document = json.loads(content)
        if document.get("format") != FORMAT or document.get("key") != key.__dict__:
            return None
        classes = {
            str(name): base64.b64decode(text, validate=True) for name, text in document["classes"].items()
        }
    except Exception:  # truncated, not JSON, not base64: not ours to use
        return None
    if key.class_name not in classes or any(not data.startswith(CLASS_MAGIC) for data in classes.values()):
        return None
    return classes if digest(classes) == document.get("sha256") else None


def _trusted(path: Path) -> bool:
    """Owned by this user and writable by nobody else: its bytes become code in the driver's JVM."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # no POSIX owners (Windows): the user's own profile directory
        return True
    info = path.stat()
    return info.st_uid == getuid() and not info.st_mode & 0o022


def load(root: Path, key: CacheKey) -> dict[str, bytes] | None:
    """The cached classes of ``key``, or None (absent, unreadable, untrusted, corrupt: logged at DEBUG)."""
    path = cache_path(root, key)
    try:
        if not path.is_file():
            return None
        if not _trusted(path):
            log.debug("lineage capture: ignoring %s: not owned by this user or writable by others", path)
            return None
        content = path.read_bytes()
    except OSError as exc:
        log.debug("lineage capture: cannot read compiled classes from %s (%s)", path, exc)
        return None
    classes = decode(key, content)
    if classes is None:
        log.debug("lineage capture: ignoring %s: not a whole, matching cache file", path)
    return classes


def store(root: Path, key: CacheKey, classes: Mapping[str, bytes]) -> Path | None:
    """Write ``classes`` under ``key`` atomically (a temporary file renamed into place); the path,
    or None when it cannot be written (logged at DEBUG: the next JVM compiles again)."""
    path = cache_path(root, key)
    temporary: str | None = None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(encode(key, classes))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)  # readers see the old file or the whole new one, never a part
        temporary = None
        return path
    except OSError as exc:
        log.debug("lineage capture: cannot write compiled classes to %s (%s)", path, exc)
        return None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


__all__ = ["ENV_VAR", "CacheKey", "cache_path", "cache_root", "decode", "digest", "encode", "load", "store"]
