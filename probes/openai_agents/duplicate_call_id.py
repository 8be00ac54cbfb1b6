"""A tool call whose call id the SDK already answered is dropped (neither run nor answered again), and the model is
sent the same input again and again until the default ``max_turns`` (10) raises ``MaxTurnsExceeded``.

Documented API only, through ``_kit.py``: ``Runner.run`` with the default ``max_turns`` and
``MaxTurnsExceeded`` (https://openai.github.io/openai-agents-python/running_agents/), ``exc.run_data``
(https://openai.github.io/openai-agents-python/ref/exceptions/), the ``@function_tool`` fixture tools, the scripted ``Model``.
"""

from _kit import calls_per_turn, fixture_tools, outputs, run, support_agent
from agents import MaxTurnsExceeded

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "duplicate_call_id"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.results", "model.calls_per_turn", "status")

NOTE = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": NOTE}]},
          {"tool_calls": [{"id": "c1", "name": "put_note", "arguments": NOTE}]},
          {"text": "The note is saved."}]

try:
    items, status = run(support_agent(SCRIPT, fixture_tools(world())["put_note"]), "Save a follow-up note.").new_items, "completed"
except MaxTurnsExceeded as exc:
    items, status = exc.run_data.new_items, "stopped_max_steps"
report(SCENARIO, {"model.calls_per_turn": calls_per_turn(), "status": status,
                  "idempotent_replay.c1.results": outputs(items, "c1"), "idempotent_replay.c1.effects": counts()["c1"]["effects"]})
