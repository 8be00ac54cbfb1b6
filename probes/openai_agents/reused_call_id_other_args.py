"""A later model turn that sends a completed call id again with other arguments ends the run: the runner's tool
planning raises ``ModelBehaviorError`` ("Model reused a completed tool call ID for a different invocation") before any
tool runs, so ``Runner.run`` raises it, where the contract answers the key conflict to the model as an error result and
goes on. The first note was written once; the model is not asked again.

Documented API only, through ``_kit.py``: ``Runner.run``
(https://openai.github.io/openai-agents-python/running_agents/) and ``ModelBehaviorError``
(https://openai.github.io/openai-agents-python/ref/exceptions/), the ``@function_tool`` fixture tools, the scripted ``Model``.
"""

from _kit import calls_per_turn, fixture_tools, outcome, side_effects, support_agent
from agents import ModelBehaviorError

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "reused_call_id_other_args"
SHOWS = (
    "idempotent_replay.c1.effects",
    "model.calls_per_turn",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "status",
    "step_statuses",
)

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Tuesday."}}]},
          {"text": "The note is saved."}]

agent = support_agent(SCRIPT, fixture_tools(world())["put_note"])
status = outcome(agent, "Save a follow-up note.", (ModelBehaviorError,))  # out of Runner.run: the run is over
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": calls_per_turn(),
                  "idempotent_replay.c1.effects": counts()["c1"]["effects"], **side_effects("c1")})
