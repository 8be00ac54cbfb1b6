"""A tool that times out after its effect does not stop the run for reconciliation: ``ToolNode`` re-raises the
``TimeoutError`` out of the approved run (an error step), the model is never asked for its next turn, and the saved
state is left with the tools task still to run and no interrupt naming the uncertain call (nothing records that the
executor was entered, so LangChain has nothing to reconcile against).

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, ``get_state`` and
``Command(resume={"decisions": [...]})`` (https://docs.langchain.com/oss/python/langchain/human-in-the-loop),
``ToolNode``'s default ``handle_tool_errors`` (https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode),
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

from harness.column_side.probe_kit import Fault, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("model.calls_per_turn.0", "model.unused_turns", "status", "step_statuses.0", "step_statuses.1")

fixture = world(Fault(point="tool.timeout_after_effect", call_id="c1"))  # the transfer lands, then the call times out
ARGS = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": ARGS}]), AIMessage("Sent 25.00 from ACC-1 to ACC-2.")]
asked: list[int] = []  # the script turn of every model call


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        asked.append(sum(isinstance(m, AIMessage) for m in messages))
        return ChatResult(generations=[ChatGeneration(message=SCRIPT[asked[-1]])])


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


agent = create_agent(Scripted(), tools=[transfer_funds], middleware=[HumanInTheLoopMiddleware(interrupt_on={"transfer_funds": True})],
                     checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "sess-uncertain_after_timeout"}}
statuses = []
for payload in ({"messages": [{"role": "user", "content": "Send 25.00 from ACC-1 to ACC-2."}]}, Command(resume={"decisions": [{"type": "approve"}]})):
    try:
        agent.invoke(payload, config)
        state = agent.get_state(config)
        statuses.append("awaiting_approval" if state.interrupts else "completed" if not state.tasks else "crashed")
    except TimeoutError:  # out of invoke: the step is an error
        statuses.append("error")
state = agent.get_state(config)
print("left to run:", state.next, "interrupts:", state.interrupts)
status = "awaiting_approval" if state.interrupts else "crashed" if state.tasks else "completed"  # tasks left: the run died mid-way

found = {f"model.calls_per_turn.{t}": asked.count(t) for t in sorted(set(asked))}
found["model.unused_turns"] = sorted(set(range(len(SCRIPT))) - set(asked))
report(SCENARIO, found | {f"step_statuses.{i}": s for i, s in enumerate(statuses)} | {"status": status})
