"""An SDK approval is the ``ToolApprovalItem`` of a paused run, and it approves the call its ``raw_item`` names: the
item of c1 (approved and run before) handed over again while the identical transfer c2 waits approves nothing, so c2
stays pending and the run pauses again, where the contract refuses the reused approval outright.

Documented API only, through ``_kit.py``: ``@function_tool(needs_approval=True)``,
``result.interruptions``, ``result.to_state()``, ``state.approve(item)``, ``Runner.run(agent, state)``
(https://openai.github.io/openai-agents-python/human_in_the_loop/), the scripted ``Model``.
"""

from _kit import approve, fixture_tools, ledger, run, status, support_agent

from harness.column_side.probes.kit import report, world

SCENARIO = "approval_misuse_reused"
SHOWS = ("side_effects", "step_statuses")

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": TRANSFER}]},
          {"tool_calls": [{"id": "c2", "name": "transfer_funds", "arguments": TRANSFER}]},
          {"text": "Sent twice."}]

agent = support_agent(SCRIPT, fixture_tools(world())["transfer_funds"])
result = run(agent, "Send 25.00 from ACC-1 to ACC-2.")
statuses, first = [status(result)], result.interruptions[0]  # c1's item
for item in (first, first):  # approve c1, then hand c1's item over again while c2 waits
    result = run(agent, approve(result, item))
    statuses.append(status(result))
report(SCENARIO, {"step_statuses": statuses, "side_effects": ledger()})  # c2 never entered: absent, as in the evidence
