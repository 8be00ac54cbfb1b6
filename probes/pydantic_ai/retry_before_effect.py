"""Pydantic AI does not retry a tool that raises: any exception other than ``ModelRetry`` propagates out of the
run, so a write that fails before its effect ends the run with no effect and the model is not asked again (the
contract retries it under the same idempotency key and it writes once).

Documented API only, through the kit (``_kit.py``): typed function tools whose exceptions propagate
(https://pydantic.dev/docs/ai/tools-toolsets/tools-advanced/#tool-retries, https://pydantic.dev/docs/ai/tools-toolsets/tools/)
and a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

from _kit import model_counts, support_agent
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import Fault, counts, report, world

SCENARIO = "retry_before_effect"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "status",
)

SCRIPT = [[ToolCallPart("put_note", {"key": "followup", "text": "Call the customer back on Monday."}, tool_call_id="c1")],
          [TextPart("The note is saved.")]]

agent = support_agent(SCRIPT, world(Fault("tool.raise_before_effect", call_id="c1")), "put_note")  # the first attempt fails before any effect
try:
    agent.run_sync("Save a follow-up note.")
    status = "completed"
except Exception as error:  # noqa: BLE001 - the measurement is that the tool's exception ends the run
    status = "error"
    print(f"run ended by {type(error).__name__}: {error}")
c1 = counts()["c1"]
report(SCENARIO, {**model_counts(SCRIPT, "calls_per_turn", "unused_turns"), "side_effects.c1.executor_entries": c1["executor_entries"],
                  "side_effects.c1.effects": c1["effects"], "status": status})
