"""The crash sweep's worst case for the Agents SDK: a kill right after a tool's effect, then a resume, and the effect
happens again. The runner saves the user's input in the ``SQLiteSession`` when the run starts and a turn's items (the
model's tool call, the tool's output) once the turn's tools have run (``agents/run.py``: ``save_result_to_session``
with the step's new items). The process dies after ``drop_database`` took effect, before those items were saved, so
the resume (the session's conversation continued with no new input, as ``kill_after_checkpoint.py`` does) finds the
user's message alone, asks the model for turn 0 again, and the scripted model calls ``c1`` again: two effects, where
the uninterrupted run had one.

Documented API only, through ``_kit.py``: ``Runner.run(agent, input, session=SQLiteSession(...))``
(https://openai.github.io/openai-agents-python/sessions/), the ``@function_tool`` fixture tools
(https://openai.github.io/openai-agents-python/tools/), the scripted ``Model``. Each driver step runs in a fresh process.
"""

from _kit import fixture_tools, run, session, side_effects, status, steps_in_children, support_agent

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "always_deny__after_c1"
MODE = "sweep"
SHOWS = ("side_effects.c1.effects",)

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "drop_database", "arguments": {"name": "prod"}}]},
          {"text": "I am not allowed to drop databases."}]
tools = fixture_tools(world(Fault("tool.kill_after_effect", call_id="c1")))


def step(action: str) -> str:
    """The run, killed after c1's effect; then the resume: the session's conversation continued with no new input."""
    agent = support_agent(SCRIPT, tools["drop_database"])
    return status(run(agent, "Drop the prod database." if action == "run" else [], session=session("sess-always_deny")))


assert list(steps_in_children(step, ("run", "resume")))[0] == "crashed"  # the kill fired in the run, after the effect
report(SCENARIO, {"side_effects.c1.effects": side_effects("c1")["side_effects.c1.effects"]})
