"""The OpenLineage namespace of the provider's parent-run facet, bound to the run the harness starts.

The provider's helpers that build a task event's ``parent`` facet take the namespace as a default
argument (``parent_job_namespace: str = conf.namespace()``), evaluated once, when
``airflow.providers.openlineage.utils.utils`` is first imported. A process that imported it before a
``run_dag(..., namespace=...)`` (any pytest session that ran another DAG first) sent task events whose
job is in the run's namespace but whose parent job is in the old one: Marquez then draws the DAG's job
in a namespace that has no such run. A deployment's task processes read the namespace before the import,
so only a process that runs several DAGs with several namespaces needs this.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Iterator

_UTILS = "airflow.providers.openlineage.utils.utils"
_FUNCTIONS = ("_get_parent_run_facet", "get_task_parent_run_facet")
_PARAMETER = "parent_job_namespace"


@contextlib.contextmanager
def parent_namespace_of_this_run() -> Iterator[None]:
    """Within the block, the helpers' default namespace is the configured one (read now); restored after."""
    module = sys.modules.get(_UTILS)
    if module is None:  # imported later, during the run: it reads the current namespace itself
        yield
        return
    from airflow.providers.openlineage import conf

    namespace = conf.namespace()
    saved = []
    for name in _FUNCTIONS:
        function = getattr(module, name, None)
        defaults = getattr(function, "__defaults__", None)
        if function is None or defaults is None:
            continue
        parameters = [
            p
            for p in inspect.signature(function).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        with_defaults = parameters[len(parameters) - len(defaults) :]
        names = [p.name for p in with_defaults]
        if _PARAMETER not in names:
            continue
        index = names.index(_PARAMETER)
        saved.append((function, defaults))
        function.__defaults__ = (*defaults[:index], namespace, *defaults[index + 1 :])
    try:
        yield
    finally:
        for function, defaults in saved:
            function.__defaults__ = defaults
