"""Sphinx configuration of the docs site (`make docs`: MyST Markdown pages, autodoc of the public API).

Intersphinx without a network: the machines that build this site (developers' and CI) reach package
registries only, never a documentation site, so an ``objects.inv`` fetched from Airflow's, PySpark's or
OpenLineage's site would fail the ``-W`` build. Instead each mapping reads an inventory written into the
build folder from the *installed* packages (``inventories.py``): the names each package exports, with the
URL its site gives such an object (``_SITES``). Links therefore exist only for objects the installed
versions have, and no warning is silenced. A build with network access may put ``None`` first in a
mapping's locations (``_intersphinx_mapping``) to prefer the site's own inventory, the local one staying
the fallback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from importlib.metadata import version as installed_version
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS), str(DOCS.parent / "src")]

from inventories import write_inventory  # noqa: E402  (docs/ is put on the path just above)

from lineage_operators import __version__  # noqa: E402

project = "lineage-operators"
author = "lineage-operators contributors"
copyright = "lineage-operators contributors"
release = version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
myst_heading_anchors = 3
html_theme = "alabaster"
html_title = "lineage-operators"

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_numpy_docstring = False

_INVENTORIES = Path(os.environ.get("LINEAGE_DOCS_INVENTORIES", DOCS.parent / ".build" / "docs-inventories"))


def _pyspark_site() -> str:
    return f"https://spark.apache.org/docs/{installed_version('pyspark')}/api/python/"


#: intersphinx name -> (its site, the distribution, the packages whose exports are linked, an object's URL).
#: PySpark: one page per object under reference/pyspark.sql/api/ (its sites since 3.4), for the installed
#: release. Airflow: the Task SDK's reference page, one anchor per public name. openlineage-python: its
#: reference lives inside the OpenLineage site without Sphinx anchors, so its names link to the client's page.
_SITES: dict[str, tuple[Callable[[], str], str, tuple[str, ...], Callable[[str], str]]] = {
    "pyspark": (
        _pyspark_site,
        "pyspark",
        ("pyspark.sql",),
        lambda name: f"reference/pyspark.sql/api/{name}.html",
    ),
    "airflow": (
        lambda: "https://airflow.apache.org/docs/task-sdk/stable/",
        "apache-airflow-task-sdk",
        ("airflow.sdk",),
        lambda name: f"api.html#{name}",
    ),
    "openlineage": (
        lambda: "https://openlineage.io/docs/client/python/",
        "openlineage-python",
        ("openlineage.client", "openlineage.client.event_v2"),
        lambda name: "",
    ),
}


def _intersphinx_mapping() -> dict[str, tuple[str, tuple[str, ...]]]:
    mapping = {}
    for name, (site, distribution, packages, url) in _SITES.items():
        inventory = _INVENTORIES / f"{name}.inv"
        write_inventory(inventory, name, installed_version(distribution), packages, url)
        mapping[name] = (site(), (str(inventory),))
    return mapping


intersphinx_mapping = _intersphinx_mapping()
