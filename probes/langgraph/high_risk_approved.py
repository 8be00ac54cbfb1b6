"""LangGraph's approve-or-reject node pauses on the call the model made, before anything validated its
arguments: the tool's own schema (the only validation LangGraph has, run by ``ToolNode``) runs after the approval.

Documented API only: ``interrupt()`` in a node before the critical action, resumed with ``Command(resume=...)``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), a checkpointer
(https://docs.langchain.com/oss/python/langgraph/persistence), a tool whose ``args_schema`` takes the call id
(https://reference.langchain.com/python/langchain-core/tools/base/InjectedToolCallId); the graph with its review node
and the scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

from typing import Annotated

from _kit import APPROVE, Scripted, agent_graph, call, thread, user
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from pydantic import BaseModel, model_validator

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "high_risk_approved"
SHOWS = ("pre_approval_state.pauses.0.args_validated", "pre_approval_state.pauses.0.non_read_only_effects", "pre_approval_state.pauses.0.pending.0.call_id")
PINS = ("1.2.24", "0.6.11")

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


model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."])
app, config = agent_graph(model, [transfer_funds], review=True).compile(checkpointer=InMemorySaver()), thread("sess-high_risk_approved")

app.invoke(user("Send 25.00 from ACC-1 to ACC-2."), config)
asked = app.get_state(config).interrupts[0].value  # the pause: what the human is asked about
paused = {"args_validated": asked["call_id"] in validated, "pending.0.call_id": asked["call_id"],
          "non_read_only_effects": {cid: c["effects"] for cid, c in counts().items()}}
app.invoke(Command(resume=APPROVE), config)
print(f"the tool's schema validated {validated} only after the approval", flush=True)  # ToolNode ran it then

report(SCENARIO, {f"pre_approval_state.pauses.0.{key}": value for key, value in paused.items()})
