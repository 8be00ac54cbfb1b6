"""The SDK runs a turn's calls that need no approval at once, beside the one that does: the note runs in the first run,
before any pause is saved, so the kill inside it (before its effect) ends the run with nothing to resume from. The
approval that follows has no approval item to go to, the resume continues the saved conversation (the model is asked
for its first turn again and the note runs again), and the delivery of the same message afterwards sends the model an
assistant turn with only the note's call (the transfer's call, never answered, is left out), which the script never
wrote. The contract pauses the whole turn for the transfer's approval: nothing runs, so the kill never fires.

Documented API only, through ``_kit.py``: ``@function_tool(needs_approval=True)``,
``result.to_state().to_json()`` saved while paused, ``RunState.from_json``, ``state.approve(item)``,
``Runner.run(agent, state, session=...)`` (https://openai.github.io/openai-agents-python/human_in_the_loop/),
``SQLiteSession`` and a run with no new input continuing it (https://openai.github.io/openai-agents-python/sessions/).
Each driver step runs in a fresh process.
"""

from _kit import fixture_tools, injected, item, ledger, run, save_paused, saved_state, session, status, steps_in_children, support_agent

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "kill_in_batch_after_approved@kill_first"
SHOWS = ("model.injected", "side_effects.n1", "step_statuses.0", "step_statuses.2", "step_statuses.3")

PROMPT = "Send 25.00 from ACC-1 to ACC-2 and note it."
SCRIPT = [{"tool_calls": [{"id": "t1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                          {"id": "n1", "name": "put_note", "arguments": {"key": "n", "text": "x"}}]},
          {"text": "done"}]
tools = fixture_tools(world(Fault("tool.kill_before_effect", call_id="n1")))


def step(action: str) -> str:
    """One driver step, from what the earlier processes saved (the session, a paused run's state)."""
    agent = support_agent(SCRIPT, tools["transfer_funds"], tools["put_note"])
    state = saved_state(agent) if action != "deliver" else None
    if action == "approve":
        approval = item(state, "t1") if state else None
        if approval is None:  # no paused run holds an approval item for t1: nothing to hand the SDK
            return "no item"
        state.approve(approval)
    result = run(agent, state or (PROMPT if action in ("run", "deliver") else []), session=session("sess-kill_in_batch_after_approved"))
    save_paused(result)
    return status(result)


statuses = []
for outcome in steps_in_children(step, ("run", "approve", "resume", "deliver")):  # deliver: the same event delivered again
    statuses.append(statuses[-1] if outcome == "no item" else outcome)  # nothing handed over: the session stays as it was
report(SCENARIO, {"model.injected": injected(), "side_effects.n1": ledger()["n1"], **{f"step_statuses.{i}": statuses[i] for i in (0, 2, 3)}})
