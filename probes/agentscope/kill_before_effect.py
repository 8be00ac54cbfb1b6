"""AgentScope's state is saved when a reply returns: a process killed inside the approved transfer's executor (before
its effect) loses the whole step, so the saved state still asks about the call, the approval is gone, and the resume
(``reply(None)`` in a fresh process) is refused while a call awaits confirmation; nothing is reconciled or run again.
``approval_survives`` asks only about approvals given and not yet used at the kill (one is used once its call's
executor was entered): the probe reports ``None`` when c1's executor was entered in the killed step (as here: the
kill is inside it), else whether the saved state a resume finds still has c1 allowed.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over the ``AgentState`` saved with ``model_dump_json`` when a reply returns, the approval a
``UserConfirmResultEvent``, the saved call's ``ToolCallState``. A refusal is AgentScope's ``ValueError`` up to its
first colon, as in the evidence.
"""

from _kit import Driver, Scripted, effects, fixture_tools, saved_state, side_effects, status
from agentscope.message import ToolCallState, UserMsg

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "kill_before_effect"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "refusals.0",
    "side_effects",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
)
SCRIPT = [[("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."]
fixture = world(Fault("tool.kill_before_effect", call_id="c1"))


def driver() -> Driver:
    """A driver step in this process: the agent over the state saved when the last reply returned."""
    return Driver.saved(Scripted(SCRIPT), fixture_tools(fixture, "transfer_funds"), SCENARIO)


def approve() -> str:
    """The human approves the asking transfer (in a child: the kill ends it)."""
    run = driver()
    return run.step(run.confirmation(run.asking()[0]))


statuses = [driver().step(UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2."))]
entered = [counts().get("c1", {}).get("executor_entries", 0)]  # c1's executor entries when the approval is given
statuses.append("crashed" if in_child(approve) == FAULT_EXIT_CODE else "not killed")
before_resume, c1 = effects(), saved_state(SCENARIO).context[-1].get_content_blocks("tool_call")[0]  # what a resume finds
entered.append(counts().get("c1", {}).get("executor_entries", 0))  # ... and at the kill: more means the approval was used
resume = driver()
statuses.append(resume.step(None))
report(SCENARIO, {
    "checkpoint_after_interrupt.interrupts.0.resume_position": "awaiting_approval" if c1.state == ToolCallState.ASKING else str(c1.state),
    "checkpoint_after_interrupt.interrupts.0.approval_survives": None if entered[1] > entered[0] else c1.state == ToolCallState.ALLOWED,
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume": before_resume,
    "checkpoint_after_interrupt.effects_after_resume": effects(),
    "checkpoint_after_interrupt.final_status": status(saved_state(SCENARIO)),
    "refusals.0": resume.refusals[0] if resume.refusals else None, **{f"step_statuses.{i}": s for i, s in enumerate(statuses)},  # then the column refuses the reconcile
    "side_effects": side_effects(),
})
