"""Continuing from a saved checkpoint (LangGraph time travel) replays the approved transfer: ``create_agent`` keeps
no record of executed tool call ids, so approving c1 again from the paused checkpoint moves the money twice.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware`` and ``Command(resume={"decisions": [...]})``
(https://docs.langchain.com/oss/python/langchain/human-in-the-loop), ``get_state`` and a run from a prior
``checkpoint_id`` (https://docs.langchain.com/oss/python/langgraph/use-time-travel), ``@tool`` with
``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model whose
``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing).
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

SCENARIO = "resume_same_state_twice"
SHOWS = (
    "idempotent_replay.c1.effects",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
)

fixture = world()
ARGS = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": ARGS}]), AIMessage("Sent 25.00 from ACC-1 to ACC-2.")]


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
config = {"configurable": {"thread_id": "sess-resume_same_state_twice"}}
agent.invoke({"messages": [{"role": "user", "content": "Send 25.00 from ACC-1 to ACC-2."}]}, config)
paused = agent.get_state(config).config  # snapshot: the paused checkpoint's config (with its checkpoint_id)
agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), paused)  # restore the snapshot, approve again

ledger = counts()
found = {f"side_effects.c1.{k}": ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")}
report(SCENARIO, found | {"idempotent_replay.c1.effects": ledger["c1"]["effects"]})
