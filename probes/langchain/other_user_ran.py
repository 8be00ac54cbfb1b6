"""A tool that acts for the session's user takes the user from the run's context, but the model can still name another
user: ``list_orders`` reads the user from ``ToolRuntime``'s context (bob), and the model's extra ``username`` argument
(alice) is simply dropped by the ``@tool`` argument model, so the call runs (for bob) where the contract refuses it.

Documented API only: ``create_agent(..., context_schema=...)`` and ``invoke(..., context=...)``, a tool taking
``runtime: ToolRuntime[Context]`` (https://docs.langchain.com/oss/python/langchain/runtime, "Inside tools";
https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolRuntime), ``create_agent``
(https://docs.langchain.com/oss/python/langchain/agents), a scripted chat model whose ``bind_tools`` returns itself
(https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

from dataclasses import dataclass

from langchain.agents import create_agent
from langchain.tools import ToolRuntime, tool
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "identity_scoped_tool"
SHOWS = (
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "side_effects.c2.effects",
    "side_effects.c2.executor_entries",
    "side_effects.c2.tool_entries",
)

fixture = world()
SCRIPT = [
    AIMessage("", tool_calls=[{"id": "c1", "name": "list_orders", "args": {}}]),
    AIMessage("", tool_calls=[{"id": "c2", "name": "list_orders", "args": {"username": "alice"}}]),  # another user
    AIMessage("You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders."),
]


@dataclass
class SessionUser:
    user: str


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
def list_orders(runtime: ToolRuntime[SessionUser]) -> str:
    """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
    return str(fixture.call("list_orders", runtime.tool_call_id, {"username": runtime.context.user}))


agent = create_agent(Scripted(), tools=[list_orders], context_schema=SessionUser)
result = agent.invoke({"messages": [{"role": "user", "content": "What are my orders? And what did alice order?"}]},
                      context=SessionUser(user="bob"))
print("c2 answered:", next(m.content for m in result["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "c2"))

ledger = counts()
report(SCENARIO, {f"side_effects.{c}.{k}": ledger[c][k] for c in ("c1", "c2") for k in ("tool_entries", "executor_entries", "effects")})
