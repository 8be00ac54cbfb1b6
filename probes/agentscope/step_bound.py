"""AgentScope's loop is bounded by its own ``max_iters`` only, not by the scenario's ``max_steps`` (3): every lookup
asks for confirmation (default mode) and, confirmed as the driver answers a question the contract would not have
asked (at most ``max_steps`` such pauses in a driver step), runs; after the third the model is asked for a fourth
turn, whose lookup is left asking, where the engine stopped at its bound.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over its default ``AgentState`` and ``ReActConfig``, a ``UserConfirmResultEvent`` confirming the
asking ``ToolCallBlock``.
"""

from _kit import Driver, Scripted, calls_per_turn, fixture_tools, pending, side_effects, unused_turns
from agentscope.message import UserMsg

from harness.column_side.probes.kit import report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn",
    "model.unused_turns",
    "pre_approval_state.pauses.0.pending",
    "pre_approval_state.undecided_at_end",
    "side_effects",
    "status",
    "step_statuses",
)
MAX_STEPS = 3
SCRIPT = [[(f"c{i}", "get_weather", {"city": "Paris"})] for i in range(1, 6)]

run = Driver(Scripted(SCRIPT), fixture_tools(world(), "get_weather"))
run.reply(UserMsg(name="user", content="Keep checking the weather in Paris."))
run.answer_implicit(limit=MAX_STEPS)  # the driver answers at most max_steps pauses in one driver step
status, asking = run.status(), run.asking()
report(SCENARIO, {
    "status": status, "step_statuses": [status],
    "side_effects": side_effects(),
    "pre_approval_state.pauses.0.pending": pending(asking),
    "pre_approval_state.undecided_at_end": [c.id for c in asking],
    "model.calls_per_turn": calls_per_turn(),
    "model.unused_turns": unused_turns(SCRIPT),
})
