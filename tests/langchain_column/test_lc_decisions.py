"""Decisions by call id on LangChain's batched HITL: a turn's calls decided one at a time, in any order, each
reach their own call (the column holds them until the turn is decided, then answers in the interrupt's order)."""

from __future__ import annotations

import lc_env

python, run_in_column = lc_env.python, lc_env.run_in_column  # the column's interpreter (pytest fixtures)

RUNS = """
from adapters.langchain.column import LangChainColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import SCENARIO_DIR, load_scenario

committed = load_scenario(SCENARIO_DIR / "decisions_out_of_order.json")  # reject c2 (email), then approve c1 (transfer)
flipped = dataclasses.replace(committed, driver=(  # the reverse decisions, still in reverse order: approve c2, then reject c1
    {"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}, {"action": "reject", "call_id": "c1", "reason": "no"}))
column, out = LangChainColumn(), {}
for mode in column.modes:
    for name, scenario in (("committed", committed), ("flipped", flipped)):
        record = run_raw(column, scenario, mode, TMP / f"{mode}-{name}")
        trace = [e for s in record["steps"] for e in s["trace"]]
        out[f"{mode}/{name}"] = {
            "statuses": [s["session_status"] for s in record["steps"]],
            "pending": [[p["call_id"] for p in s["pending"]] for s in record["steps"]],
            "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items()},
            "results": {e["call_id"]: e["status"] for e in trace if e["kind"] == "tool_result"},
            "held": [e["call_id"] for e in trace if e["kind"] == "decision_held"],
        }
print(json.dumps(out))
"""


def test_each_decision_reaches_its_own_call_whatever_order_the_driver_decides_in(run_in_column, tmp_path) -> None:  # type: ignore[no-untyped-def]
    runs = run_in_column(RUNS, tmp_path)
    for mode in ("defaults", "contract"):
        committed, flipped = runs[f"{mode}/committed"], runs[f"{mode}/flipped"]
        for run in (committed, flipped):
            assert run["statuses"] == ["awaiting_approval", "awaiting_approval", "completed"], mode
            # the interrupt lists the turn's calls in the model's order; the first decision waits for the second
            assert run["pending"] == [["c1", "c2"], ["c1", "c2"], []], mode
        assert committed["held"] == ["c2"] and flipped["held"] == ["c2"], mode
        # rejected email never entered, approved transfer ran once ...
        assert committed["effects"] == {"c1": 1} and committed["results"] == {"c1": "ok", "c2": "error"}, mode
        # ... and with the decisions flipped, the other way round: no decision landed on the other call
        assert flipped["effects"] == {"c2": 1} and flipped["results"] == {"c1": "error", "c2": "ok"}, mode
