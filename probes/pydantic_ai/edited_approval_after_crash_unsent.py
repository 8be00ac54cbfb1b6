"""An approval with edited arguments that arrives after a crash has nowhere to go in Pydantic AI: the documented results
are built from the ``DeferredToolRequests`` a run returned, the run that took the approval died inside the transfer
(before its effect) and returned nothing, so no deferred call is waiting and nothing is handed over. Pydantic AI neither
refuses the approval nor acts on it (the contract refuses it: the transfer is not pending).

Documented API only: ``requires_approval=True``, ``DeferredToolResults`` with ``ToolApproved(override_args=...)`` built
from the calls a run waits on (https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval);
the history written with ``ModelMessagesTypeAdapter`` when a run returns
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json); typed function tools
(https://pydantic.dev/docs/ai/tools-toolsets/tools/); a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ModelMessagesTypeAdapter, RunContext, Tool, ToolApproved
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "misused_args_kill_restore"
SHOWS = ("step_statuses.2", "step_statuses.3")

fixture = world(Fault("tool.kill_before_effect", call_id="t1"))
script = [[ToolCallPart("get_balance", {"account": "ACC-1"}, tool_call_id="b1")],
          [ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="t1")],
          [ToolCallPart("put_note", {"key": "n", "text": "x"}, tool_call_id="n1")],
          [TextPart("done")]]
saved, waits = SCRATCH / "messages.json", SCRATCH / "waiting.json"  # both outlive a killed process


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    return ModelResponse(parts=script[sum(isinstance(m, ModelResponse) for m in messages)])


async def get_balance(ctx: RunContext[None], account: str) -> str:
    """The balance of an account. Read-only."""
    return json.dumps(fixture.call("get_balance", ctx.tool_call_id, {"account": account}))


async def transfer_funds(ctx: RunContext[None], from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts (high risk: needs a human approval)."""
    return json.dumps(fixture.call("transfer_funds", ctx.tool_call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


agent = Agent(FunctionModel(scripted), output_type=[str, DeferredToolRequests],
              tools=[get_balance, Tool(transfer_funds, requires_approval=True), put_note],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")


def run(**kwargs) -> None:
    """One run on the saved history; the history and the calls it waits on are written when it returns (a run that
    starts has taken the calls waited on before: a run that dies leaves none waiting)."""
    waits.write_text("[]")
    history = ModelMessagesTypeAdapter.validate_json(saved.read_bytes()) if saved.exists() else None
    result = agent.run_sync(message_history=history, **kwargs)
    saved.write_bytes(ModelMessagesTypeAdapter.dump_json(result.all_messages()))
    output = result.output
    waits.write_text(json.dumps({c.tool_call_id: c.args_as_dict() for c in output.approvals} if isinstance(output, DeferredToolRequests) else {}))


def decide(approvals: dict) -> str:
    """The driver's decision, handed over only for a call a returned run waits on; the step's status after it."""
    waiting = json.loads(waits.read_text())
    sent = {c: a for c, a in approvals.items() if c in waiting}
    if sent and in_child(lambda: run(deferred_tool_results=DeferredToolResults(approvals=sent))) == FAULT_EXIT_CODE:
        return "crashed"
    waiting = json.loads(waits.read_text())
    return "awaiting_approval" if waiting else "crashed" if not sent else "completed"


run(user_prompt="Check ACC-1, then send 25.00 to ACC-2 and note it.")  # driver step 0: the balance, then t1 waits
# step 1, snapshot: copies of the saved files (nothing runs)
args = json.loads(waits.read_text())["t1"]
statuses = {2: decide({"t1": True})}  # approve t1: the transfer's executor starts and the process dies
entered = sum(n["executor_entries"] for n in counts().values())
statuses[3] = decide({"t1": ToolApproved(override_args={**args, "amount_cents": args["amount_cents"] + 1})})  # other arguments
print("executor entries in driver step 3:", sum(n["executor_entries"] for n in counts().values()) - entered)
report(SCENARIO, {f"step_statuses.{i}": s for i, s in statuses.items()})
