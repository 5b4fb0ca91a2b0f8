"""Sphinx configuration of the docs site (`make docs`: MyST Markdown pages, autodoc of the public API).

Intersphinx without a network: the machines that build this site (developers' and CI) reach package
registries only, never a documentation site, so an ``objects.inv`` fetched from Airflow's, PySpark's or
OpenLineage's site would fail the ``-W`` build. Instead, each mapping reads an inventory this file writes
into the build folder from the *installed* packages: the public names each package exports (and the
module each really lives in, which autodoc prints for base classes), with the URL each site gives such an
object (``_SITES``). So the links exist only for objects the installed versions have, and no warning is
silenced. A build with network access may put ``None`` first in a mapping's locations to prefer the
site's own inventory.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent / "src"))

project = "lineage-operators"
author = "lineage-operators contributors"
copyright = "lineage-operators contributors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
html_theme = "alabaster"
html_title = "lineage-operators"

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False


def _version() -> str:
    text = (DOCS.parent / "src" / "lineage_operators" / "_version.py").read_text(encoding="utf-8")
    return text.split("=", 1)[1].strip().strip("\"'")


release = version = _version()

# --- intersphinx from the installed packages -----------------------------------------------------------

_INVENTORIES = Path(os.environ.get("LINEAGE_DOCS_INVENTORIES", DOCS.parent / ".build" / "docs-inventories"))


def _pyspark_url(name: str) -> str:
    # one page per object under reference/pyspark.sql/api/ (the layout of the 3.4 and later sites)
    return f"reference/pyspark.sql/api/{name}.html"


def _airflow_url(name: str) -> str:
    # the Task SDK's reference page, one anchor per public name
    return f"api.html#{name}"


def _openlineage_url(name: str) -> str:
    # openlineage-python publishes its reference inside the OpenLineage site (no Sphinx anchors): its page
    return ""


def _pyspark_base() -> str:
    from pyspark import __version__

    return f"https://spark.apache.org/docs/{__version__}/api/python/"


#: project -> (base URL, the public package whose ``__all__`` is listed, URL of one object)
_SITES: dict[str, tuple[Callable[[], str], str, Callable[[str], str]]] = {
    "pyspark": (_pyspark_base, "pyspark.sql", _pyspark_url),
    "airflow": (lambda: "https://airflow.apache.org/docs/task-sdk/stable/", "airflow.sdk", _airflow_url),
    "openlineage": (
        lambda: "https://openlineage.io/docs/client/python/",
        "openlineage.client",
        _openlineage_url,
    ),
}


def _exported(package: str) -> Iterator[tuple[str, str, str]]:
    """``(name, role, URL name)`` of each public object of ``package``, under its public name and under
    the module it is defined in."""
    module = importlib.import_module(package)
    for attr in getattr(module, "__all__", ()):
        try:
            obj = getattr(module, attr)
        except Exception:  # a lazily loaded name whose optional dependency is missing: no link
            continue
        if inspect.ismodule(obj):
            continue
        role = "py:class" if inspect.isclass(obj) else "py:function"
        public = f"{package}.{attr}"
        yield public, role, public
        home = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        if home and qualname and f"{home}.{qualname}" != public:
            yield f"{home}.{qualname}", role, public
    yield package, "py:module", package


def _write_inventory(path: Path, name: str, package: str, url: Callable[[str], str]) -> None:
    lines = [f"{obj} {role} 1 {url(target)} {obj}" for obj, role, target in sorted(set(_exported(package)))]
    header = f"# Sphinx inventory version 2\n# Project: {name}\n# Version: \n"
    header += "# The remainder of this file is compressed using zlib.\n"
    body = zlib.compress(("\n".join(lines) + "\n").encode("utf-8"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header.encode("utf-8") + body)


def _intersphinx_mapping() -> dict[str, tuple[str, tuple[str, ...]]]:
    mapping = {}
    for name, (base, package, url) in _SITES.items():
        inventory = _INVENTORIES / f"{name}.inv"
        _write_inventory(inventory, name, package, url)
        mapping[name] = (base(), (str(inventory),))
    return mapping


intersphinx_mapping = _intersphinx_mapping()
