"""Agent Framework holds a turn's calls until every approval of the turn is given, then runs them all, and saves the
session only when a run returns. Approving ``t1`` then ``t2`` runs the balance ``b1``, the note ``n1`` (which fails
before its effect: its error is handed on as the call's result), and both transfers; the process killed after
``t2``'s effect saved nothing, so the resume finds the session as the approval of ``t1`` left it (the turn's calls all
open, the first the read-only ``b1``) and, without asking the model, asks about ``t2`` again. Approving ``t2`` once
more runs the whole turn again: ``t1`` moves money a second time on an approval given for ``t2`` (that decision
reached another call), ``t2`` too, and the run completes; the contract stops for the reconciliation of ``t2``.

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=True)``
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval), an ``AgentSession`` saved with
``to_dict()`` after every run that returns and resumed with ``agent.run(None, session=...)``
(https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import answer, call, deliver, effects, every_side_effect, model_counts, pending, position, resume, support_agent, text

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "two_transfers_flaky_note_kill"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.calls_per_turn",
    "pre_approval_state.decisions.2.effects_before",
    "pre_approval_state.pauses.2.pending",
    "side_effects",
    "status",
    "step_statuses",
)

SCRIPT = [[call("b1", "get_balance", account="ACC-1"), call("n1", "put_note", key="n", text="x"),
           call("t1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500),
           call("t2", "transfer_funds", from_account="ACC-1", to_account="ACC-3", amount_cents=100)],
          [text("done")]]

agent = support_agent(SCRIPT, world(Fault("tool.raise_before_effect", call_id="n1"), Fault("tool.kill_after_effect", call_id="t2")),
                      "get_balance", "put_note", "transfer_funds")
statuses = [deliver(agent, "Check ACC-1, note it, and send 25.00 to ACC-2 and 1.00 to ACC-3.")]  # driver step 0: t1 and t2 wait
statuses.append(answer(agent, {"t1": True}))  # step 1: approve t1: held until t2 is answered
statuses.append("crashed" if in_child(lambda: answer(agent, {"t2": True})) == FAULT_EXIT_CODE else "not killed")  # step 2: the turn runs; dies after t2's effect
landed, (at, call_id) = effects(), position()
statuses.append(resume(agent))  # step 3: asks about t2 again
paused = pending()
before = effects()
statuses.append(answer(agent, {"t2": True}))  # step 4: approve t2: the whole turn runs again
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": landed, f"{interrupt}.pending_call.call_id": call_id, f"{interrupt}.resume_position": at,
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": statuses[-1],
                  **model_counts(SCRIPT, "calls_per_turn"), "pre_approval_state.decisions.2.effects_before": before,
                  "pre_approval_state.pauses.2.pending": paused, "side_effects": every_side_effect(), "status": statuses[-1], "step_statuses": statuses})
