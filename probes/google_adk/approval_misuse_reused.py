"""ADK drops a confirmation answer it has already taken: the approval of the first transfer ``c1``, handed over
again for the second transfer ``c2`` (a reused approval), is neither refused nor acted on; the run ends as it was,
with ``c2`` still waiting and nothing run, and nothing tells the caller (the contract refuses it: ``reused``).

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` answered with the
``adk_request_confirmation`` call's ``FunctionResponse`` sent with its ``invocation_id``
(https://google.github.io/adk-docs/tools-custom/confirmation/); a resumable ``App`` over ``SqliteSessionService``
(https://google.github.io/adk-docs/runtime/resume/, https://google.github.io/adk-docs/sessions/session/); a scripted
``BaseLlm`` (https://google.github.io/adk-docs/agents/models/).
"""

from _kit import answer, call, deliver, effects, executor_entries, scripted_app, text, waiting

from harness.column_side.probes.kit import report, world

SCENARIO = "approval_misuse_reused"
SHOWS = ("pre_approval_state.pauses.2.pending.0.call_id", "pre_approval_state.pauses.2.non_read_only_effects", "step_statuses")

move = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [[call("c1", "transfer_funds", **move)], [call("c2", "transfer_funds", **move)], [text("Sent twice.")]]

app = scripted_app(SCRIPT, world(), "transfer_funds")
statuses = [deliver(app, "Send 25.00 from ACC-1 to ACC-2.")]  # driver step 0: c1 waits
statuses.append(answer(app, {"c1": True}))  # step 1: c1 runs, the model's next turn asks for c2, which waits
entered = executor_entries()
statuses.append(answer(app, {"c1": True}))  # step 2: the approval given for c1 handed over again, for c2
assert executor_entries() == entered, "nothing runs on the reused approval"
report(SCENARIO, {"pre_approval_state.pauses.2.pending.0.call_id": list(waiting())[0],
                  "pre_approval_state.pauses.2.non_read_only_effects": effects(), "step_statuses": statuses})
