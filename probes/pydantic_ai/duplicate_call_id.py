"""Pydantic AI keeps no record of the calls it executed: a write the model repeats with the same call id on a later
turn runs again (two effects; the contract replays the stored result).

Documented API only, through the kit (``_kit.py``): an ``Agent`` with a typed function tool
(https://pydantic.dev/docs/ai/tools-toolsets/tools/, the call id from ``RunContext.tool_call_id``) and a scripted
``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

from _kit import support_agent
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "duplicate_call_id"
SHOWS = ("idempotent_replay.c1.effects", "side_effects.c1.effects", "side_effects.c1.executor_entries")

note = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [[ToolCallPart("put_note", note, tool_call_id="c1")],
          [ToolCallPart("put_note", note, tool_call_id="c1")],
          [TextPart("The note is saved.")]]

support_agent(SCRIPT, world(), "put_note").run_sync("Save a follow-up note.")
c1 = counts()["c1"]
report(SCENARIO, {"idempotent_replay.c1.effects": c1["effects"], "side_effects.c1.executor_entries": c1["executor_entries"], "side_effects.c1.effects": c1["effects"]})
