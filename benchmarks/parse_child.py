"""One DAG-file parse in a fresh interpreter, as Airflow's DAG processor does it; prints one JSON line.

Run as ``python -m benchmarks.parse_child MODE DAG_FILE [PREIMPORT_FILE ...]``. Before the clock
starts the child imports what a DAG processor always has loaded (``DagBag``, serialization);
then it times ``DagBag(file)`` plus serializing each DAG, which is the per-file work the
processor does. MODE says what else is loaded before the clock:

* ``cold``: nothing: the DAG file's own imports (operator modules) are part of the parse;
* ``preimported``: the ``airflow.*`` modules named by the given files, as the processor's
  ``parsing_pre_import_modules`` (on by default) loads them before it forks a parser.

Both wall and CPU time are reported. A parse is single-threaded CPU work, so on an idle machine
the two agree; on a shared one the wall time also counts the moments the parser was not running,
which is noise several times larger than the difference measured, so the figure uses CPU time.
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
import time

HEAVY_PREFIXES = ("pyspark", "py4j", "openlineage", "airflow.providers.openlineage")
RESULT_PREFIX = "PARSE_RESULT "


def main(argv: list[str]) -> None:
    mode, dag_file, *preimport_files = argv
    from airflow.dag_processing.dagbag import DagBag
    from airflow.serialization.serialized_objects import DagSerialization

    if mode == "preimported":
        _preimport(preimport_files)
    elif mode != "cold":
        raise SystemExit(f"unknown mode {mode!r}")
    logging.disable(logging.INFO)
    before = set(sys.modules)
    started, cpu_started = time.perf_counter(), time.process_time()
    bag = DagBag(dag_folder=dag_file, safe_mode=False)
    serialized = [DagSerialization.to_dict(dag) for dag in bag.dags.values()]
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    if bag.import_errors or not serialized:
        raise SystemExit(f"{dag_file} did not parse: {bag.import_errors}")
    loaded = set(sys.modules)
    report = {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "tasks": sum(len(dag.tasks) for dag in bag.dags.values()),
        "modules_imported_by_parse": len(loaded - before),
        "heavy_modules": sorted(m for m in loaded if m.startswith(HEAVY_PREFIXES)),
    }
    print(RESULT_PREFIX + json.dumps(report), flush=True)


def _preimport(files: list[str]) -> None:
    from airflow.utils.file import iter_airflow_imports

    for path in files:
        for module in iter_airflow_imports(path):
            importlib.import_module(module)


if __name__ == "__main__":
    main(sys.argv[1:])
