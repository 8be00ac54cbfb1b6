"""Wire faults in scenario files (``model.http_status``, ``model.http_reset``, ``model.stream_cut``, ``model.http_slow``,
``model.bad_body``): a malformed one is refused by the loader with one line naming the file (relative to where the user
stands) and the field; every well-formed one is read back as written. ``Scenario.uses_wire`` tells the committed
scenarios that need the wire mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ScenarioError
from harness.scenarios import FAULT_POINTS, SCENARIO_DIR, WIRE_POINTS, Fault, load_scenario, load_scenarios

NAME = "wire_http_500_once"
BASE: dict[str, Any] = json.loads((SCENARIO_DIR / f"{NAME}.json").read_text(encoding="utf-8"))
TOOL_POINTS = [p for p in FAULT_POINTS if p.startswith("tool.")]


def _mine(tmp_path: Path, faults: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> Path:
    """``mine/<NAME>.json`` under the working directory: the committed scenario with these faults."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    path = Path("mine") / f"{NAME}.json"
    path.write_text(json.dumps({**BASE, "faults": faults}), encoding="utf-8")
    return path


def _error(path: Path) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenarios(path.parent)
    return str(info.value)


BAD: list[tuple[str, dict[str, Any], str]] = [
    ("http_status without status", {"point": "model.http_status", "turn": 0},
     """field 'faults/0/status': required, but missing (for point "model.http_status")"""),
    ("status 399", {"point": "model.http_status", "turn": 0, "status": 399}, "field 'faults/0/status': 399 is less than the minimum of 400"),
    ("status 200", {"point": "model.http_status", "turn": 0, "status": 200}, "field 'faults/0/status': 200 is less than the minimum of 400"),
    ("status 600", {"point": "model.http_status", "turn": 0, "status": 600}, "field 'faults/0/status': 600 is greater than the maximum of 599"),
    ("status not an integer", {"point": "model.http_status", "turn": 0, "status": 500.5}, "field 'faults/0/status': must be an integer, not a number"),
    ("negative retry_after", {"point": "model.http_status", "turn": 0, "status": 429, "retry_after": -1},
     "field 'faults/0/retry_after': -1 is less than the minimum of 0"),
    ("retry_after on http_reset", {"point": "model.http_reset", "turn": 0, "retry_after": 1},
     """field 'faults/0': must not have 'retry_after' (for point "model.http_reset")"""),
    ("status on http_slow", {"point": "model.http_slow", "turn": 0, "status": 500},
     """field 'faults/0': must not have 'status' (for point "model.http_slow")"""),
    ("repeat on kill_before_turn", {"point": "model.kill_before_turn", "turn": 0, "repeat": "always"},
     """field 'faults/0': must not have 'repeat' (for point "model.kill_before_turn")"""),
    ("repeat neither once nor always", {"point": "model.bad_body", "turn": 0, "repeat": "twice"},
     """field 'faults/0/repeat': "twice" is not one of: "once", "always\""""),
    ("call_id beside turn", {"point": "model.stream_cut", "turn": 0, "call_id": "c1"},
     """field 'faults/0': must not have 'call_id' (for point "model.stream_cut")"""),
    ("negative turn", {"point": "model.http_reset", "turn": -1}, "field 'faults/0/turn': -1 is less than the minimum of 0"),
    *[(f"repeat on {p}", {"point": p, "call_id": "c1", "repeat": "once"}, f"""field 'faults/0': must not have 'repeat' (for point "{p}")""") for p in TOOL_POINTS],
    *[(f"{p} with call_id instead of turn", {"point": p, "call_id": "c1", **({"status": 500} if p == "model.http_status" else {})},
       f"""field 'faults/0/turn': required, but missing (for point "{p}")""") for p in WIRE_POINTS],
]  # fmt: skip


@pytest.mark.parametrize("fault,expected", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_malformed_wire_fault_is_one_line_naming_the_file_and_the_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: dict[str, Any], expected: str) -> None:
    """The loader refuses the file: one line, the file as the user named it, the field and what is wrong there."""
    assert _error(_mine(tmp_path, [fault], monkeypatch)) == f"mine/{NAME}.json: {expected}"


def test_the_field_named_is_that_of_the_malformed_fault_not_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A well-formed fault first, a malformed one second: the message names ``faults/1``."""
    faults = [{"point": "model.bad_body", "turn": 0}, {"point": "model.http_status", "turn": 1}]
    assert _error(_mine(tmp_path, faults, monkeypatch)) == f"""mine/{NAME}.json: field 'faults/1/status': required, but missing (for point "model.http_status")"""


GOOD: list[dict[str, Any]] = [
    *[{"point": p, "turn": 1, **({"status": 503} if p == "model.http_status" else {}), **({"repeat": r} if r else {})}
      for p in WIRE_POINTS for r in (None, "once", "always")],
    {"point": "model.http_status", "turn": 0, "status": 400},
    {"point": "model.http_status", "turn": 0, "status": 599, "retry_after": 0},
    {"point": "model.http_status", "turn": 2, "status": 429, "retry_after": 2.5, "repeat": "always"},
]  # fmt: skip


@pytest.mark.parametrize("fault", GOOD, ids=[json.dumps(f, separators=(",", ":")) for f in GOOD])
def test_each_wire_point_with_a_turn_is_accepted_and_read_back_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: dict[str, Any]) -> None:
    """Every wire point with its ``turn`` (``model.http_status`` with a status from 400 to 599 and an optional
    ``retry_after``), with ``repeat`` absent, ``once`` or ``always``: loaded as that fault, written back the same."""
    loaded = load_scenario(_mine(tmp_path, [fault], monkeypatch))
    assert (loaded.faults, [f.to_json() for f in loaded.faults], loaded.uses_wire) == ((Fault.from_json(fault),), [fault], True)
    assert (loaded.faults[0].action, loaded.faults[0].turn, loaded.faults[0].repeat) == ("wire", fault["turn"], fault.get("repeat"))


def test_the_wire_points_are_exactly_the_five_endpoint_faults() -> None:
    """The points whose action is ``wire``: the model endpoint's five failures."""
    assert WIRE_POINTS == ("model.http_status", "model.http_reset", "model.stream_cut", "model.http_slow", "model.bad_body")


def test_uses_wire_holds_exactly_for_the_committed_wire_scenarios() -> None:
    """Among the committed scenarios, those with a wire fault are exactly those named ``wire_*`` (a
    ``model.kill_before_turn`` fault, which fires in process too, does not make a scenario a wire one)."""
    scenarios = load_scenarios()
    wire = sorted(s.id for s in scenarios if s.uses_wire)
    named = sorted(s.id for s in scenarios if s.id.startswith("wire_"))
    killed_before_a_turn = [s.id for s in scenarios if any(f.point == "model.kill_before_turn" for f in s.faults)]
    assert wire == named and wire != []
    assert killed_before_a_turn != [] and not set(killed_before_a_turn) & set(wire)
