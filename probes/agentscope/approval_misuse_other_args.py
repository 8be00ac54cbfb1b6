"""An AgentScope confirmation names its call with a ``ToolCallBlock`` (id, name, input). A ``ConfirmResult`` whose
``tool_call`` is the asking call's with its ``input`` edited (the amount changed) is taken: the transfer runs and the
run completes, where the contract refuses an approval made for other arguments.
Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over its default ``AgentState``, a ``UserConfirmResultEvent`` naming a ``ToolCallBlock`` built here.
"""

import json

from _kit import Driver, Scripted, fixture_tools
from agentscope.message import ToolCallBlock, UserMsg

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "approval_misuse_other_args"
SHOWS = ("side_effects.c1.effects", "step_statuses")

MOVE = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [[("c1", "transfer_funds", MOVE)], "Sent."]

run = Driver(Scripted(SCRIPT), fixture_tools(world(), "transfer_funds"))
statuses = [run.step(UserMsg(name="user", content="Send 25.00 from ACC-1 to ACC-2."))]
asking = next(b for m in run.agent.state.context for b in m.get_content_blocks("tool_call") if b.id == "c1")
edited = ToolCallBlock(id=asking.id, name=asking.name, input=json.dumps({**MOVE, "amount_cents": 2501}))
statuses.append(run.step(run.confirmation(edited)))  # the human's approval, made for other arguments
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"], "step_statuses": statuses})
