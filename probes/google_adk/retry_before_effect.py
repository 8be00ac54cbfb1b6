"""ADK does not retry a tool that failed: with no ``on_tool_error_callback`` its tool dispatch re-raises the tool's
exception (raised before the note's effect) out of the run, which ends in it; the model is never asked again (the
contract retries the call under the same key and completes).

Documented API only, through the kit (``_kit.py``): a typed function tool wrapped as ``FunctionTool``
(https://google.github.io/adk-docs/tools-custom/function-tools/), no tool callback set
(https://google.github.io/adk-docs/callbacks/types-of-callbacks/#tool-execution-callbacks), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/).
"""

from _kit import call, deliver, model_counts, scripted_app, side_effects, text

from harness.column_side.probes.kit import Fault, report, world
from harness.fixture_tools import InjectedToolError

SCENARIO = "retry_before_effect"
SHOWS = ("model.unused_turns", "side_effects.c1", "status", "step_statuses", "constants.tool_error")

SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday.")], [text("The note is saved.")]]

app = scripted_app(SCRIPT, world(Fault("tool.raise_before_effect", call_id="c1")), "put_note")
status = deliver(app, "Save a follow-up note.", errors=(InjectedToolError,))
report(SCENARIO, {"constants.tool_error": "raise" if status == "error" else "message", **model_counts(SCRIPT, "unused_turns"),
                  "side_effects.c1": side_effects("c1"), "status": status, "step_statuses": [status]})
