"""LangGraph's approve-or-reject node pauses on the call the model made, before anything validated its
arguments: the tool's own schema (the only validation LangGraph has, run by ``ToolNode``) runs after the approval.

Documented API only: ``interrupt()`` in a node before the critical action, resumed with
``Command(resume=...)`` (https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), a
checkpointer (https://docs.langchain.com/oss/python/langgraph/persistence), ``ToolNode``
(https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode), a tool whose ``args_schema``
takes the call id (https://reference.langchain.com/python/langchain-core/tools/base/InjectedToolCallId), and
``GenericFakeChatModel`` replaying the script.
"""

from typing import Annotated

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt
from pydantic import BaseModel, model_validator

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "high_risk_approved"
SHOWS = (
    "pre_approval_state.pauses.0.args_validated",
    "pre_approval_state.pauses.0.non_read_only_effects",
    "pre_approval_state.pauses.0.pending.0.call_id",
)

fixture, validated = world(), []


class TransferArgs(BaseModel):
    from_account: str
    to_account: str
    amount_cents: int
    call_id: Annotated[str, InjectedToolCallId]

    @model_validator(mode="after")
    def seen(self) -> "TransferArgs":  # the tool's schema ran on this call: record when
        validated.append(self.call_id)
        return self


@tool(args_schema=TransferArgs)
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: str) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


script = iter([
    AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]),
    AIMessage("Sent 25.00 from ACC-1 to ACC-2."),
])
model = GenericFakeChatModel(messages=script)


def review(state: MessagesState) -> dict:
    call = state["messages"][-1].tool_calls[0]
    interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})  # approved when it returns
    return {}


graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("review", review)
graph.add_node("tools", ToolNode([transfer_funds]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition, {"tools": "review", "__end__": "__end__"})
graph.add_edge("review", "tools")
graph.add_edge("tools", "agent")
app, config = graph.compile(checkpointer=InMemorySaver()), {"configurable": {"thread_id": "sess-high_risk_approved"}}

app.invoke({"messages": [("user", "Send 25.00 from ACC-1 to ACC-2.")]}, config)
asked = app.get_state(config).interrupts[0].value  # the pause: what the human is asked about
paused = {"args_validated": asked["call_id"] in validated, "pending.0.call_id": asked["call_id"],
          "non_read_only_effects": {cid: c["effects"] for cid, c in counts().items()}}
app.invoke(Command(resume={"approve": True}), config)
print(f"the tool's schema validated {validated} only after the approval", flush=True)  # ToolNode ran it then

report(SCENARIO, {f"pre_approval_state.pauses.0.{key}": value for key, value in paused.items()})
