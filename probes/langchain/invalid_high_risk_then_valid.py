"""A ``HumanInTheLoopMiddleware`` decision names no call: it answers whatever call the interrupt asks about. The
middleware asks about the model's raw call before the tool's argument model has seen it, so a transfer whose amount is
the string "2500" is what the human is asked about; the approval the human meant for the corrected transfer the
contract asks about instead (c2, sent once the schema error reached the model) goes to c1, whose arguments the tool's
argument model then coerces: c1 takes effect, c2 never runs, and the run pauses again for c2.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, a checkpointer, ``get_state`` and
``Command(resume={"decisions": [{"type": "approve"}]})`` (https://docs.langchain.com/oss/python/langchain/human-in-the-loop);
the agent, the ``@tool`` and the scripted chat model are the kit's (``probes/langchain/_kit.py``).
"""

from _kit import APPROVE, Scripted, agent, call, decide, fixture_tools, ledger, step, thread, user
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import report, world

SCENARIO = "invalid_high_risk_then_valid"
SHOWS = ("side_effects", "step_statuses")

VALID = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
model = Scripted(script=[[call("c1", "transfer_funds", {**VALID, "amount_cents": "2500"})], [call("c2", "transfer_funds", VALID)], "Sent 25.00 from ACC-1 to ACC-2."])
app = agent(model, fixture_tools(world().call, "transfer_funds"), reviewed=("transfer_funds",), checkpointer=InMemorySaver())
config, statuses, asked = thread("sess-invalid_high_risk_then_valid"), [], []
for payload in (user("Send 25.00 from ACC-1 to ACC-2."), decide(APPROVE)):
    statuses.append(step(app, payload, config))
    asked.append([r["args"] for i in app.get_state(config).interrupts for r in i.value["action_requests"]])
print("asked about, after each step:", asked)
report(SCENARIO, {"side_effects": ledger(), "step_statuses": statuses})
