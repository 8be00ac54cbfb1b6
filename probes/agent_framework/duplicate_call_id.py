"""Agent Framework keeps no record of the call ids it has run: a model turn that repeats an earlier call's id (``c1``)
runs the write again, a second effect under the same id, and the model gets a second, fresh result (the contract
replays the first result without running the tool).

Documented API only, through the kit (``_kit.py``): a typed ``async`` function tool
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools), an ``AgentSession`` saved with
``to_dict()`` whose history holds the results delivered
(https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session), the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id, ``ctx.metadata["call_id"]``, for the
ledger).
"""

from _kit import call, deliver, results, side_effects, support_agent, text

from harness.column_side.probes.kit import report, world

SCENARIO = "duplicate_call_id"
SHOWS = ("idempotent_replay.c1.effects", "idempotent_replay.c1.equal", "idempotent_replay.c1.results", "side_effects.c1")

NOTE = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [[call("c1", "put_note", **NOTE)], [call("c1", "put_note", **NOTE)], [text("The note is saved.")]]

deliver(support_agent(SCRIPT, world(), "put_note"), "Save a follow-up note.")
delivered = results("c1")
report(SCENARIO, {"idempotent_replay.c1.effects": side_effects("c1")["effects"], "idempotent_replay.c1.equal": bool(delivered) and len(set(delivered)) == 1,
                  "idempotent_replay.c1.results": delivered, "side_effects.c1": side_effects("c1")})
