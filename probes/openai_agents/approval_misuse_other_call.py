"""An SDK approval item approves the call its ``raw_item`` names: handing over the item of the other pending transfer
(c2's, as the decision for c1) runs c2 at once, while c1 asks again; the rejection of c2 that follows finds no item
pending for it and sends nothing. The SDK refuses neither; the contract refuses the first (an approval made for
another call) outright, and c2 never moves.

Documented API only, through ``_kit.py``: ``@function_tool(needs_approval=True)``,
``result.interruptions``, ``result.to_state()``, ``state.approve(item)`` / ``state.reject(item, rejection_message=...)``,
``Runner.run(agent, state)`` (https://openai.github.io/openai-agents-python/human_in_the_loop/), the scripted ``Model``.
"""

from _kit import approve, fixture_tools, item, ledger, reject, run, status, support_agent

from harness.column_side.probes.kit import report, world

SCENARIO = "approval_misuse_other_call"
SHOWS = ("refusals", "side_effects", "step_statuses")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                          {"id": "c2", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 9900}}]},
          {"text": "Done."}]

agent = support_agent(SCRIPT, fixture_tools(world())["transfer_funds"])
result = run(agent, "Send 25.00 from ACC-1 to ACC-2 and 99.00 from ACC-1 to ACC-3.")
statuses, refusals = [status(result)], []


def decide(state) -> None:
    """Hand a decision to the SDK; a refusal by the SDK is an exception out of the run."""
    global result
    try:
        result = run(agent, state)
    except Exception as error:
        refusals.append(type(error).__name__)


decide(approve(result, item(result, "c2")))  # the decision for c1, made with c2's item
statuses.append(status(result))
if item(result, "c2") is not None:  # the rejection of c2: only with an item pending for it
    decide(reject(result, item(result, "c2"), "not this one"))
statuses.append(status(result))
report(SCENARIO, {"step_statuses": statuses, "side_effects": ledger(), "refusals": refusals})
