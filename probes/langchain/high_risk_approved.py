"""``HumanInTheLoopMiddleware`` pauses on the model's raw tool call: the tool's argument model validates the
arguments only when the tool node invokes the tool, after the human approved, so the pause comes before validation.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, a checkpointer and
``Command(resume={"decisions": [...]})`` (https://docs.langchain.com/oss/python/langchain/human-in-the-loop),
``@tool(args_schema=...)`` with ``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools; the
schema's pydantic validator records each validation); the agent and the scripted chat model are the kit's
(``probes/langchain/_kit.py``).
"""

from typing import Annotated

from _kit import APPROVE, Scripted, agent, call, decide, thread, user
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel, model_validator

from harness.column_side.probes.kit import report, world

SCENARIO = "high_risk_approved"
SHOWS = ("pre_approval_state.pauses.0.args_validated", "pre_approval_state.pauses.0.pending.0.args", "pre_approval_state.pauses.0.pending.0.tool")

fixture = world()
validated: list[str] = []  # the call ids whose arguments the tool's argument model validated, in order


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


model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."])
app, config = agent(model, [transfer_funds], reviewed=("transfer_funds",), checkpointer=InMemorySaver()), thread("t")
app.invoke(user("Send 25.00 from ACC-1 to ACC-2."), config)
request = app.get_state(config).interrupts[0].value["action_requests"][0]  # what the human is asked to approve
found = {"pre_approval_state.pauses.0.args_validated": "c1" in validated,
         "pre_approval_state.pauses.0.pending.0.tool": request["name"], "pre_approval_state.pauses.0.pending.0.args": request["args"]}
app.invoke(decide(APPROVE), config)
print("validated after the approval:", validated)
report(SCENARIO, found)
