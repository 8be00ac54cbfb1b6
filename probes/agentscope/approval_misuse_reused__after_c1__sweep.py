"""The crash sweep's worst case for AgentScope: a kill right after an approved transfer took effect, and the transfer
happens again. AgentScope's state is saved when a reply returns; the process dies inside the approved reply, after
``c1``'s effect, so the saved state still awaits ``c1``'s confirmation. The resume (``reply(None)``) is refused while
a call awaits confirmation, and the scenario's next step hands the approval used before the kill over again (a reused
token, made for ``c1``): AgentScope takes it as the confirmation it awaits and runs the transfer a second time, where
the uninterrupted run moved the money once.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over the ``AgentState`` saved with ``model_dump_json`` when a reply returns, the approval a
``UserConfirmResultEvent``. Each driver step runs in this process on the saved state; the killed one in a child.
"""

from _kit import Driver, Scripted, fixture_tools
from agentscope.message import UserMsg

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "approval_misuse_reused__after_c1"
MODE = "sweep"
SHOWS = ("side_effects.c1.effects",)
TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [[("c1", "transfer_funds", TRANSFER)], [("c2", "transfer_funds", TRANSFER)], "Sent twice."]
fixture = world(Fault("tool.kill_after_effect", call_id="c1"))


def driver() -> Driver:
    """A driver step in this process: the agent over the state saved when the last reply returned."""
    return Driver.saved(Scripted(SCRIPT), fixture_tools(fixture, "transfer_funds"), SCENARIO)


def approve() -> str:
    """The human's approval, handed to the call AgentScope asks about."""
    run = driver()
    return run.step(run.confirmation(run.asking()[0]))


driver().step(UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2."))
assert in_child(approve) == FAULT_EXIT_CODE  # the approval of c1, killed after its effect
assert driver().step(None) == "refused"  # the resume: c1 still awaits its confirmation in the saved state
approve()  # the approval used before the kill, handed over again
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"]})
