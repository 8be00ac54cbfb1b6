"""Pydantic AI runs a turn's calls that need no approval and defers only the one that does: the note runs in the first
run, before the run returns its ``DeferredToolRequests``, so the kill inside it (before its effect) leaves no history
at all. The approval of the transfer then has no deferred call to go to, there is nothing to resume from, and the same
message delivered again starts over: the model is asked for its first turn a second time, the note runs again, and the
run waits for the transfer's approval. The contract pauses the whole turn for the transfer: nothing runs, so the kill
never fires.

Documented API only, through the kit (``_kit.py``): ``requires_approval=True`` and ``DeferredToolResults`` built from
the calls a run waits on (https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval);
the history written with ``ModelMessagesTypeAdapter`` when a run returns
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json); a scripted
``FunctionModel``. Each driver step runs in a fresh process (``in_child``).
"""

from _kit import HISTORY, asked, run_saved, support_agent, waiting
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "kill_in_batch_after_approved"
SHOWS = ("model.calls_per_turn.0", "side_effects.n1", "status", "step_statuses.0", "step_statuses.3")

PROMPT = "Send 25.00 from ACC-1 to ACC-2 and note it."
SCRIPT = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="t1"),
           ToolCallPart("put_note", {"key": "n", "text": "x"}, tool_call_id="n1")],
          [TextPart("done")]]

agent = support_agent(SCRIPT, world(Fault("tool.kill_before_effect", call_id="n1")), "transfer_funds", "put_note")
statuses = {0: "crashed" if in_child(lambda: run_saved(agent, user_prompt=PROMPT)) == FAULT_EXIT_CODE else "returned"}  # driver step 0
# step 1, approve t1: the results are built from the calls the last returned run waits on, and none does: nothing is sent
assert "t1" not in waiting() and not HISTORY.exists()
# step 2, resume: no history was saved, so there is no run to continue (the column refuses it)
run_saved(agent, user_prompt=PROMPT)  # step 3: the same message delivered again
statuses[3] = "awaiting_approval" if waiting() else "completed"
n1 = counts()["n1"]
report(SCENARIO, {"model.calls_per_turn.0": asked().count(0), "side_effects.n1": {k: n1[k] for k in ("tool_entries", "executor_entries", "effects")},
                  "status": statuses[3], "step_statuses.0": statuses[0], "step_statuses.3": statuses[3]})
