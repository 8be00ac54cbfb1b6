"""No column reached for the network: every column process runs behind the audit hook that
refuses (and records) any connection or lookup that is not loopback, and each column's
committed evidence, which CI regenerates with --check, records none its MAPPING.md does not explain: Google ADK's MCP
session looks up the GCE metadata server for credentials on every new HTTP session (refused; its MAPPING.md says why
nothing turns it off)."""

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
    found = known_columns()[column].adapter_dir / "MAPPING.md"
    mapping = found.read_text(encoding="utf-8") if found.exists() else ""
    unexplained = [r for r in document["network_refused"] if f"`{r}` as refused" not in mapping]
    assert unexplained == [], f"{column} tried to reach {unexplained}, which its MAPPING.md does not explain"
