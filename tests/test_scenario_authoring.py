"""A scenario of one's own may leave out ``expected``: the engine's run is recorded unchecked, and the
committed evidence (where every scenario has one) keeps its bytes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from harness.canonical_io import write_json
from harness.columns import REFERENCE, known_columns
from harness.runner_side.evidence import handwritten_document, validation_errors
from harness.runner_side.runner import ColumnResult
from harness.scenarios import SCENARIO_DIR, load_expectations, load_scenarios

ROOT = Path(__file__).resolve().parent.parent
COMMITTED_PATH = ROOT / "evidence" / "handwritten.json"
COMMITTED: dict[str, Any] = json.loads(COMMITTED_PATH.read_text(encoding="utf-8"))
NAME = "high_risk_approved"


def _result() -> ColumnResult:
    """The committed run of the engine, as the runner handed it over (records hold ``observables``)."""
    modes = {mode: {sid: {**r, "observables": r["actual"]} for sid, r in body["scenarios"].items()} for mode, body in COMMITTED["modes"].items()}
    return ColumnResult(column=known_columns()[REFERENCE], status=COMMITTED["status"], versions=COMMITTED["versions"], modes=modes,
                        network=COMMITTED["network_refused"], mechanisms=COMMITTED.get("mechanisms", {}),
                        constants=COMMITTED.get("constants", {}))  # fmt: skip


def _files() -> dict[str, str]:
    return {sid: r["file"] for sid, r in COMMITTED["modes"]["contract"]["scenarios"].items()}


def test_every_committed_scenario_has_an_expectation() -> None:
    """Optional for one's own scenarios, never for the committed set: the engine is checked against each."""
    assert sorted(load_expectations()) == sorted(s.id for s in load_scenarios())


def test_expected_is_optional_for_a_scenario_of_ones_own(tmp_path: Path) -> None:
    data = json.loads((SCENARIO_DIR / f"{NAME}.json").read_text(encoding="utf-8"))
    del data["expected"]
    (tmp_path / f"{NAME}.json").write_text(json.dumps(data), encoding="utf-8")
    assert [s.id for s in load_scenarios(tmp_path)] == [NAME]
    assert load_expectations(tmp_path) == {}


def test_with_every_expectation_the_document_is_the_committed_one(tmp_path: Path) -> None:
    document = handwritten_document(_result(), load_expectations(), _files())
    write_json(tmp_path / "handwritten.json", document)
    assert (tmp_path / "handwritten.json").read_bytes() == COMMITTED_PATH.read_bytes()


def test_a_scenario_without_expectation_is_recorded_unchecked() -> None:
    expectations = {sid: e for sid, e in load_expectations().items() if sid != NAME}
    document = handwritten_document(_result(), expectations, _files())
    body = document["modes"]["contract"]
    record = body["scenarios"][NAME]
    assert (record["equal"], record["mismatches"], record["expected"]) == (None, [], None)
    assert record["actual"] == COMMITTED["modes"]["contract"]["scenarios"][NAME]["actual"]
    total = len(body["scenarios"])
    assert body["summary"] == {"scenarios": total, "equal": total - 1, "errors": 0, "no_expectation": 1}
    assert validation_errors(document) == []


def test_the_schema_refuses_a_verdict_without_expectation() -> None:
    document = copy.deepcopy(COMMITTED)
    document["modes"]["contract"]["scenarios"][NAME]["expected"] = None
    assert validation_errors(document)  # equal is still true: nothing to be equal to
