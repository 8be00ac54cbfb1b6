"""A ``HumanInTheLoopMiddleware`` decision names no call: it answers whatever call the interrupt asks about. The
middleware asks about the model's raw call before the tool's argument model has seen it, so a transfer whose amount is
the string "2500" is what the human is asked about; the approval the human meant for the corrected transfer the
contract asks about instead (c2, sent once the schema error reached the model) goes to c1, whose arguments the tool's
argument model then coerces: c1 takes effect, c2 never runs, and the run pauses again for c2.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, a checkpointer, ``get_state`` and
``Command(resume={"decisions": [{"type": "approve"}]})`` (https://docs.langchain.com/oss/python/langchain/human-in-the-loop),
``@tool`` with ``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model
whose ``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing).
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

SCENARIO = "invalid_high_risk_then_valid"
SHOWS = ("side_effects", "step_statuses")

fixture = world()
VALID = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": {**VALID, "amount_cents": "2500"}}]),
          AIMessage("", tool_calls=[{"id": "c2", "name": "transfer_funds", "args": VALID}]),
          AIMessage("Sent 25.00 from ACC-1 to ACC-2.")]


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
config = {"configurable": {"thread_id": "sess-invalid_high_risk_then_valid"}}
statuses, asked = [], []
for payload in ({"messages": [{"role": "user", "content": "Send 25.00 from ACC-1 to ACC-2."}]}, Command(resume={"decisions": [{"type": "approve"}]})):
    agent.invoke(payload, config)
    state = agent.get_state(config)
    asked.append([r["args"] for i in state.interrupts for r in i.value["action_requests"]])
    statuses.append("awaiting_approval" if state.interrupts else "completed" if not state.tasks else "crashed")
print("asked about, after each step:", asked)
ledger = {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()}
report(SCENARIO, {"side_effects": ledger, "step_statuses": statuses})
