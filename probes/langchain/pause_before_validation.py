"""``HumanInTheLoopMiddleware`` pauses on the model's raw tool call: the tool's argument model validates the
arguments only when the tool node invokes the tool, after the human approved, so the pause comes before validation.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, a checkpointer and
``Command(resume={"decisions": [...]})`` (https://docs.langchain.com/oss/python/langchain/human-in-the-loop),
``@tool(args_schema=...)`` with ``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools; the
schema's pydantic validator records each validation), a scripted chat model whose ``bind_tools`` returns itself
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
from pydantic import BaseModel, model_validator

from harness.column_side.probe_kit import report, world

SCENARIO = "high_risk_approved"
SHOWS = (
    "pre_approval_state.pauses.0.args_validated",
    "pre_approval_state.pauses.0.pending.0.args",
    "pre_approval_state.pauses.0.pending.0.tool",
)

fixture = world()
ARGS = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": ARGS}]), AIMessage("Sent 25.00 from ACC-1 to ACC-2.")]
validated: list[str] = []  # the call ids whose arguments the tool's argument model validated, in order


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=SCRIPT[sum(isinstance(m, AIMessage) for m in messages)])])


class TransferArgs(BaseModel):
    from_account: str
    to_account: str
    amount_cents: int
    call_id: Annotated[str, InjectedToolCallId]
    memo: str | None = None

    @model_validator(mode="after")
    def _record(self):
        validated.append(self.call_id)
        return self


@tool(args_schema=TransferArgs)
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: str, memo: str | None = None) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


agent = create_agent(Scripted(), tools=[transfer_funds], middleware=[HumanInTheLoopMiddleware(interrupt_on={"transfer_funds": True})],
                     checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}
agent.invoke({"messages": [{"role": "user", "content": "Send 25.00 from ACC-1 to ACC-2."}]}, config)
paused = agent.get_state(config)
request = paused.interrupts[0].value["action_requests"][0]  # what the human is asked to approve
found = {"pre_approval_state.pauses.0.args_validated": "c1" in validated,
         "pre_approval_state.pauses.0.pending.0.tool": request["name"], "pre_approval_state.pauses.0.pending.0.args": request["args"]}
agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
print("validated after the approval:", validated)
report(SCENARIO, found)
