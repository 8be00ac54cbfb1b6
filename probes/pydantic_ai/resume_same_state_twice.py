"""Pydantic AI keeps no record of executed calls: the saved history of a pause, delivered again after the approved
transfer ran and approved again, runs the transfer a second time (the contract replays the stored result).

Documented API only, through the kit (``_kit.py``): the paused history saved with ``ModelMessagesTypeAdapter``
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json), continued with
``DeferredToolResults`` built from ``requests.approvals``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); a scripted ``FunctionModel``.
"""

from _kit import approve_all, decide, support_agent
from pydantic_ai import ModelMessagesTypeAdapter
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "resume_same_state_twice"
SHOWS = ("idempotent_replay.c1.effects", "side_effects.c1.effects", "side_effects.c1.executor_entries")

SCRIPT = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")],
          [TextPart("Sent 25.00 from ACC-1 to ACC-2.")]]

agent = support_agent(SCRIPT, world(), "transfer_funds")
paused = agent.run_sync("Send 25.00 from ACC-1 to ACC-2.")
snapshot = ModelMessagesTypeAdapter.dump_json(paused.all_messages())  # the pause, saved
for _delivery in range(2):  # approve; then restore the saved pause and approve again
    decide(agent, ModelMessagesTypeAdapter.validate_json(snapshot), approve_all(paused.output))
c1 = counts()["c1"]
report(SCENARIO, {"idempotent_replay.c1.effects": c1["effects"], "side_effects.c1.executor_entries": c1["executor_entries"], "side_effects.c1.effects": c1["effects"]})
