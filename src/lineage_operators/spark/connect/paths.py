"""Pure path rules of the Connect capture: a read's dataset roots from its paths and listed files."""

from __future__ import annotations

import fnmatch
import posixpath
from urllib.parse import unquote, urlsplit

GLOB = frozenset("*?[]{}")


def path_of(uri: str) -> str:
    parts = urlsplit(uri)
    path = unquote(parts.path) if parts.scheme else uri
    return path.rstrip("/") or "/"


def prefix_of(uri: str) -> str:
    """``file:///a/b`` -> ``file:``, ``s3a://bucket/k`` -> ``s3a://bucket``, ``/a`` -> ``""``."""
    parts = urlsplit(uri)
    if not parts.scheme:
        return ""
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else f"{parts.scheme}:"


def source_roots(paths: tuple[str, ...], files: list[str]) -> list[str]:
    """Pure: the datasets a classic session names for a read of ``paths`` that listed ``files``.

    Like Spark's file index: a glob stands for what it matched. Then, as openlineage-spark (and
    ``plan._directories``): a single root stays what it is, file or directory; with several roots,
    a root that is a file stands for its directory. Roots are qualified with the files' scheme.
    """
    file_paths = [(path_of(f), prefix_of(f)) for f in files]
    file_set = {p for p, _ in file_paths}
    expanded: list[tuple[str, str]] = []

    def add(path: str, prefix: str) -> None:
        if (path, prefix) not in expanded:
            expanded.append((path, prefix))

    for given in paths:
        path, prefix = path_of(given), prefix_of(given)
        if not any(ch in GLOB for ch in path):
            add(path, prefix or next((p for f, p in file_paths if f.startswith(path)), ""))
            continue
        depth = len(path.strip("/").split("/"))
        matched = False
        for file_path, file_prefix in file_paths:
            candidate = "/" + "/".join(file_path.strip("/").split("/")[:depth])
            if fnmatch.fnmatchcase(candidate, path):
                add(candidate, prefix or file_prefix)
                matched = True
        if not matched:
            add(path, prefix)  # nothing matched: named by the directory above the glob
    single = len(expanded) == 1
    roots: list[str] = []
    for path, prefix in expanded:
        named = posixpath.dirname(path) if not single and path in file_set else path
        root = f"{prefix}{named}" if prefix else named
        if root not in roots:
            roots.append(root)
    return roots


def has_glob(path: str) -> bool:
    return any(ch in GLOB for ch in path)


__all__ = ["GLOB", "has_glob", "path_of", "prefix_of", "source_roots"]
