"""The SDK runs an approved call as soon as it is approved, while its sibling in the same turn still waits: the first
transfer moves money (and times out after its effect) before the human has decided the second one. Once the run has
completed, an approval of the second transfer finds no approval item for it: there is nothing to hand the SDK, which
refuses nothing and runs nothing. The contract holds a turn until every call in it is decided, then stops for the
reconcile of the timeout, and refuses the late approval (the call is not pending).

Documented API only, through ``_kit.py``: ``@function_tool(needs_approval=True)``,
``result.interruptions``, ``result.to_state()``, ``state.approve(item)``, ``Runner.run(agent, state)``, deciding only
some of the pending calls in one pass (https://openai.github.io/openai-agents-python/human_in_the_loop/), the default
``failure_error_function`` (https://openai.github.io/openai-agents-python/tools/#handling-errors-in-function-tools).
"""

from _kit import approve, fixture_tools, item, run, status, support_agent

from harness.column_side.probes.kit import Fault, counts, report, world

SCENARIO = "uncertain_then_second_transfer"
SHOWS = ("pre_approval_state.decisions.1.effects_before", "step_statuses.1", "step_statuses.2", "step_statuses.4")

SCRIPT = [{"tool_calls": [{"id": "t1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                          {"id": "t2", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 100}}]},
          {"text": "done"}]

agent = support_agent(SCRIPT, fixture_tools(world(Fault("tool.timeout_after_effect", call_id="t1")))["transfer_funds"])
result = run(agent, "Send 25.00 to ACC-2 and 1.00 to ACC-3 from ACC-1.")  # driver step 0: both ask
statuses, effects_before = {0: status(result)}, {}


def decide(step: int, call_id: str) -> None:
    """The approval of one call, on its approval item; with no item for the call there is nothing to hand over."""
    global result
    effects_before[step] = {c: n["effects"] for c, n in counts().items()}
    if item(result, call_id) is not None:
        result = run(agent, approve(result, item(result, call_id)))
    statuses[step] = status(result)


decide(1, "t1")  # t1 runs now, t2 still asks
decide(2, "t2")  # the human decides t2 after t1 already moved money
# driver step 3, reconcile t1: nothing in the SDK records an uncertain call (the column refuses it; nothing runs)
entered = sum(n["executor_entries"] for n in counts().values())
decide(4, "t2")  # t2 again, after the run completed
print("executor entries in driver step 4:", sum(n["executor_entries"] for n in counts().values()) - entered)
report(SCENARIO, {"pre_approval_state.decisions.1.effects_before": effects_before[2], **{f"step_statuses.{i}": statuses[i] for i in (1, 2, 4)}})
