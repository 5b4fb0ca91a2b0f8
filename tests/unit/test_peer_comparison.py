"""The peer harness's pure parts: the jar's per-action records, the facets compared, the reviewed list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.peer.comparison import (
    ON_DISK,
    Difference,
    dataset_differences,
    dataset_views,
    job_differences,
    normalize_column_lineage,
)
from tests.peer.known import (
    LAKEHOUSE_KNOWN_FILE,
    Known,
    _entry,
    explain,
    load,
    load_lakehouse,
    never_acceptable,
)
from tests.peer.peer_events import EventFile, parse_lines
from tests.peer.runner import data_files, disk_differences

PRODUCER = {"_producer": "https://example/producer", "_schemaURL": "https://example/schema"}


def dataset(name: str, **facets: Any) -> dict[str, Any]:
    output = {k: v for k, v in facets.items() if k == "outputStatistics"}
    plain = {k: {**PRODUCER, **v} for k, v in facets.items() if k != "outputStatistics"}
    return {"namespace": "file", "name": name, "facets": plain, "outputFacets": output}


def schema(*names: str) -> dict[str, Any]:
    return {"fields": [{"name": n, "type": "string"} for n in names]}


def lineage(field: str, source: str, kind: tuple[str, str], description: str = "") -> dict[str, Any]:
    transformation = {"type": kind[0], "subtype": kind[1], "description": description, "masking": False}
    return {
        "inputFields": [
            {"namespace": "file", "name": "/in", "field": source, "transformations": [transformation]}
        ]
    }


def test_a_later_actions_facet_wins_and_producer_keys_are_not_compared() -> None:
    views = dataset_views(
        [dataset("/out", schema=schema("a")), dataset("/out", schema=schema("a", "b"))], "output"
    )
    assert views == {
        "output file:/out": {"schema": [{"name": "a", "type": "string"}, {"name": "b", "type": "string"}]}
    }


def test_an_empty_schema_counts_as_none() -> None:
    assert dataset_views([dataset("/gone", schema={"fields": []})], "output") == {"output file:/gone": {}}


@pytest.mark.parametrize(
    ("ours", "jar", "facets"),
    [
        ({"schema": schema("a")}, {"schema": schema("a")}, []),
        ({"schema": schema("a")}, {"schema": schema("b")}, ["schema"]),
        ({"lifecycleStateChange": {"lifecycleStateChange": "CREATE"}}, {}, ["lifecycleStateChange"]),
        # column lineage: the order of lists and the description carry nothing
        (
            {"columnLineage": {"fields": {"x": lineage("a", "a", ("DIRECT", "IDENTITY"))}}},
            {"columnLineage": {"fields": {"x": lineage("a", "a", ("DIRECT", "IDENTITY"), "a copy")}}},
            [],
        ),
        (
            {"columnLineage": {"fields": {"x": lineage("a", "a", ("DIRECT", "IDENTITY"))}}},
            {"columnLineage": {"fields": {"x": lineage("a", "a", ("DIRECT", "TRANSFORMATION"))}}},
            ["columnLineage"],
        ),
        # a catalog facet only ours has is not compared; one the jar has is
        ({"catalog": {"name": "a"}}, {}, []),
        ({}, {"catalog": {"name": "a"}}, ["catalog"]),
        ({"catalog": {"name": "a"}}, {"catalog": {"name": "b"}}, ["catalog"]),
    ],
)
def test_facets_compared(ours: dict[str, Any], jar: dict[str, Any], facets: list[str]) -> None:
    mine = dataset_views([dataset("/out", **ours)], "output")
    theirs = dataset_views([dataset("/out", **jar)], "output")
    assert [d.facet for d in dataset_differences("job", mine, theirs)] == facets


def test_a_dataset_one_side_lacks_is_one_difference_saying_which() -> None:
    mine = dataset_views([dataset("/a")], "input")
    theirs = dataset_views([dataset("/a"), dataset("/b")], "input")
    assert dataset_differences("job", mine, theirs) == [
        Difference("job", "input file:/b", "dataset", False, True)
    ]


def test_input_fields_listed_once_per_transformation_are_one_field() -> None:
    split = {
        "fields": {
            "x": {
                "inputFields": [
                    {
                        "namespace": "file",
                        "name": "/in",
                        "field": "a",
                        "transformations": [{"type": "INDIRECT", "subtype": "JOIN"}],
                    },
                    {
                        "namespace": "file",
                        "name": "/in",
                        "field": "a",
                        "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
                    },
                ]
            }
        }
    }
    joined = {
        "fields": {
            "x": {
                "inputFields": [
                    {
                        "namespace": "file",
                        "name": "/in",
                        "field": "a",
                        "transformations": [
                            {"type": "INDIRECT", "subtype": "FILTER"},
                            {"type": "INDIRECT", "subtype": "JOIN"},
                        ],
                    }
                ]
            }
        }
    }
    assert normalize_column_lineage(split) == normalize_column_lineage(joined)


def test_job_facets_sql_is_found_in_ours_and_the_engine_compares_name_and_version() -> None:
    engine = {"name": "spark", "version": "4.3.0", "openlineageAdapterVersion": "1.53.0"}
    ours = {
        "sql": {"query": "SELECT 1;\nSELECT  2"},
        "processing_engine": {**engine, "openlineageAdapterVersion": "1.54"},
    }
    assert job_differences("j", ours, {"sql": {"query": "SELECT 2"}, "processing_engine": engine}) == []
    assert [
        d.facet for d in job_differences("j", {}, {"sql": {"query": "SELECT 2"}, "processing_engine": engine})
    ] == [
        "sql",
        "processing_engine",
    ]


def test_the_jars_file_is_read_a_job_at_a_time_without_its_application_events(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    events = EventFile(path)
    assert events.take().events == []

    def event(job: str, job_type: str = "JOB") -> str:
        return json.dumps(
            {
                "eventType": "COMPLETE",
                "job": {"name": job, "facets": {"jobType": {"jobType": job_type}}},
                "run": {},
            }
        )

    path.write_text(event("app", "APPLICATION") + "\n" + event("setup") + "\n")
    events.mark()
    with path.open("a") as stream:
        stream.write(event("one") + "\n" + event("half"))  # a line still being written
    assert [e["job"]["name"] for e in events.take().events] == ["one"]
    with path.open("a") as stream:
        stream.write("\n")
    assert [e["job"]["name"] for e in events.take().events] == ["half"]
    assert [e["job"]["name"] for e in parse_lines([event("a", "APPLICATION"), event("b")]).events] == ["b"]


def test_our_file_count_is_checked_against_the_disk(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "region=a").mkdir(parents=True)
    for name in ("region=a/part-0.parquet", "region=a/.part-0.parquet.crc", "_SUCCESS", "part-1.parquet"):
        (out / name).write_text("x")
    assert data_files(out) == 2
    views = {f"output file:{out}": {"outputStatistics": {"fileCount": 3}}, "input file:/in": {}}
    assert disk_differences("job", views) == [Difference("job", f"output file:{out}", ON_DISK, 3, 2)]
    views[f"output file:{out}"]["outputStatistics"]["fileCount"] = 2
    assert disk_differences("job", views) == []


def test_a_table_formats_folder_is_not_counted_against_the_write(tmp_path: Path) -> None:
    """An Iceberg or Delta folder keeps every version's data files and its metadata: the write's own
    file count cannot be read off the disk, while a plain file output still is."""
    table = tmp_path / "ice" / "db" / "t"
    for name in (
        "data/part-0.parquet",
        "data/part-1.parquet",
        "metadata/v1.metadata.json",
        "metadata/snap.avro",
    ):
        (table / name).parent.mkdir(parents=True, exist_ok=True)
        (table / name).write_text("x")
    written = {"outputStatistics": {"fileCount": 1}}
    iceberg = {**written, "storage": {"storageLayer": "iceberg", "fileFormat": "parquet"}}
    assert disk_differences("job", {f"output file:{table}": iceberg}) == []
    plain = {**written, "storage": {"storageLayer": "file", "fileFormat": "parquet"}}
    assert disk_differences("job", {f"output file:{table}": plain}) == [
        Difference("job", f"output file:{table}", ON_DISK, 1, 4)
    ]


def test_what_no_entry_may_accept() -> None:
    missing = Difference("j", "input file:/a", "dataset", False, True)
    assert never_acceptable(missing)
    assert not never_acceptable(missing, "jar-bug")  # the jar reports a dataset that does not exist
    assert not never_acceptable(Difference("j", "input file:/a", "dataset", True, False))
    assert never_acceptable(Difference("j", "output file:/a", "columnLineage", None, {"fields": {}}))
    assert not never_acceptable(Difference("j", "output file:/a", "columnLineage", {"fields": {}}, None))
    assert never_acceptable(Difference("j", "output file:/a", ON_DISK, 2, 3), "jar-bug")
    # our defect, listed to be fixed (the code is another change's): covered, never our file count
    assert not never_acceptable(missing, "ours-to-fix")
    assert not never_acceptable(Difference("j", "output file:/a", "columnLineage", None, {}), "ours-to-fix")
    assert never_acceptable(Difference("j", "output file:/a", ON_DISK, 2, 3), "ours-to-fix")


def test_entries_cover_by_pattern_and_line() -> None:
    entry = Known(("rdd_*",), ("input file:*",), "dataSource", "jar-bug", "why", lines=("3.5",))
    difference = Difference("rdd_count", "input file:/x", "dataSource", {}, None)
    assert [k for _, k in explain([difference], [entry], "3.5")] == [entry]
    assert [k for _, k in explain([difference], [entry], "4.3")] == [None]
    other = Difference("rdd_count", "input file:/x", "schema", {}, None)
    assert [k for _, k in explain([other], [entry], "3.5")] == [None]


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ({"jobs": ["*"], "facet": "schema", "kind": "jar-bug"}, "missing"),
        ({"jobs": ["*"], "facet": "schema", "kind": "maybe", "reason": "x"}, "kind"),
        ({"jobs": ["*"], "facet": "schema", "kind": "jar-bug", "reason": "  "}, "reason"),
        (
            {"jobs": ["*"], "facet": "schema", "kind": "ours-to-fix", "reason": "the jar is right"},
            "ours, to fix",
        ),
    ],
)
def test_an_entry_without_its_reason_is_refused(raw: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        _entry(raw, "entry")


def test_the_reviewed_file_loads() -> None:
    assert all(entry.reason for entry in load())


def test_an_entry_seen_in_some_runs_only_says_so() -> None:
    raw = {"jobs": ["j"], "facet": "dataset", "kind": "jar-bug", "reason": "varies"}
    assert not _entry(raw, "entry").sometimes
    assert _entry({**raw, "sometimes": True}, "entry").sometimes


def test_the_lakehouse_entries_come_first_then_the_main_files_entries_for_every_job() -> None:
    own, general = load(LAKEHOUSE_KNOWN_FILE), [e for e in load() if e.jobs == ("*",)]
    assert own
    assert general
    assert load_lakehouse() == own + general


def test_the_iceberg_scan_report_is_compared_without_its_timer_and_as_floats() -> None:
    def read(snapshot: Any, files: Any, planning: Any) -> dict[str, Any]:
        report = {"snapshotId": snapshot, "filterDescription": "", "projectedFieldNames": ["id"]}
        report["scanMetrics"] = {"totalPlanningDuration": planning, "resultDataFiles": files}
        return {
            "namespace": "file",
            "name": "/w/t",
            "inputFacets": {"icebergScanReport": {**PRODUCER, **report}},
        }

    snapshot = 2234064637538602801
    ours = dataset_views([read(snapshot, 2, 4)], "input")
    same = dataset_views([read(float(snapshot), 2.0, 9.0)], "input")  # the jar's doubles, its own timing
    assert dataset_differences("j", ours, same) == []
    other = dataset_views([read(float(snapshot), 3.0, 4.0)], "input")
    assert [d.facet for d in dataset_differences("j", ours, other)] == ["icebergScanReport"]
