"""No column reached for the network: every column process runs behind the audit hook that
refuses (and records) any connection or lookup that is not loopback, and each column's
committed evidence, which CI regenerates with --check, records none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.columns import known_columns

EVIDENCE = Path(__file__).resolve().parent.parent / "evidence"


@pytest.mark.parametrize("column", sorted(known_columns()))
def test_the_column_attempted_no_connection_beyond_loopback(column: str) -> None:
    document = json.loads((EVIDENCE / f"{column}.json").read_text(encoding="utf-8"))
    assert document["status"] == "measured"
    assert document["network_refused"] == []
