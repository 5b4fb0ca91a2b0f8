"""Module-level ``__getattr__``/``__dir__`` that import a public name on first use."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], names: Sequence[str], *, cache: bool = True
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``exports`` maps a public name to the module defining it (a name mapping to itself, e.g.
    ``"matchers": "pkg.matchers"``, exports the module). Imported values are cached on the package,
    unless ``cache`` is False: an internal face then always hands out what the defining module holds
    now (a test that patches the defining module is seen by every caller of the face)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        imported = importlib.import_module(module)
        value = imported if module.rsplit(".", 1)[-1] == name else getattr(imported, name)
        if cache:
            setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__
