"""Agent Framework binds an approval response to the request it answers, and a request already answered is not
answered again: the approval of the first transfer ``c1``, handed over again for the second transfer ``c2`` (a reused
approval), is neither refused nor acted on (the framework only logs "Ignored an approval response"). The run leaves
``c2``'s unanswered call out of what the model is sent, asks the model for that turn again and pauses on ``c2`` anew;
nothing runs and nothing tells the caller (the contract refuses it: ``reused``).

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=True)`` as a new run on
the session saved with ``to_dict()`` (https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval,
https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import answer, call, deliver, effects, executor_entries, model_counts, pending, support_agent, text

from harness.column_side.probes.kit import report, world

SCENARIO = "approval_misuse_reused"
SHOWS = ("model.calls_per_turn", "pre_approval_state.pauses.2.non_read_only_effects", "pre_approval_state.pauses.2.pending", "step_statuses")

move = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [[call("c1", "transfer_funds", **move)], [call("c2", "transfer_funds", **move)], [text("Sent twice.")]]

agent = support_agent(SCRIPT, world(), "transfer_funds")
statuses = [deliver(agent, "Send 25.00 from ACC-1 to ACC-2.")]  # driver step 0: c1 waits
statuses.append(answer(agent, {"c1": True}))  # step 1: c1 runs, the model's next turn asks for c2, which waits
entered = executor_entries()
statuses.append(answer(agent, {"c1": True}))  # step 2: the approval given for c1 handed over again, for c2
print(f"driver step 2: executors entered in it: {sorted(c for c, k in executor_entries().items() if k > entered.get(c, 0))}")
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn"), "pre_approval_state.pauses.2.non_read_only_effects": effects(),
                  "pre_approval_state.pauses.2.pending": pending(), "step_statuses": statuses})
