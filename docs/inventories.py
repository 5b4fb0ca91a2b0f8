"""Intersphinx inventories written from the installed packages (used by ``conf.py``; see its docstring).

An inventory (``objects.inv``) is what Sphinx reads to link a name such as ``airflow.sdk.BaseOperator`` to
another project's site. This writes one from what a package *exports* (``__all__``): each object under its
public name and under the module that defines it (autodoc names a base class by the latter), with the URL
``url(public name)`` relative to the site's root.
"""

from __future__ import annotations

import importlib
import inspect
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path


def exported(package: str) -> Iterator[tuple[str, str, str]]:
    """``(name, role, public name)`` of each public object of ``package``, and of the package itself."""
    module = importlib.import_module(package)
    for attr in getattr(module, "__all__", ()):
        try:
            obj = getattr(module, attr)
        except Exception:  # a lazily loaded name whose optional dependency is missing: no link
            continue
        if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
            continue
        role = "py:class" if inspect.isclass(obj) else "py:function"
        public = f"{package}.{attr}"
        yield public, role, public
        home, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if home and qualname and f"{home}.{qualname}" != public:
            yield f"{home}.{qualname}", role, public
    yield package, "py:module", package


def write_inventory(
    path: Path, project: str, version: str, packages: Iterable[str], url: Callable[[str], str]
) -> None:
    """Write the inventory of ``packages`` (format version 2, as Sphinx writes its own) to ``path``."""
    entries = sorted({entry for package in packages for entry in exported(package)})
    lines = "".join(f"{name} {role} 1 {url(public)} -\n" for name, role, public in entries)
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header.encode("utf-8") + zlib.compress(lines.encode("utf-8")))
