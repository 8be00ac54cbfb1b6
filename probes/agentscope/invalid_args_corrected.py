"""AgentScope repairs a call's arguments against the tool's schema before it validates them: ``{"city": 5}`` passes
as ``{"city": "5"}``, reaches the permission check and asks a human (default mode) with the model's raw arguments;
confirmed (as the driver answers a question the contract would not have asked), the tool runs with the repaired
value, so the model is never told its arguments were wrong (the same holds for ``"priority": "2"`` in
validation_before_execution, whose note is written).

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system,
.../middleware), through ``_kit.py``: ``Agent`` over its default ``AgentState``, a ``UserConfirmResultEvent``
confirming the asking ``ToolCallBlock``; here a middleware's ``on_check_permission`` sees the validated input.
"""

from _kit import CallIds, Driver, Scripted, calls_per_turn, fixture_tools, side_effects, unused_turns
from agentscope.message import UserMsg

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "invalid_args_corrected"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "pre_approval_state.implicit_decisions",
    "schema_failure_side_effects.c1",
    "side_effects",
    "status",
)
SCRIPT = [[("c1", "get_weather", {"city": 5})], [("c2", "get_weather", {"city": "Paris"})], "It is sunny in Paris."]
validated = {}


class Observe(CallIds):
    async def on_check_permission(self, agent, input_kwargs, next_handler):
        validated[input_kwargs["tool_call"].id] = input_kwargs["tool_input"]
        return await next_handler(**input_kwargs)


run = Driver(Scripted(SCRIPT), fixture_tools(world(), "get_weather"), middleware=Observe())
status = run.step(UserMsg(name="user", content="What is the weather in Paris?"))
print("AgentScope validated (repaired) and asked about:", validated)
c1 = counts().get("c1", {"tool_entries": 0, "executor_entries": 0, "effects": 0})
report(SCENARIO, {
    "status": status,
    "side_effects": side_effects(),
    "schema_failure_side_effects.c1": {"tool_entered": c1["tool_entries"] > 0, "executor_entries": c1["executor_entries"], "effects": c1["effects"]},
    "pre_approval_state.implicit_decisions": run.implicit,
    "model.calls_per_turn": calls_per_turn(),
    "model.unused_turns": unused_turns(SCRIPT),
})
