"""A kill scheduled between the engine's checkpoint of a call's intent and its executor never fires under
AgentScope's defaults: nothing in AgentScope meets that point. The note asks for confirmation (default mode) and,
confirmed as the driver answers a question the contract would not have asked, is written once; the reply returns, its
state is saved and the process ends normally. The resume (``reply(None)`` in a fresh process) finds nothing to
continue and asks the model for one more turn, beyond the script. No interrupt.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over the ``AgentState`` saved with ``model_dump_json`` when a reply returns, a
``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, the turns the scripted model was asked for.
"""

from _kit import Driver, Scripted, calls_per_turn, effects, fixture_tools, missing_turns
from agentscope.message import UserMsg

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts",
    "model.calls_per_turn",
    "model.missing_turns",
    "step_statuses",
)
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."})], "The note is saved."]
fixture = world(Fault("engine.kill_after_checkpoint", call_id="c1"))


def driver() -> Driver:
    """A driver step in this process: the agent over the state saved when the last reply returned."""
    return Driver.saved(Scripted(SCRIPT), fixture_tools(fixture, "put_note"), SCENARIO)


killed = in_child(lambda: driver().step(UserMsg(name="user", content="Save a follow-up note."))) == FAULT_EXIT_CODE
statuses = ["crashed" if killed else "completed", driver().step(None)]  # run (in a child a kill would end), resume
report(SCENARIO, {
    "checkpoint_after_interrupt.interrupts": [{"step": 0}] if killed else [],  # a kill's full record is not rebuilt here
    "checkpoint_after_interrupt.effects_after_resume": effects(),
    "checkpoint_after_interrupt.final_status": statuses[-1], "step_statuses": statuses,
    "model.calls_per_turn": calls_per_turn(),
    "model.missing_turns": missing_turns(SCRIPT),
})
