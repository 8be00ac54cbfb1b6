"""ADK's resumable app keeps every event in its session: a process killed inside the approved transfer, after its
effect landed, leaves the confirmation answered and no result for ``c1``, and resuming the invocation runs the
transfer again (money moves twice) and completes; the contract stops for reconciliation instead. The kill follows
c1's effect, so its approval was used (``approval_survives`` is ``None``).

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` answered with the
``adk_request_confirmation`` call's ``FunctionResponse`` sent with its ``invocation_id``
(https://google.github.io/adk-docs/tools-custom/confirmation/); a resumable ``App`` over ``SqliteSessionService``
resumed with ``run_async(invocation_id=..., new_message=None)`` (https://google.github.io/adk-docs/runtime/resume/,
https://google.github.io/adk-docs/sessions/session/); a scripted ``BaseLlm`` (https://google.github.io/adk-docs/agents/models/).
"""

from _kit import answer, approval_survives, call, deliver, effects, executor_entries, model_counts, position, resume, scripted_app, side_effects, text, waiting

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "side_effect_before_checkpoint"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.calls_per_turn",
    "model.injected",
    "side_effects.c1",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
)

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent 25.00 from ACC-1 to ACC-2.")]]

app = scripted_app(SCRIPT, world(Fault("tool.kill_after_effect", call_id="c1")), "transfer_funds")
statuses = [deliver(app, "Send 25.00 from ACC-1 to ACC-2.")]  # driver step 0: c1 waits for its confirmation
granted = executor_entries()  # when the approval is given
statuses.append("crashed" if in_child(lambda: answer(app, {"c1": True})) == FAULT_EXIT_CODE else "not killed")  # step 1: approve
landed, entered, (at, pending) = effects(), executor_entries(), position()  # what the killed step left
statuses.append(resume(app))  # step 2: the resume runs c1 again
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": landed, f"{interrupt}.pending_call.call_id": pending, f"{interrupt}.resume_position": at,
                  f"{interrupt}.approval_survives": approval_survives(["c1"], granted, entered, list(waiting())),
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": statuses[2],
                  **model_counts(SCRIPT, "calls_per_turn", "injected"), "side_effects.c1": side_effects("c1"),
                  **{f"step_statuses.{n}": s for n, s in enumerate(statuses)}})
