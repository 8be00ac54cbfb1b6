"""The contract's step bound on ``create_agent`` counts the model turns since the last user input from the saved
conversation, so it holds across a resume (LangChain's ``ModelCallLimitMiddleware`` run limit starts again at
every invocation, a resume included); ``defaults`` has no bound."""

from __future__ import annotations

import lc_env

python, run_in_column = lc_env.python, lc_env.run_in_column  # the column's interpreter (pytest fixtures)

RUNS = """
from adapters.langchain.column import LangChainColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import Fault
from harness.scenarios import SCENARIO_DIR, load_scenario

def weather(call_id):
    return {"tool_calls": [{"id": call_id, "name": "get_weather", "arguments": {"city": "Paris"}}]}

transfer = {"tool_calls": [{"id": "c2", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 5}}]}
base = load_scenario(SCENARIO_DIR / "high_risk_approved.json")
script = (weather("c1"), transfer, weather("c3"), weather("c4"), {"text": "done"})
after_approval = dataclasses.replace(base, tools=("get_weather", "transfer_funds"), max_steps=2, model_script=script,
    driver=({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}))
after_kill = dataclasses.replace(after_approval, max_steps=3, faults=(Fault("model.kill_before_turn", turn=2),),
    driver=({"action": "run", "event_id": "e1"}, {"action": "approve", "call_id": "c2"}, {"action": "resume"}))
column, out = LangChainColumn(), {}
for mode in ("contract", "defaults"):
    for name, scenario in (("after_approval", after_approval), ("after_kill", after_kill)):
        if mode == "defaults" and name == "after_kill":
            continue  # the defaults kill races the asynchronous checkpoint write (a schedule each): not this test's point
        record = run_raw(column, scenario, mode, TMP / f"{mode}-{name}")
        out[f"{mode}/{name}"] = {
            "statuses": [s["session_status"] for s in record["steps"]],
            "turns": sorted(int(t) for t in record["model"]["calls_per_turn"]),
            "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items() if n["effects"]},
        }
print(json.dumps(out))
"""


def test_the_contract_step_bound_holds_across_a_resume(run_in_column, tmp_path) -> None:  # type: ignore[no-untyped-def]
    runs = run_in_column(RUNS, tmp_path)
    # max_steps 2: turns 0 and 1 before the approval pause; the approved transfer runs, and the model gets no turn 2
    assert runs["contract/after_approval"] == {"statuses": ["awaiting_approval", "stopped_max_steps"], "turns": [0, 1], "effects": {"c2": 1}}
    # max_steps 3: killed before turn 2; the resume gives the model turn 2 (the third) and no more
    killed = runs["contract/after_kill"]
    assert killed["statuses"] == ["awaiting_approval", "crashed", "stopped_max_steps"] and killed["turns"] == [0, 1, 2]
    assert killed["effects"] == {"c2": 1}
    # defaults: create_agent counts no model turns; the script runs out
    assert runs["defaults/after_approval"]["statuses"] == ["awaiting_approval", "completed"]
    assert runs["defaults/after_approval"]["turns"] == [0, 1, 2, 3, 4]
