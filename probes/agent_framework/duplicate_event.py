"""Agent Framework has no event id: the same inbound message delivered again (a retried webhook) is a new run on the
session, the model is asked for a turn beyond its script, and nothing tells the caller (the contract recognises the
second delivery and ignores it).

Documented API only, through the kit (``_kit.py``): ``agent.run(message, session=...)`` on an ``AgentSession`` saved
with ``to_dict()`` after every run (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session),
typed ``async`` function tools (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools), the
kit's scripted chat client and pass-through function middleware (there only to hand the tool its call id for the
ledger).
"""

from _kit import call, deliver, model_counts, side_effects, support_agent, text

from harness.column_side.probes.kit import report, world

SCENARIO = "duplicate_event"
SHOWS = ("idempotent_replay.c1.effects", "model.calls_per_turn", "model.missing_turns", "side_effects.c1", "step_statuses")

SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday.")], [text("The note is saved.")]]

agent = support_agent(SCRIPT, world(), "put_note")
statuses = [deliver(agent, "Save a follow-up note.") for _delivery in range(2)]  # the event e1, then the same event again
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn", "missing_turns"), "idempotent_replay.c1.effects": side_effects("c1")["effects"],
                  "side_effects.c1": side_effects("c1"), "step_statuses": statuses})
