"""``lineage-operators``: see, compare and summarise OpenLineage events written by the FileTransport
or stored by a Marquez server (an ``http(s)://`` source, with ``--namespace`` to keep one namespace).

Exit status: 0 on success (``diff``: no difference), 1 when ``diff`` finds differences, 2 on a
usage error or a source that cannot be read. Skipped input is reported on stderr, never fatal.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from lineage_operators.cli.diff import diff_graphs, diff_to_json, format_diff
from lineage_operators.cli.html import render_html
from lineage_operators.cli.model import GraphBuilder, LineageGraph
from lineage_operators.cli.placeholders import bind_placeholders
from lineage_operators.cli.reading import Skips, SourceError, golden_events, is_golden_file, read_sources
from lineage_operators.cli.summary import summarise

__all__ = ["load_graph", "main"]

SOURCES_HELP = (
    "FileTransport output: a .json/.jsonl file, a folder of event files, or the transport's log_file_path;"
    " or a Marquez API URL (http://host:port)"
)


def load_graph(
    sources: Sequence[str | Path], *, any_producer: bool = False, namespace: str | None = None
) -> LineageGraph:
    """The graph of every event in ``sources`` (streamed; a golden file keeps its ``${name}``s)."""
    return _load_side(sources, any_producer=any_producer, placeholders={}, other=None, namespace=namespace)[0]


def _load_side(
    sources: Sequence[str | Path],
    *,
    any_producer: bool,
    placeholders: dict[str, str],
    other: LineageGraph | None,
    namespace: str | None = None,
) -> tuple[LineageGraph, list[str]]:
    """The graph of ``sources`` and the golden-file placeholders left unbound: those are bound
    from ``placeholders``, then against the ``other`` graph's dataset names and job namespaces."""
    skips = Skips()
    builder = GraphBuilder(skips, any_producer=any_producer)
    unbound: list[str] = []
    names = [s for ds in (other.datasets if other else {}) for s in ds]
    job_namespaces = [job.namespace for job in (other.jobs.values() if other else ())]
    for source in sources:
        path = Path(source)
        if is_golden_file(path):
            events, missing = bind_placeholders(
                list(golden_events(path, skips)), names, placeholders, other_job_namespaces=job_namespaces
            )
            unbound += missing
            for event in events:
                builder.add(event)
        else:
            for event in read_sources([source], skips, namespace=namespace):
                builder.add(event)
    return builder.finish(), unbound


def _has_golden(sources: Sequence[str]) -> bool:
    return any(is_golden_file(Path(s)) for s in sources)


def _report_skips(graph: LineageGraph, label: str = "") -> None:
    text = graph.skips.describe()
    if text:
        print((f"{label}: " if label else "") + text, file=sys.stderr)


def _cmd_view(args: argparse.Namespace) -> int:
    graph = load_graph(args.events, any_producer=args.any_producer, namespace=args.namespace)
    _report_skips(graph)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    title = args.title or "lineage: " + ", ".join(Path(s).name for s in args.events)
    output.write_text(render_html(graph, title=title), encoding="utf-8")
    drawn = [j for j in graph.jobs.values() if j.drawn]
    print(
        f"wrote {output} ({len(drawn)} jobs, {len(graph.datasets)} datasets, "
        f"{len(graph.column_edges)} column edges)"
    )
    return 0


def _cmd_summary(args: argparse.Namespace) -> int:
    graph = load_graph(args.events, any_producer=args.any_producer, namespace=args.namespace)
    print(summarise(graph))
    _report_skips(graph)
    return 0


def _parse_placeholders(values: Sequence[str]) -> dict[str, str]:
    out = {}
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not name:
            raise SourceError(f"--placeholder takes NAME=VALUE, got {value!r}")
        out[name] = text
    return out


def _cmd_diff(args: argparse.Namespace) -> int:
    placeholders = _parse_placeholders(args.placeholder)
    load = functools.partial(
        _load_side, any_producer=args.any_producer, placeholders=placeholders, namespace=args.namespace
    )
    if _has_golden(args.before) and not _has_golden(args.after):  # read the events side first
        after, _ = load(args.after, other=None)
        before, unbound = load(args.before, other=after)
    else:
        before, _ = load(args.before, other=None)
        after, unbound = load(args.after, other=before)
    _report_skips(before, "before")
    _report_skips(after, "after")
    if unbound:
        print(
            f"placeholders left unbound (pass --placeholder NAME=VALUE): {', '.join(sorted(set(unbound)))}",
            file=sys.stderr,
        )
    diffs = diff_graphs(before, after)
    if args.json:
        print(
            json.dumps(
                {
                    **diff_to_json(diffs),
                    "skipped": {"before": before.skips.to_json(), "after": after.skips.to_json()},
                },
                indent=2,
            )
        )
    else:
        print(format_diff(diffs))
    return 1 if diffs else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lineage-operators",
        description="See, compare and summarise OpenLineage events (FileTransport output, a Marquez server).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    producer = argparse.ArgumentParser(add_help=False)
    producer.add_argument(
        "--any-producer",
        action="store_true",
        help="also read events of other producers than Airflow's OpenLineage provider (skipped by default)",
    )
    producer.add_argument(
        "--namespace",
        help="with a Marquez URL source: only events of jobs in this namespace (or whose parent job is)",
    )

    view = commands.add_parser(
        "view", parents=[producer], help="write the lineage graph as one self-contained HTML file"
    )
    view.add_argument("events", nargs="+", help=SOURCES_HELP)
    view.add_argument(
        "-o", "--output", default="lineage.html", help="HTML file to write (default: lineage.html)"
    )
    view.add_argument("--title", help="page title")
    view.set_defaults(run=_cmd_view)

    summary = commands.add_parser(
        "summary", parents=[producer], help="per task: what it read and wrote; counts; failed runs"
    )
    summary.add_argument("events", nargs="+", help=SOURCES_HELP)
    summary.set_defaults(run=_cmd_summary)

    diff = commands.add_parser(
        "diff",
        parents=[producer],
        help="what changed in lineage between two event sets (exit status 1 when they differ)",
        description="Each side is event files/folders, a Marquez API URL, or a golden file of the harness.",
    )
    diff.add_argument("before", nargs=1, help="events (file, folder, Marquez URL) or a golden file")
    diff.add_argument("after", nargs=1, help="events (file, folder, Marquez URL) or a golden file")
    diff.add_argument("--json", action="store_true", help="machine-readable output")
    diff.add_argument(
        "--placeholder",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="value of a golden file's ${NAME} (inferred from the other side's dataset names when omitted)",
    )
    diff.set_defaults(run=_cmd_diff)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except SourceError as exc:
        print(f"lineage-operators: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
