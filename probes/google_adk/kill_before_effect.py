"""ADK's resumable app keeps every event in its session: a process killed inside the approved transfer, before its
effect, leaves the confirmation answered and no result for ``c1``, and resuming the invocation runs the transfer
again as if nothing could have happened (the outcome of the first entry is unknown: nothing stops for
reconciliation); the contract resumes at the reconciliation. The kill is inside c1's executor, so its approval was
used (``approval_survives`` is ``None``).

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` answered with the
``adk_request_confirmation`` call's ``FunctionResponse`` sent with its ``invocation_id``
(https://google.github.io/adk-docs/tools-custom/confirmation/); a resumable ``App`` over ``SqliteSessionService``
resumed with ``run_async(invocation_id=..., new_message=None)`` (https://google.github.io/adk-docs/runtime/resume/,
https://google.github.io/adk-docs/sessions/session/); a scripted ``BaseLlm`` (https://google.github.io/adk-docs/agents/models/).
"""

from _kit import answer, approval_survives, call, deliver, effects, executor_entries, position, resume, scripted_app, side_effects, text, waiting

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "kill_before_effect"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "side_effects.c1",
    "step_statuses.1",
    "step_statuses.2",
)

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent 25.00 from ACC-1 to ACC-2.")]]

app = scripted_app(SCRIPT, world(Fault("tool.kill_before_effect", call_id="c1")), "transfer_funds")
deliver(app, "Send 25.00 from ACC-1 to ACC-2.")  # driver step 0: c1 waits for its confirmation
granted = executor_entries()  # when the approval is given
killed = in_child(lambda: answer(app, {"c1": True})) == FAULT_EXIT_CODE  # step 1: approve; the process dies inside c1
before, entered, (at, pending) = effects(), executor_entries(), position()  # what the killed step left
resumed = resume(app)  # step 2: the resume enters c1 again, with nothing said about the first entry
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": before, f"{interrupt}.pending_call.call_id": pending, f"{interrupt}.resume_position": at,
                  f"{interrupt}.approval_survives": approval_survives(["c1"], granted, entered, list(waiting())),
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": resumed,
                  "side_effects.c1": side_effects("c1"), "step_statuses.1": "crashed" if killed else "not killed", "step_statuses.2": resumed})
