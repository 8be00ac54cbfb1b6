"""Agent Framework holds an approval until every request of its turn is answered, and keeps that in the session saved
when a run returns. An approval of the transfer ``t1`` sent on another session (a session the caller does not keep)
is ignored there (the framework logs "Ignored an approval response ... because it did not match the active approval
occurrence identity") and starts that session afresh: the model is asked for its first turn again, and the caller's
session still waits on both calls (the contract refuses the approval). Approving ``t1`` then ``m1`` runs both; the process killed inside the
email (before its effect) saved nothing, so the resume finds the session as the approval of ``t1`` left it and asks
about ``m1`` again. Approving ``m1`` once more runs the transfer a second time (money moves twice: that decision
reached another call), the email, and the model's next turn, the note ``n1``; the contract stops for the email's
reconciliation. The approval of ``m1`` handed over again (reused) is neither refused nor acted on (the same logged
warning, nothing said to the caller): the model is asked for a turn beyond its script and nothing runs.

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=True)``
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval), an ``AgentSession`` saved with
``to_dict()`` after every run that returns, ``agent.create_session()`` for the other session, and the resume
``agent.run(None, session=...)`` (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the
kit's scripted chat client and pass-through function middleware (there only to hand the tool its call id for the
ledger).
"""

from _kit import (
    answer,
    call,
    deliver,
    effects,
    every_side_effect,
    executor_entries,
    model_counts,
    pending,
    position,
    resume,
    support_agent,
    text,
    waiting,
)

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "misused_approval_kill_resume"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.calls_per_turn",
    "model.missing_turns",
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.decisions.1.effects_before",
    "pre_approval_state.decisions.2.effects_before",
    "pre_approval_state.decisions.3.effects_before",
    "pre_approval_state.decisions.4.effects_before",
    "pre_approval_state.pauses.1.pending",
    "pre_approval_state.pauses.3.pending",
    "side_effects",
    "status",
    "step_statuses",
)

SCRIPT = [[call("t1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500), call("m1", "send_email", to="a@b.c", subject="s", body="b")],
          [call("n1", "put_note", key="n", text="x")], [text("done")]]

fixture = world(Fault("tool.kill_before_effect", call_id="m1"))
agent = support_agent(SCRIPT, fixture, "transfer_funds", "send_email", "put_note")
statuses, before, pauses = [deliver(agent, "Send 25.00 from ACC-1 to ACC-2, email the receipt and note it.")], {}, {0: pending()}  # step 0


def decide(n: int, decisions: dict[str, bool], **kwargs: object) -> None:
    """Driver step ``n``, a decision: the effects before it, then the approvals, and what ran in it."""
    before[n], entered = effects(), executor_entries()
    statuses.append(answer(agent, decisions, **kwargs))
    pauses[n] = pending()
    print(f"driver step {n}: ended {statuses[-1]}, executors entered in it: {sorted(c for c, k in executor_entries().items() if k > entered.get(c, 0))}")


decide(1, {"t1": True}, session=agent.create_session(session_id="another-session"), save=False)  # t1's approval, on a session not kept
statuses[-1] = "awaiting_approval" if waiting() else "completed"  # what the kept session says: nothing of that run is kept
decide(2, {"t1": True})  # approve t1: held until m1 is answered
before[3] = effects()
statuses.append("crashed" if in_child(lambda: answer(agent, {"m1": True})) == FAULT_EXIT_CODE else "not killed")  # step 3: approve m1; dies in m1
landed, (at, call_id) = effects(), position()
statuses.append(resume(agent))  # step 4: the resume asks about m1 again
pauses[4] = pending()
decide(5, {"m1": True})  # approve m1: t1 runs again, m1, then n1
decide(6, {"m1": True})  # m1's approval handed over again (reused)
interrupt = "checkpoint_after_interrupt.interrupts.0"
paused_steps = [n for n, s in enumerate(statuses) if s == "awaiting_approval"]
report(SCENARIO, {f"{interrupt}.effects_before_resume": landed, f"{interrupt}.pending_call.call_id": call_id, f"{interrupt}.resume_position": at,
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": statuses[-1],
                  **model_counts(SCRIPT, "calls_per_turn", "missing_turns"),
                  **{f"pre_approval_state.decisions.{i}.effects_before": before[n] for i, n in enumerate((1, 2, 3, 5, 6))},
                  **{f"pre_approval_state.pauses.{i}.pending": pauses[paused_steps[i]] for i in (1, 3)},
                  "side_effects": every_side_effect(), "status": statuses[-1], "step_statuses": statuses})
