"""Agent Framework holds the note ``n1`` with the transfer ``t1`` it shares a turn with, and runs both once ``t1`` is
approved; the process killed inside the note (before its effect), after the transfer moved the money, saved nothing.
The resume finds the session as the pause left it: the model is asked for its first turn again (the saved turn's
calls, unanswered, are left out of what the model is sent) and ``t1`` is asked about anew, with its money already
moved and nothing saying the note's outcome is unknown; the same message delivered again is a new run that does the
same, and the transfer is left waiting with no result delivered for either call. The contract resumes at the note's
reconciliation and ignores the second delivery.

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=True)``
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval), an ``AgentSession`` saved with
``to_dict()`` after every run that returns and resumed with ``agent.run(None, session=...)``
(https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import answer, call, deliver, effects, every_side_effect, model_counts, pending, position, results, resume, support_agent, text

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "kill_in_batch_after_approved"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "idempotent_replay.n1.results",
    "idempotent_replay.t1.results",
    "model.calls_per_turn",
    "model.unused_turns",
    "pre_approval_state.pauses.1.pending",
    "pre_approval_state.pauses.2.pending",
    "side_effects",
    "status",
    "step_statuses",
)

PROMPT = "Send 25.00 from ACC-1 to ACC-2 and note it."
SCRIPT = [[call("t1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500), call("n1", "put_note", key="n", text="x")],
          [text("done")]]

agent = support_agent(SCRIPT, world(Fault("tool.kill_before_effect", call_id="n1")), "transfer_funds", "put_note")
statuses = [deliver(agent, PROMPT)]  # driver step 0: t1 waits, n1 with it
statuses.append("crashed" if in_child(lambda: answer(agent, {"t1": True})) == FAULT_EXIT_CODE else "not killed")  # step 1: t1 runs, n1 dies
landed, (at, call_id) = effects(), position()
statuses.append(resume(agent))  # step 2: the first turn again, t1 asked about anew
pauses = {2: pending()}
statuses.append(deliver(agent, PROMPT))  # step 3: the same message again: a new run, the same again
pauses[3] = pending()
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": landed, f"{interrupt}.pending_call.call_id": call_id, f"{interrupt}.resume_position": at,
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": statuses[-1],
                  "idempotent_replay.n1.results": results("n1"), "idempotent_replay.t1.results": results("t1"),
                  **model_counts(SCRIPT, "calls_per_turn", "unused_turns"), "pre_approval_state.pauses.1.pending": pauses[2],
                  "pre_approval_state.pauses.2.pending": pauses[3], "side_effects": every_side_effect(), "status": statuses[-1], "step_statuses": statuses})
