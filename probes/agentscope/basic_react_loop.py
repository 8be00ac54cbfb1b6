"""AgentScope's default permission mode asks a human about every ``FunctionTool``: a read-only weather lookup parks the
reply on a confirmation, and so does every call after it (why always_deny, parallel_tool_calls, step_bound,
retry_before_effect... pause on calls the contract never asks about). Each is confirmed here as the driver answers a
question the contract would not have asked, so the loop goes on: three confirmations for three lookups. The default
``InjectionConfig`` adds a runtime hint (the current time, masked as in the evidence) that reaches the model as a
user message.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over its default ``AgentState``, a ``UserConfirmResultEvent`` confirming each asking
``ToolCallBlock``, the requests the scripted ``ChatModelBase`` received.
"""

import re

from _kit import Driver, Scripted, calls_per_turn, fixture_tools, requests, side_effects, unused_turns
from agentscope.message import UserMsg

from harness.column_side.probes.kit import report, world

SCENARIO = "basic_react_loop"
SHOWS = (
    "model.calls_per_turn",
    "model.injected",
    "model.unused_turns",
    "pre_approval_state.implicit_decisions",
    "pre_approval_state.undecided_at_end",
    "side_effects",
    "status",
    "step_statuses",
)
USER = "What is the weather in Paris and Oslo, and how long does shipping take?"
SCRIPT = [[("c1", "get_weather", {"city": "Paris"})], [("c2", "get_weather", {"city": "Oslo"})],
          [("c3", "search_kb", {"query": "shipping times"})], "Paris is sunny, Oslo has snow, and shipping takes 3 to 5 business days."]

run = Driver(Scripted(SCRIPT), fixture_tools(world(), "get_weather", "search_kb"))
status = run.step(UserMsg(name="user", content=USER))
hints = {m["content"][0]["text"] for request in requests() for m in request if m["role"] == "user" and m["content"][0]["text"] != USER}
report(SCENARIO, {
    "status": status, "step_statuses": [status],
    "side_effects": side_effects(),
    "pre_approval_state.implicit_decisions": run.implicit,
    "pre_approval_state.undecided_at_end": [c.id for c in run.asking()],
    "model.calls_per_turn": calls_per_turn(),
    "model.unused_turns": unused_turns(SCRIPT),
    "model.injected": sorted("user: " + re.sub("<current-time>.*?</current-time>", "<current-time>(wall clock)</current-time>", h) for h in hints),
})
