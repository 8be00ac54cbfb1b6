"""Agent Framework does not retry a tool that failed: the tool's exception (raised before the note's effect) is caught
by its tool dispatch and handed to the model as the call's result (``Error: Function failed.``), and the run completes
with no effect (the contract retries the call under the same key: one more executor entry, one effect).

Documented API only, through the kit (``_kit.py``): a typed ``async`` function tool
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools) and the function invocation settings at
their defaults (``include_detailed_errors`` off; ``agent_framework/_tools.py``, ``_function_execution_error_result``),
an ``AgentSession`` saved with ``to_dict()`` whose history holds the result delivered
(https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session), the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import call, deliver, model_counts, results, side_effects, support_agent, text

from harness.column_side.probes.kit import Fault, report, world
from harness.fixture_tools import InjectedToolError

SCENARIO = "retry_before_effect"
SHOWS = ("model.unused_turns", "side_effects.c1", "status", "step_statuses", "constants.tool_error")

SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday.")], [text("The note is saved.")]]

status = deliver(support_agent(SCRIPT, world(Fault("tool.raise_before_effect", call_id="c1")), "put_note"), "Save a follow-up note.",
                 errors=(InjectedToolError,))
print("what the model got for c1:", results("c1"))
report(SCENARIO, {"constants.tool_error": "raise" if status == "error" else "message", **model_counts(SCRIPT, "unused_turns"),
                  "side_effects.c1": side_effects("c1"), "status": status, "step_statuses": [status]})
