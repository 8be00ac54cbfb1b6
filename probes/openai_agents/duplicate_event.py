"""``Runner.run`` has no inbound event id: the same user input delivered again to the same ``SQLiteSession`` is a new
user turn, and the model is asked again (turn 2, beyond the script), where the engine refuses the duplicate event.

Documented API only, through ``_kit.py``: ``Runner.run(agent, input, session=SQLiteSession(...))``
(https://openai.github.io/openai-agents-python/sessions/), the ``@function_tool`` fixture tools, the scripted ``Model``.
"""

from _kit import calls_per_turn, fixture_tools, outputs, run, session, status, support_agent

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "duplicate_event"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.results", "model.calls_per_turn", "step_statuses")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"text": "The note is saved."}]

agent = support_agent(SCRIPT, fixture_tools(world())["put_note"])
conversation, statuses, answers = session("sess-duplicate_event"), [], []
for _ in ("run", "deliver_again"):  # the same event, delivered twice
    result = run(agent, "Save a follow-up note.", session=conversation)
    statuses.append(status(result))
    answers += outputs(result.new_items, "c1")
report(SCENARIO, {"model.calls_per_turn": calls_per_turn(), "step_statuses": statuses,
                  "idempotent_replay.c1.results": answers, "idempotent_replay.c1.effects": counts()["c1"]["effects"]})
