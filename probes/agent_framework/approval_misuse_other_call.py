"""Agent Framework binds an approval response to the request it answers (the request's ``id`` and its
``function_call``), not to the call the human meant, and holds it until every request of the turn is answered: an
approval meant for ``c1`` but made from ``c2``'s request (an approval made for another call) is neither refused nor
acted on at once; it stands as ``c2``'s approval, the run answers with a new request for ``c1`` alone and nothing runs.
The rejection of ``c2`` that follows changes nothing, and says nothing: ``c1`` still waits and nothing runs (the
contract refuses the misused approval and keeps both calls waiting).

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=...)`` as a new run on
the session saved with ``to_dict()`` (https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval,
https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import answer, call, deliver, effects, every_side_effect, pending, support_agent, text

from harness.column_side.probes.kit import report, world

SCENARIO = "approval_misuse_other_call"
SHOWS = (
    "pre_approval_state.decisions.1.effects_before",
    "pre_approval_state.pauses.1.pending",
    "pre_approval_state.pauses.1.non_read_only_effects",
    "pre_approval_state.pauses.2.pending",
    "side_effects",
    "step_statuses",
)

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500),
           call("c2", "transfer_funds", from_account="ACC-1", to_account="ACC-3", amount_cents=9900)],
          [text("Done.")]]

agent = support_agent(SCRIPT, world(), "transfer_funds")
statuses, pauses = [deliver(agent, "Send 25.00 from ACC-1 to ACC-2 and 99.00 from ACC-1 to ACC-3.")], [pending()]  # driver step 0: c1 and c2 wait
statuses.append(answer(agent, {"c2": True}))  # step 1: the approval for c1, made from c2's request
pauses.append(pending())
before_reject = effects()
statuses.append(answer(agent, {"c2": False}))  # step 2: reject c2, whose request was answered already
pauses.append(pending())
report(SCENARIO, {"pre_approval_state.decisions.1.effects_before": before_reject, "pre_approval_state.pauses.1.pending": pauses[1],
                  "pre_approval_state.pauses.1.non_read_only_effects": before_reject, "pre_approval_state.pauses.2.pending": pauses[2],
                  "side_effects": every_side_effect(), "step_statuses": statuses})
