"""Agent Framework saves the session when a run returns, so a process killed inside the approved transfer, after its
effect landed, leaves the session as the pause saved it: the call asked about and no answer. Resuming that session (a
run with no new input) asks the model for its first turn again (the saved turn's call, still unanswered, is left out
of what the model is sent) and asks about the transfer anew, with the money already moved and nothing saying so (the
contract stops for the reconciliation of the transfer; Agent Framework has no such step).

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")`` answered with
``request.to_function_approval_response(approved=True)`` (https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval),
an ``AgentSession`` saved with ``to_dict()`` after every run that returns and resumed with ``agent.run(None,
session=...)`` (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted chat
client and pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import answer, call, deliver, effects, model_counts, pending, position, resume, side_effects, support_agent, text

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "side_effect_before_checkpoint"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.calls_per_turn",
    "model.unused_turns",
    "pre_approval_state.pauses.1.non_read_only_effects",
    "pre_approval_state.pauses.1.pending",
    "side_effects.c1",
    "status",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
)

SCRIPT = [[call("c1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500)], [text("Sent 25.00 from ACC-1 to ACC-2.")]]

agent = support_agent(SCRIPT, world(Fault("tool.kill_after_effect", call_id="c1")), "transfer_funds")
statuses = [deliver(agent, "Send 25.00 from ACC-1 to ACC-2.")]  # driver step 0: c1 waits for its approval
statuses.append("crashed" if in_child(lambda: answer(agent, {"c1": True})) == FAULT_EXIT_CODE else "not killed")  # step 1: approve; dies after the effect
landed, (at, call_id) = effects(), position()  # what the killed step left: the money moved, the session the pause saved
statuses.append(resume(agent))  # step 2: the model's first turn again, and the transfer asked about anew
# step 3, reconcile c1: Agent Framework has no such step
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": landed, f"{interrupt}.pending_call.call_id": call_id, f"{interrupt}.resume_position": at,
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": statuses[2],
                  **model_counts(SCRIPT, "calls_per_turn", "unused_turns"), "pre_approval_state.pauses.1.non_read_only_effects": effects(),
                  "pre_approval_state.pauses.1.pending": pending(), "side_effects.c1": side_effects("c1"), "status": statuses[2],
                  **{f"step_statuses.{n}": s for n, s in enumerate(statuses)}})
