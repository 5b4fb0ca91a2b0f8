"""Delta Lake and Iceberg tables on S3, in the lakehouse session: our capture names exactly the datasets of
:data:`~tests.peer.corpus_lakehouse_s3.EXPECTED`, with the symlinks and catalog facets of
:data:`~tests.peer.corpus_lakehouse_s3.TABLE_IDENTITY` (the jar is compared in test_lakehouse_peer.py), the
tables' files really are in the bucket (not on a local disk), and nothing we emitted or logged carries the
S3 credentials of the session's conf.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.peer.corpus_lakehouse_s3 import BUCKET, EXPECTED, TABLE_IDENTITY
from tests.support.canary import S3_ACCESS_KEY, S3_SECRET_KEY
from tests.support.s3_server import S3Server

#: The first test runs the whole corpus (its fixture).
pytestmark = pytest.mark.timeout(1800)


def _outputs(name: str) -> list[str]:
    return [key.rpartition(":")[2] for key in EXPECTED[name] if key.startswith("output ")]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lakehouse_tables_on_s3_are_named_by_bucket_and_key(name: str, lakehouse_run: Any) -> None:
    outcome = lakehouse_run.outcomes[name]
    assert outcome.error is None, f"{name} failed: {outcome.error}"
    assert set(outcome.ours) == EXPECTED[name], json.dumps(outcome.ours, indent=1, default=str)
    for key, view in outcome.ours.items():
        namespace = key.partition(" ")[2].rpartition(":")[0]
        assert view["dataSource"] == {"name": namespace, "uri": namespace}, key
        assert view.get("schema"), f"{key} has no schema"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lakehouse_tables_on_s3_have_their_catalogs_identity(name: str, lakehouse_run: Any) -> None:
    """Symlinks and ``catalog``: an Iceberg table of the S3 warehouse by its catalog's name; a Delta table
    of the session catalog located on S3 with Delta's catalog facet and no symlink; a folder with neither."""
    for key, view in lakehouse_run.outcomes[name].ours.items():
        wanted = TABLE_IDENTITY.get(key, {"symlinks": None, "catalog": None})
        symlinks = view.get("symlinks")
        found = None if symlinks is None else [(s["namespace"], s["name"], s["type"]) for s in symlinks]
        assert found == wanted["symlinks"], key
        assert view.get("catalog") == wanted["catalog"], key


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_lakehouse_output_on_s3_is_a_table_in_the_bucket(
    name: str, lakehouse_run: Any, s3_server: S3Server
) -> None:
    """Each output's key holds what its format writes: Delta's log, Iceberg's metadata, Parquet parts."""
    keys = s3_server.keys(BUCKET)
    for output in _outputs(name):
        under = [k.removeprefix(output + "/") for k in keys if k.startswith(output + "/")]
        storage = lakehouse_run.outcomes[name].ours[f"output s3://{BUCKET}:{output}"]["storage"]
        marker = {"delta": "_delta_log/", "iceberg": "metadata/"}.get(storage["storageLayer"], "part-")
        assert any(k.startswith(marker) for k in under), f"{output}: {marker} not in {under}"
        assert any(k.endswith(".parquet") for k in under), f"{output}: no data file in {under}"


def test_the_s3_credentials_are_in_no_event_and_no_log_line_of_ours(lakehouse_run: Any) -> None:
    """The session's conf holds ``fs.s3a.access.key`` and ``fs.s3a.secret.key``: neither value may reach
    what our capture reports on any lakehouse job or any record our loggers wrote meanwhile (jobs that go
    well log little; the suite-wide canary scan of tests/conftest.py also reads every record of every
    logger, the captured output and the jar's event file)."""
    outcomes = lakehouse_run.outcomes
    reported = json.dumps({name: outcome.ours for name, outcome in outcomes.items()}, default=str)
    assert set(EXPECTED) <= set(outcomes), "the S3 jobs did not all run: the scan would prove little"
    logged = "\n".join(lakehouse_run.our_log)
    for secret in (S3_ACCESS_KEY, S3_SECRET_KEY):
        assert secret not in reported
        assert secret not in logged
