"""The committed evidence files validate against the published schema, and the schema can refuse."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from harness.columns import ROOT
from harness.runner_side.publish.evidence import validation_errors

EVIDENCE = ROOT / "evidence"
FILES = sorted(p for p in EVIDENCE.glob("*.json") if p.name not in ("evidence.schema.json", "timings.json", "sweep.json"))  # the sweep's rows: docs/sweep.md


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_committed_evidence_validates(path: Path) -> None:
    assert validation_errors(json.loads(path.read_text(encoding="utf-8"))) == []


def test_every_column_has_a_file_and_an_availability_entry() -> None:
    from harness.columns import known_columns

    availability = json.loads((EVIDENCE / "availability.json").read_text(encoding="utf-8"))["columns"]
    assert set(availability) == set(known_columns())
    assert {p.stem for p in FILES} == set(known_columns()) | {"availability"}


def _column_document() -> dict:
    return json.loads((EVIDENCE / "local_state_graph.json").read_text(encoding="utf-8"))


def _first_cell(document: dict) -> dict:
    scenario = next(iter(document["modes"]["contract"]["scenarios"].values()))
    return scenario["columns"]["side_effects"]


def test_a_cell_that_is_not_equal_must_say_why() -> None:
    document = copy.deepcopy(_column_document())
    _first_cell(document)["equal"] = False
    assert any("'reason' is a required property" in e for e in validation_errors(document))


def test_a_not_measured_column_must_say_why_and_hold_no_results() -> None:
    document = copy.deepcopy(_column_document())
    document["status"] = "not-measured"
    errors = validation_errors(document)
    assert errors  # no reason, and modes still full
    document["reason"] = "the environment could not be built"
    document["modes"] = {}
    assert validation_errors(document) == []
