"""ADK runs a turn's calls as concurrent tasks and holds only the one that asks for confirmation: the note ``n1``
runs while the transfer ``t1`` waits, so the kill inside the note (before its effect) ends the very first run, before
ADK has written the pause; the session holds the model's turn and no confirmation request, so there is nothing to
approve. Resuming the invocation runs the note again (its effect lands now) and only then asks about the transfer;
the same message delivered again is a new invocation that asks the model for its next turn, and the transfer is
left waiting. The contract pauses the whole turn for the transfer: nothing runs before the decision, and the resume
stops for the note's reconciliation.

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` and the
``adk_request_confirmation`` requests read from the session (https://google.github.io/adk-docs/tools-custom/confirmation/);
a resumable ``App`` over ``SqliteSessionService`` resumed with ``run_async(invocation_id=..., new_message=None)``
(https://google.github.io/adk-docs/runtime/resume/, https://google.github.io/adk-docs/sessions/session/); a scripted
``BaseLlm`` (https://google.github.io/adk-docs/agents/models/). Each driver step is a fresh runner.
"""

from _kit import call, deliver, effects, model_counts, position, requests, resume, scripted_app, side_effects, text, waiting

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "kill_in_batch_after_approved"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.calls_per_turn",
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.pauses.0.non_read_only_effects",
    "pre_approval_state.pauses.0.pending.0.call_id",
    "pre_approval_state.pauses.0.step",
    "pre_approval_state.undecided_at_end",
    "side_effects.n1",
    "status",
    "step_statuses.0",
    "step_statuses.2",
    "step_statuses.3",
)

PROMPT = "Send 25.00 from ACC-1 to ACC-2 and note it."
SCRIPT = [[call("t1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500), call("n1", "put_note", key="n", text="x")],
          [text("done")]]

app = scripted_app(SCRIPT, world(Fault("tool.kill_before_effect", call_id="n1")), "transfer_funds", "put_note")
statuses = {0: "crashed" if in_child(lambda: deliver(app, PROMPT)) == FAULT_EXIT_CODE else "not killed"}  # driver step 0: n1 runs, dies
before_approve = effects()
print("step 1, approve t1: confirmation requests in the session:", requests())  # none: the pause was never written; nothing to send
before, (at, pending) = effects(), position()  # what the resume finds
statuses[2] = resume(app)  # step 2: n1 runs again, then t1 asks for its confirmation
paused = {"pending": list(waiting()), "effects": effects()}  # the first pause: the run paused nowhere before
statuses[3] = deliver(app, PROMPT)  # step 3: the same message again: a new invocation, the model's next turn
undecided = [c for c, r in requests().items() if r["answer"] is None]  # asked about, never answered
final = "awaiting_approval" if statuses[3] == "completed" and undecided else statuses[3]  # a run with a call still waiting is not completed
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": before, f"{interrupt}.pending_call.call_id": pending, f"{interrupt}.resume_position": at,
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": final,
                  **model_counts(SCRIPT, "calls_per_turn"), "pre_approval_state.decisions.0.effects_before": before_approve,
                  "pre_approval_state.pauses.0.non_read_only_effects": paused["effects"], "pre_approval_state.pauses.0.pending.0.call_id": paused["pending"][0],
                  "pre_approval_state.pauses.0.step": min(n for n, s in statuses.items() if s == "awaiting_approval"), "pre_approval_state.undecided_at_end": undecided,
                  "side_effects.n1": side_effects("n1"), "status": final, **{f"step_statuses.{n}": s for n, s in statuses.items()}})
