"""Reading and serialising one golden file (JSON or YAML, by suffix), apart from snapshotting.

Why apart: both the golden-file check (``golden``) and the reader of Airflow's expected-event files
(``expected_file``) read golden files, and ``golden`` also uses ``expected_file``; holding the reading
here keeps those two modules from importing each other.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lineage_operators.testing import matchers as m
from lineage_operators.testing.compare import with_environment

__all__ = ["dump_expected", "load_expected"]


def is_yaml(path: Path) -> bool:
    return path.suffix.lower() in (".yaml", ".yml")


def _yaml() -> Any:
    try:
        import yaml
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("YAML golden files need PyYAML (pip install pyyaml); JSON always works") from exc
    return yaml


def _bind(obj: Any, placeholders: m.Placeholders) -> Any:
    """Resolve placeholders now, so an unknown one fails at load time rather than per value."""
    if isinstance(obj, m.Template):
        return obj.render(placeholders)
    if isinstance(obj, m.ListMatcher):
        return m.ListMatcher([_bind(i, placeholders) for i in obj.items], obj.mode)
    if isinstance(obj, m.Matcher):
        pattern = getattr(obj, "pattern", None)
        if isinstance(pattern, str) and m.has_template(pattern):
            return m.regex(m.render_template(pattern, placeholders, escape=True))
        return obj
    if isinstance(obj, Mapping):
        return {k: _bind(v, placeholders) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_bind(v, placeholders) for v in obj]
    return obj


def load_expected(
    path: str | os.PathLike[str], *, placeholders: m.Placeholders | None = None
) -> dict[str, Any]:
    """Read a JSON or YAML (by suffix) golden file into expectations with matcher objects.

    With ``placeholders`` the ``${name}`` references are resolved immediately; without, they
    are resolved by the comparison.
    """
    file = Path(path)
    text = file.read_text(encoding="utf-8")
    raw = _yaml().safe_load(text) if is_yaml(file) else json.loads(text)
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{file}: a golden file holds a mapping of event keys, found {type(raw).__name__}")
    decoded = m.decode(raw)
    return _bind(decoded, with_environment(placeholders)) if placeholders is not None else decoded


def dump_expected(doc: Mapping[str, Any], *, yaml_format: bool = False) -> str:
    """Serialise a golden document with sorted keys, stable across runs."""
    data = m.encode(doc)
    if yaml_format:
        return str(
            _yaml().safe_dump(data, sort_keys=True, allow_unicode=True, default_flow_style=False, width=100)
        )
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
