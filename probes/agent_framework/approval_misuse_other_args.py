"""Agent Framework's approval response carries the call it approves (``function_call``), but an approval whose call
carries other arguments than the model's (the amount changed by one cent) is taken as the approval of the request it
names: the transfer runs, with the model's arguments (printed), and the run completes, where the contract refuses an approval
made for other arguments and keeps the call waiting.

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests``, and the approval built as a confused caller would, with
``Content.from_function_approval_response(approved=True, id=<the request's id>, function_call=<the call with edited
arguments>)`` (the constructor ``to_function_approval_response`` uses, ``agent_framework/_types.py``;
https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval) sent as a new run on the session saved
with ``to_dict()`` (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted
chat client and pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import call, deliver, fixture_tool, kept, send, side_effects, support_agent, text, tool_output
from agent_framework import Content, FunctionInvocationContext

from harness.column_side.probes.kit import report, world

SCENARIO = "approval_misuse_other_args"
SHOWS = ("side_effects.c1", "status", "step_statuses")

move = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [[call("c1", "transfer_funds", **move)], [text("Sent.")]]

fixture = world()


async def transfer_funds(ctx: FunctionInvocationContext, *, from_account: str, to_account: str, amount_cents: int, memo: str | None = None) -> dict:
    print(f"{ctx.metadata['call_id']}: the transfer runs with amount_cents={amount_cents}", flush=True)
    return tool_output(fixture, "transfer_funds", ctx, from_account=from_account, to_account=to_account, amount_cents=amount_cents, memo=memo)


agent = support_agent(SCRIPT, fixture, fixture_tool(transfer_funds))
statuses = [deliver(agent, "Send 25.00 from ACC-1 to ACC-2.")]  # driver step 0: c1 waits
request = kept()["c1"]
model_call = request.function_call
edited = Content.from_function_call(call_id="c1", name="transfer_funds", arguments={**move, "amount_cents": 2501}, id=model_call.id)
statuses.append(send(agent, [Content.from_function_approval_response(approved=True, id=request.id, function_call=edited)]))  # step 1
report(SCENARIO, {"side_effects.c1": side_effects("c1"), "status": statuses[-1], "step_statuses": statuses})
