"""The docs site's pieces that `make docs` alone does not check: the intersphinx inventories that
docs/inventories.py writes from installed packages (Sphinx must read them, with each object under its
public name and the module that defines it), and the README, which is no page of the site: its links must
reach pages and headings that exist, and it stays short (the guide lives in docs/)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from sphinx.util.inventory import InventoryFile

ROOT = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"\]\((?!https?://)([^)#\s]+)(?:#([\w-]+))?\)")


def _inventories_module():
    spec = importlib.util.spec_from_file_location("docs_inventories", ROOT / "docs" / "inventories.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_inventory_written_from_an_installed_package_is_one_sphinx_reads(tmp_path: Path):
    path = tmp_path / "json.inv"
    _inventories_module().write_inventory(path, "json", "3", ["json"], lambda name: f"api.html#{name}")

    inventory = InventoryFile.loads(path.read_bytes(), uri="https://docs.example/").data
    assert inventory["py:function"]["json.dumps"].uri == "https://docs.example/api.html#json.dumps"
    # a class exported by `json` but defined in `json.decoder`: both names reach the public page
    public = inventory["py:class"]["json.JSONDecoder"].uri
    assert inventory["py:class"]["json.decoder.JSONDecoder"].uri == public
    assert public == "https://docs.example/api.html#json.JSONDecoder"
    assert "json" in inventory["py:module"]
    assert "json.dump" not in inventory["py:class"]  # functions are not classes


def _slug(heading: str) -> str:
    """The anchor MyST (and GitHub) give a heading: lower case, punctuation dropped, spaces to dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_readmes_links_reach_existing_pages_and_headings():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = _LINK.findall(readme)
    assert len(links) >= 15, links
    for target, anchor in links:
        path = ROOT / target
        assert path.is_file(), target
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
            assert anchor in {_slug(h) for h in headings}, (target, anchor)


def test_the_readme_is_short_and_every_page_it_links_is_in_the_site():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for target, _ in _LINK.findall(readme):
        if target.startswith("docs/") and target != "docs/index.md":
            assert re.search(rf"^{re.escape(Path(target).stem)}$", index, re.MULTILINE), target
