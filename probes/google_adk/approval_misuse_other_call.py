"""ADK binds a confirmation answer to its request (the ``adk_request_confirmation`` call's id), not to the call the
human meant: an approval meant for ``c1`` but carrying the request id of ``c2`` (an approval made for another call)
runs ``c2``, the 99.00 transfer, while ``c1`` keeps waiting (the contract refuses it). The rejection of ``c2`` that
follows answers a request already answered and is dropped.

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` answered with the
``adk_request_confirmation`` call's ``FunctionResponse`` sent with its ``invocation_id``
(https://google.github.io/adk-docs/tools-custom/confirmation/); a resumable ``App`` over ``SqliteSessionService``
(https://google.github.io/adk-docs/runtime/resume/, https://google.github.io/adk-docs/sessions/session/); a scripted
``BaseLlm`` (https://google.github.io/adk-docs/agents/models/).
"""

from _kit import answer, call, deliver, effects, scripted_app, side_effects, text, waiting

from harness.column_side.probes.kit import report, world

SCENARIO = "approval_misuse_other_call"
SHOWS = ("pre_approval_state.decisions.1.effects_before", "pre_approval_state.undecided_at_end", "side_effects.c2", "step_statuses")

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500),
           call("c2", "transfer_funds", from_account="ACC-1", to_account="ACC-3", amount_cents=9900)],
          [text("Done.")]]

app = scripted_app(SCRIPT, world(), "transfer_funds")
statuses = [deliver(app, "Send 25.00 from ACC-1 to ACC-2 and 99.00 from ACC-1 to ACC-3.")]  # driver step 0: c1 and c2 wait
statuses.append(answer(app, {"c2": True}))  # step 1: the approval for c1, made with c2's request id
before_reject = effects()
statuses.append(answer(app, {"c2": False}))  # step 2: reject c2, whose request is answered already
report(SCENARIO, {"pre_approval_state.decisions.1.effects_before": before_reject, "pre_approval_state.undecided_at_end": list(waiting()),
                  "side_effects.c2": side_effects("c2"), "step_statuses": statuses})
