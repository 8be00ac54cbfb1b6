"""The SDK has no checkpoint between a tool call's intent and its executor, so the engine's kill point there never
fires: the run completes. The resume that follows finds no paused ``RunState`` (nothing is pending) and nothing that
says the run ended, so it continues the ``SQLiteSession``'s conversation and asks the model for one more turn.

Documented API only, through ``_kit.py``: ``Runner.run(agent, input, session=SQLiteSession(...))``,
the session's history prepended to a resume's (empty) input (https://openai.github.io/openai-agents-python/sessions/),
the ``@function_tool`` fixture tools, the scripted ``Model``. Each driver step runs in a fresh process.
"""

from _kit import calls_per_turn, fixture_tools, run, session, status, steps_in_children, support_agent

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = ("checkpoint_after_interrupt.interrupts", "model.calls_per_turn", "step_statuses")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"text": "The note is saved."}]
tools = fixture_tools(world(Fault("engine.kill_after_checkpoint", call_id="c1")))


def step(action: str) -> str:
    """One driver step: the run, or a resume that continues the session's conversation."""
    agent = support_agent(SCRIPT, tools["put_note"])
    return status(run(agent, "Save a follow-up note." if action == "run" else [], session=session("sess-kill_after_checkpoint")))


statuses = list(steps_in_children(step, ("run", "resume")))
# interrupts: the steps a kill ended (each would be an interrupt record; none, since the SDK never reaches the kill point)
report(SCENARIO, {"checkpoint_after_interrupt.interrupts": [i for i, s in enumerate(statuses) if s == "crashed"],
                  "step_statuses": statuses, "model.calls_per_turn": calls_per_turn()})
