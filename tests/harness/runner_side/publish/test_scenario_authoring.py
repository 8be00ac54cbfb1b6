"""A scenario of one's own may leave out ``expected``: the engine's run is recorded unchecked, and the
committed evidence (where every scenario has one) keeps its bytes; ``scripts/validate_scenario.py`` shows
what the engine does with a file, step by step."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.canonical_io import write_json
from harness.columns import REFERENCE, ROOT, known_columns
from harness.runner_side.observe.observables import expected_names
from harness.runner_side.publish.evidence import handwritten_document, validation_errors
from harness.runner_side.publish.walkthrough import walkthrough
from harness.runner_side.run.runner import ColumnResult
from harness.runner_side.run.sandbox import NetworkAttempts
from harness.scenarios import SCENARIO_DIR, load_expectations, load_scenarios

COMMITTED_PATH = ROOT / "evidence" / f"{REFERENCE}.json"
COMMITTED: dict[str, Any] = json.loads(COMMITTED_PATH.read_text(encoding="utf-8"))
NAME = "high_risk_approved"


def _result() -> ColumnResult:
    """The committed run of the engine, as the runner handed it over (records hold ``observables``)."""
    modes = {mode: {sid: {**r, "observables": r["actual"]} for sid, r in body["scenarios"].items()} for mode, body in COMMITTED["modes"].items()}
    return ColumnResult(column=known_columns()[REFERENCE], status=COMMITTED["status"], versions=COMMITTED["versions"], modes=modes,
                        network=NetworkAttempts(COMMITTED["network_allowed"], COMMITTED["network_refused"], _network_by_mode()),
                        mechanisms=COMMITTED.get("mechanisms", {}),
                        constants=COMMITTED.get("constants", {}),
                        not_applicable={mode: body["not_applicable"] for mode, body in COMMITTED["modes"].items() if "not_applicable" in body})  # fmt: skip


def _network_by_mode() -> dict[str, NetworkAttempts]:
    return {mode: NetworkAttempts(body["network"]["allowed"], body["network"]["refused"]) for mode, body in COMMITTED["modes"].items()}


def _files() -> dict[str, str]:
    return {sid: r["file"] for body in COMMITTED["modes"].values() for sid, r in body["scenarios"].items()}


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
    write_json(tmp_path / COMMITTED_PATH.name, document)
    assert (tmp_path / COMMITTED_PATH.name).read_bytes() == COMMITTED_PATH.read_bytes()


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


def test_the_walkthrough_of_every_committed_run_meets_its_expectation() -> None:
    """The walkthrough reads the same record the evidence holds: one line per driver step, every observable."""
    expectations = load_expectations()
    for scenario in load_scenarios():
        record = COMMITTED["modes"]["wire" if scenario.uses_wire else "contract"]["scenarios"][scenario.id]
        lines = walkthrough(scenario, {**record, "observables": record["actual"]}, expectations[scenario.id], trace=True)
        assert [line.split("  ")[0] for line in lines if line.startswith("step ")] == [f"step {i}" for i in range(len(scenario.driver))]
        assert lines[-1] == f"expected: met ({len(expected_names(expectations[scenario.id]))} observables equal)", scenario.id


@pytest.mark.slow  # the engine's column runs in its own process
def test_validate_scenario_shows_the_engine_step_by_step(tmp_path: Path) -> None:
    data = json.loads((SCENARIO_DIR / f"{NAME}.json").read_text(encoding="utf-8"))
    del data["expected"]
    (tmp_path / f"{NAME}.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "bad.json").write_text("[]", encoding="utf-8")
    run = [sys.executable, str(ROOT / "scripts" / "validate_scenario.py")]
    good = subprocess.run([*run, f"{NAME}.json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stderr
    assert "step 0  run event_id=e1  ->  awaiting_approval" in good.stdout
    assert "step 1  approve call_id=c1  ->  completed\n    ledger: c1 tool+1 executor+1 effects+1" in good.stdout
    assert good.stdout.rstrip().endswith("no expectation given (the engine's run above is what every column is compared with)")
    bad = subprocess.run([*run, f"{NAME}.json", "bad.json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert (bad.returncode, bad.stdout, bad.stderr) == (2, "", "error: bad.json: field '(top level)': must be an object (one scenario per file), not an array\n")


README = SCENARIO_DIR / "README.md"


def test_the_readme_documents_every_field_of_the_format() -> None:
    schema = json.loads((SCENARIO_DIR / "scenario.schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    fields = [*schema["properties"], *defs["turn"]["properties"], *defs["turn"]["properties"]["tool_calls"]["items"]["properties"],
              *defs["step"]["properties"], *defs["fault"]["properties"]]  # fmt: skip
    closed = [*schema["properties"]["covers"]["items"]["enum"], *defs["step"]["properties"]["action"]["enum"],
              *defs["step"]["properties"]["misuse"]["enum"], *defs["step"]["properties"]["outcome"]["enum"],
              *defs["fault"]["properties"]["point"]["enum"]]  # fmt: skip
    from harness.fixture_tools import FIXTURE_TOOLS

    text = README.read_text(encoding="utf-8")
    assert [name for name in [*fields, *closed, *FIXTURE_TOOLS] if f"`{name}`" not in text] == []


def test_the_readme_example_is_a_valid_scenario(tmp_path: Path) -> None:
    example = README.read_text(encoding="utf-8").split("```json\n", 1)[1].split("```", 1)[0]
    (tmp_path / "refund_note.json").write_text(example, encoding="utf-8")
    assert [s.id for s in load_scenarios(tmp_path)] == ["refund_note"] and load_expectations(tmp_path) == {}
