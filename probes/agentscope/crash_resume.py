"""AgentScope saves its state when a reply returns: the note asks for confirmation (default mode), and the reply that
the confirmation starts (given as the driver answers a question the contract would not have asked) writes the note and
is killed before the next model turn, so the saved state is the one from before the confirmation: the note's effect
landed, yet the call still asks. The resume (``reply(None)`` in a fresh process) is refused while it asks, and the
weather lookup of the next turn never runs.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over the ``AgentState`` saved with ``model_dump_json`` when a reply returns, the confirmation a
``UserConfirmResultEvent``, the saved call's ``ToolCallState``; the scripted model meets the kill before turn 1. A
refusal is AgentScope's ``ValueError`` up to its first colon, as in the evidence.
"""

from _kit import Driver, Scripted, effects, fixture_tools, saved_state, side_effects, status
from agentscope.message import ToolCallState, UserMsg

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "crash_resume"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "refusals",
    "side_effects",
    "status",
    "step_statuses",
)
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], [("c2", "get_weather", {"city": "Paris"})], "Saved; Paris is sunny."]
fixture = world(Fault("model.kill_before_turn", turn=1))


def driver() -> Driver:
    """A driver step in this process: the agent over the state saved when the last reply returned."""
    return Driver.saved(Scripted(SCRIPT, fixture), fixture_tools(fixture, "put_note", "get_weather"), SCENARIO)


killed = in_child(lambda: driver().step(UserMsg(name="user", content="Save a follow-up note, then tell me the weather in Paris."))) == FAULT_EXIT_CODE
before = effects()
asking = [b for b in saved_state(SCENARIO).context[-1].get_content_blocks("tool_call") if b.state == ToolCallState.ASKING]
resume = driver()
statuses = ["crashed" if killed else "completed", resume.step(None)]  # run (killed before turn 1), resume
final = status(saved_state(SCENARIO))
report(SCENARIO, {
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume": before,
    "checkpoint_after_interrupt.interrupts.0.resume_position": "awaiting_approval" if asking else "model_turn",
    "checkpoint_after_interrupt.effects_after_resume": effects(),
    "checkpoint_after_interrupt.final_status": final, "status": final,
    "refusals": resume.refusals, "step_statuses": statuses,
    "side_effects": side_effects(),
})
