"""A ``HumanInTheLoopMiddleware`` decision names no call; the only one that names arguments is ``edit``, whose
``edited_action`` carries them. An ``edit`` with other arguments than the model's call (the amount changed) is taken
at once: the transfer runs and the run completes, where the contract refuses an approval made for other arguments.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, a checkpointer, ``get_state`` and
``Command(resume={"decisions": [{"type": "edit", "edited_action": {...}}]})``
(https://docs.langchain.com/oss/python/langchain/human-in-the-loop), ``@tool`` with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model whose ``bind_tools`` returns itself
(https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

from typing import Annotated

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "approval_misuse_other_args"
SHOWS = ("side_effects.c1.effects", "step_statuses")

fixture = world()
ARGS = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": ARGS}]), AIMessage("Sent.")]


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=SCRIPT[sum(isinstance(m, AIMessage) for m in messages)])])


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


agent = create_agent(Scripted(), tools=[transfer_funds], middleware=[HumanInTheLoopMiddleware(interrupt_on={"transfer_funds": True})],
                     checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "sess-approval_misuse_other_args"}}
EDIT = {"type": "edit", "edited_action": {"name": "transfer_funds", "args": {**ARGS, "amount_cents": 2501}}}
statuses = []
for payload in ({"messages": [{"role": "user", "content": "Send 25.00 from ACC-1 to ACC-2."}]}, Command(resume={"decisions": [EDIT]})):
    agent.invoke(payload, config)
    state = agent.get_state(config)
    statuses.append("awaiting_approval" if state.interrupts else "completed" if not state.tasks else "crashed")
report(SCENARIO, {"side_effects.c1.effects": counts()["c1"]["effects"], "step_statuses": statuses})
