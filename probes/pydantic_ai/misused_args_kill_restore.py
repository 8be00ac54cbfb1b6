"""An approval with edited arguments that arrives after a crash has nowhere to go in Pydantic AI: the documented results
are built from the ``DeferredToolRequests`` a run returned, the run that took the approval died inside the transfer
(before its effect) and returned nothing, so no deferred call is waiting and nothing is handed over. Pydantic AI neither
refuses the approval nor acts on it (the contract refuses it: the transfer is not pending).

Documented API only, through the kit (``_kit.py``): ``requires_approval=True``, ``DeferredToolResults`` with
``ToolApproved(override_args=...)`` built from the calls a run waits on
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); the history written with
``ModelMessagesTypeAdapter`` when a run returns (https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json);
a scripted ``FunctionModel``.
"""

from _kit import executor_entries, run_saved, support_agent, waiting
from pydantic_ai import DeferredToolResults, ToolApproved
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "misused_args_kill_restore"
SHOWS = ("step_statuses.2", "step_statuses.3")

SCRIPT = [[ToolCallPart("get_balance", {"account": "ACC-1"}, tool_call_id="b1")],
          [ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="t1")],
          [ToolCallPart("put_note", {"key": "n", "text": "x"}, tool_call_id="n1")],
          [TextPart("done")]]

agent = support_agent(SCRIPT, world(Fault("tool.kill_before_effect", call_id="t1")), "get_balance", "transfer_funds", "put_note")


def decide(approvals: dict) -> str:
    """The driver's decision, handed over only for a call a returned run waits on; the step's status after it."""
    sent = {c: a for c, a in approvals.items() if c in waiting()}
    if sent and in_child(lambda: run_saved(agent, deferred_tool_results=DeferredToolResults(approvals=sent))) == FAULT_EXIT_CODE:
        return "crashed"
    return "awaiting_approval" if waiting() else "crashed" if not sent else "completed"


run_saved(agent, user_prompt="Check ACC-1, then send 25.00 to ACC-2 and note it.")  # driver step 0: the balance, then t1 waits
# step 1, snapshot: copies of the saved files (nothing runs)
args = waiting()["t1"]
statuses = {2: decide({"t1": True})}  # approve t1: the transfer's executor starts and the process dies
entered = sum(executor_entries().values())
statuses[3] = decide({"t1": ToolApproved(override_args={**args, "amount_cents": args["amount_cents"] + 1})})  # other arguments
print("executor entries in driver step 3:", sum(executor_entries().values()) - entered)
report(SCENARIO, {f"step_statuses.{i}": s for i, s in statuses.items()})
