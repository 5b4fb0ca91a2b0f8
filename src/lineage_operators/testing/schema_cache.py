"""The OpenLineage JSON schemas an event names, downloaded once and cached on disk.

Every OpenLineage event names its schema in ``schemaURL`` and every facet in ``_schemaURL``
(``https://openlineage.io/spec/...``, the version in the path).  A schema is fetched the first
time it is needed and stored under the user's cache directory at a path made of its URL
(``<cache>/lineage-operators/openlineage-schemas/openlineage.io/spec/2-0-2/OpenLineage.json``),
so a cached file never changes meaning and later runs validate offline.

Environment:

- ``LINEAGE_OPERATORS_SCHEMA_CACHE``: the cache directory instead of the user's cache dir;
- ``LINEAGE_OPERATORS_SCHEMA_MIRROR``: a base URL serving the same tree as
  ``https://openlineage.io/spec/`` (an internal mirror, or a local server in tests); URLs under
  that prefix are downloaded from the mirror, cached under their original URL.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

__all__ = [
    "CACHE_ENV_VAR",
    "MIRROR_ENV_VAR",
    "SPEC_URL_PREFIX",
    "SchemaUnavailableError",
    "cache_dir",
    "cache_path",
    "load_schema",
]

SPEC_URL_PREFIX = "https://openlineage.io/spec/"
CACHE_ENV_VAR = "LINEAGE_OPERATORS_SCHEMA_CACHE"
MIRROR_ENV_VAR = "LINEAGE_OPERATORS_SCHEMA_MIRROR"
_TIMEOUT_SECONDS = 15.0


class SchemaUnavailableError(RuntimeError):
    """A schema is neither cached nor downloadable."""


def _user_cache_root() -> Path:
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def cache_dir() -> Path:
    """Where downloaded schemas are kept (``$LINEAGE_OPERATORS_SCHEMA_CACHE`` or the user's cache dir)."""
    override = os.environ.get(CACHE_ENV_VAR)
    if override:
        return Path(override)
    return _user_cache_root() / "lineage-operators" / "openlineage-schemas"


def cache_path(url: str) -> Path:
    """The cache file of one schema URL: host and path, so each version has its own file."""
    parts = urllib.parse.urlsplit(url.split("#", 1)[0])
    segments = [s for s in parts.path.split("/") if s not in ("", ".", "..")]
    if not parts.netloc or not segments:
        raise SchemaUnavailableError(f"not a schema URL: {url!r}")
    return cache_dir().joinpath(parts.netloc, *segments)


def _download_url(url: str) -> str:
    mirror = os.environ.get(MIRROR_ENV_VAR)
    if mirror and url.startswith(SPEC_URL_PREFIX):
        return mirror.rstrip("/") + "/" + url[len(SPEC_URL_PREFIX) :]
    return url


def _download(url: str) -> Any:
    source = _download_url(url)
    if urllib.parse.urlsplit(source).scheme not in ("http", "https"):
        raise SchemaUnavailableError(f"cannot download {url}: only http(s) URLs are fetched")
    try:
        with urllib.request.urlopen(source, timeout=_TIMEOUT_SECONDS) as response:
            return json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise SchemaUnavailableError(f"could not download {source}: {exc}") from exc


def _write_atomically(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(document, out)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_schema(url: str) -> Any:
    """The schema document at ``url`` (fragment ignored): from the cache, else downloaded and cached."""
    path = cache_path(url)
    if path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            path.unlink(missing_ok=True)  # a damaged cache entry is downloaded again
    document = _download(url.split("#", 1)[0])
    with contextlib.suppress(OSError):  # a read-only cache still validates; it downloads again next time
        _write_atomically(path, document)
    return document
