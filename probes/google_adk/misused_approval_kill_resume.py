"""ADK's confirmation answer names only the request it answers (the ``adk_request_confirmation`` call's id): an
approval made in another session is the plain approval of ``t1``, and the transfer runs at once, while the email
``m1`` still waits (the contract refuses that approval and holds the turn). A confirmation answered again (``t1`` at
driver step 2, ``m1`` at 5, ``m1``'s approval reused at 6) is dropped without a word: the run ends as it was and
nothing runs. The process killed inside the approved email (before its effect) leaves the confirmation answered and
no result, and the resume sends the email again and completes, where the contract stops for reconciliation.

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` answered with the
``adk_request_confirmation`` call's ``FunctionResponse`` sent with its ``invocation_id``
(https://google.github.io/adk-docs/tools-custom/confirmation/); a resumable ``App`` over ``SqliteSessionService``
resumed with ``run_async(invocation_id=..., new_message=None)`` (https://google.github.io/adk-docs/runtime/resume/,
https://google.github.io/adk-docs/sessions/session/); a scripted ``BaseLlm`` (https://google.github.io/adk-docs/agents/models/).
"""

from _kit import answer, call, deliver, effects, executor_entries, model_counts, position, resume, scripted_app, side_effects, text

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "misused_approval_kill_resume"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.calls_per_turn",
    "pre_approval_state.decisions.1.effects_before",
    "pre_approval_state.decisions.2.effects_before",
    "pre_approval_state.decisions.3.effects_before",
    "pre_approval_state.decisions.4.effects_before",
    "side_effects.m1",
    "status",
    "step_statuses",
)

SCRIPT = [[call("t1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500), call("m1", "send_email", to="a@b.c", subject="s", body="b")],
          [call("n1", "put_note", key="n", text="x")], [text("done")]]

app = scripted_app(SCRIPT, world(Fault("tool.kill_before_effect", call_id="m1")), "transfer_funds", "send_email", "put_note")
statuses, before = [deliver(app, "Send 25.00 from ACC-1 to ACC-2, email the receipt and note it.")], {}  # driver step 0: t1 and m1 wait


def decide(n: int, decisions: dict[str, bool]) -> None:
    """Driver step ``n``, a decision: the effects before it, then the confirmation answers, and what ran in it."""
    before[n], entered = effects(), executor_entries()
    statuses.append(answer(app, decisions))
    print(f"driver step {n}: ended {statuses[-1]}, executors entered in it: {sorted(c for c, k in executor_entries().items() if k > entered.get(c, 0))}")


decide(1, {"t1": True})  # the approval made in another session: ADK's answer carries no session, so it is t1's approval
decide(2, {"t1": True})  # approve t1, answered already: dropped
before[3] = effects()
statuses.append("crashed" if in_child(lambda: answer(app, {"m1": True})) == FAULT_EXIT_CODE else "not killed")  # step 3: approve m1; dies in it
landed, (at, pending) = effects(), position()
statuses.append(resume(app))  # step 4: m1 runs again, then n1, then the answer
decide(5, {"m1": True})  # approve m1, answered already: dropped
decide(6, {"m1": True})  # m1's approval handed over again (reused): dropped
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": landed, f"{interrupt}.pending_call.call_id": pending, f"{interrupt}.resume_position": at,
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": statuses[-1],
                  **model_counts(SCRIPT, "calls_per_turn"), **{f"pre_approval_state.decisions.{i}.effects_before": before[n] for i, n in enumerate((2, 3, 5, 6), 1)},
                  "side_effects.m1": side_effects("m1"), "status": statuses[-1], "step_statuses": statuses})
