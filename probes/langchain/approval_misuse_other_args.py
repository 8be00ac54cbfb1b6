"""A ``HumanInTheLoopMiddleware`` decision names no call; the only one that names arguments is ``edit``, whose
``edited_action`` carries them. An ``edit`` with other arguments than the model's call (the amount changed) is taken
at once: the transfer runs and the run completes, where the contract refuses an approval made for other arguments.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, a checkpointer, ``get_state`` and
``Command(resume={"decisions": [{"type": "edit", "edited_action": {...}}]})``
(https://docs.langchain.com/oss/python/langchain/human-in-the-loop); the agent, the ``@tool`` and the scripted chat model
are the kit's (``probes/langchain/_kit.py``).
"""

from _kit import Scripted, agent, call, decide, fixture_tools, step, thread, user
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "approval_misuse_other_args"
SHOWS = ("side_effects.c1.effects", "step_statuses")

ARGS = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
model = Scripted(script=[[call("c1", "transfer_funds", ARGS)], "Sent."])
app = agent(model, fixture_tools(world().call, "transfer_funds"), reviewed=("transfer_funds",), checkpointer=InMemorySaver())
config = thread("sess-approval_misuse_other_args")
EDIT = {"type": "edit", "edited_action": {"name": "transfer_funds", "args": {**ARGS, "amount_cents": 2501}}}
statuses = [step(app, payload, config) for payload in (user("Send 25.00 from ACC-1 to ACC-2."), decide(EDIT))]
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"], "step_statuses": statuses})
