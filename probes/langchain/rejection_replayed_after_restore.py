"""``HumanInTheLoopMiddleware``'s rejection stays with the checkpoint that asked: after time travel to the paused
checkpoint (saved before the rejection), the approval of t1 never reaches the middleware, whose saved answer (the
rejection) is applied again, so t1 is answered with the same rejection and the transfer never runs. The contract keeps
no rejection under the call's key: its restored pause waits again and the approval runs t1.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware`` and ``Command(resume={"decisions": [...]})``
(https://docs.langchain.com/oss/python/langchain/human-in-the-loop), ``get_state`` and a run from a prior
``checkpoint_id`` (https://docs.langchain.com/oss/python/langgraph/use-time-travel), ``context_schema`` and a tool
taking ``runtime: ToolRuntime[Context]`` (https://docs.langchain.com/oss/python/langchain/runtime), ``@tool`` with
``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model whose
``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

from dataclasses import dataclass
from typing import Annotated

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.tools import ToolRuntime
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "rejected_then_restored_approved"
SHOWS = ("idempotent_replay.t1.effects", "idempotent_replay.t1.equal", "idempotent_replay.t1.results", "side_effects")

fixture = world()
PROMPT = "Show my orders and Carol's, then send 25.00 from ACC-1 to ACC-2."
SCRIPT = [
    AIMessage("", tool_calls=[{"id": "o1", "name": "list_orders", "args": {"username": "bob"}},
                              {"id": "o2", "name": "list_orders", "args": {"username": "bob"}},
                              {"id": "o3", "name": "list_orders", "args": {"username": "carol"}}]),
    AIMessage("", tool_calls=[{"id": "t1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]),
    AIMessage("done"),
]


@dataclass
class SessionUser:
    user: str


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation (past its end: a closing text)."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        turn = sum(isinstance(m, AIMessage) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=SCRIPT[turn] if turn < len(SCRIPT) else AIMessage("[no scripted turn left]"))])


@tool
def list_orders(runtime: ToolRuntime[SessionUser]) -> str:
    """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
    return str(fixture.call("list_orders", runtime.tool_call_id, {"username": runtime.context.user}))


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


agent = create_agent(Scripted(), tools=[list_orders, transfer_funds], context_schema=SessionUser, checkpointer=InMemorySaver(),
                     middleware=[HumanInTheLoopMiddleware(interrupt_on={"transfer_funds": True})])
thread, bob = {"configurable": {"thread_id": "sess-rejected_then_restored_approved"}}, SessionUser(user="bob")


def decide(config: dict, decision: dict) -> list[str]:
    """The turn's one decision (t1 is its only reviewed call); the results t1 holds afterwards."""
    final = agent.invoke(Command(resume={"decisions": [decision]}), config, context=bob)
    return [m.content for m in final["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "t1"]


agent.invoke({"messages": [{"role": "user", "content": PROMPT}]}, thread, context=bob)  # driver step 0: the orders, then t1 asks
paused = agent.get_state(thread).config  # step 1, snapshot: the paused checkpoint
results = decide(thread, {"type": "reject", "message": "not approved"})  # step 2: reject t1
agent.invoke({"messages": [{"role": "user", "content": PROMPT}]}, thread, context=bob)  # step 3: the same event again, a new turn
results += decide(paused, {"type": "approve"})  # steps 4-5: restore the snapshot, approve t1

ledger = counts()
report(SCENARIO, {
    "side_effects": {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in ledger.items()},
    "idempotent_replay.t1.effects": ledger.get("t1", {}).get("effects", 0),
    "idempotent_replay.t1.results": results,
    "idempotent_replay.t1.equal": len(set(results)) == 1,
})
