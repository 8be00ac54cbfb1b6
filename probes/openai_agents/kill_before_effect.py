"""The SDK saves nothing while a run goes on: the only state a restarted process finds is the ``RunState`` JSON saved
when the run paused, before the approval. A kill inside the approved transfer (before its effect) therefore resumes
at the approval again: the approval is lost, the call is not run, and the run waits for a decision it already had.
``approval_survives`` asks only about approvals given and not yet used at the kill (one is used once its call's
executor was entered): the probe reports ``None`` when c1's executor was entered in the killed step (as here: the
kill is inside it), else whether the resume went on without asking again.

Documented API only, through ``_kit.py``: ``@function_tool(needs_approval=True)``,
``result.to_state().to_json()`` saved while paused, ``RunState.from_json``, ``state.approve(item)``,
``Runner.run(agent, state, session=...)`` (https://openai.github.io/openai-agents-python/human_in_the_loop/),
``SQLiteSession`` (https://openai.github.io/openai-agents-python/sessions/). Each driver step runs in a fresh process.
"""

from _kit import fixture_tools, item, ledger, run, save_paused, saved_state, session, side_effects, steps_in_children, support_agent

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "kill_before_effect"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume.c1",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
)

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]},
          {"text": "Sent 25.00 from ACC-1 to ACC-2."}]
tools = fixture_tools(world(Fault("tool.kill_before_effect", call_id="c1")))


def step(action: str) -> list[str]:
    """One driver step (run, approve c1, or resume) from what the earlier processes saved; the calls still asking."""
    agent = support_agent(SCRIPT, tools["transfer_funds"])
    state = saved_state(agent) if action != "run" else None
    if action == "approve":
        state.approve(item(state, "c1"))
    result = run(agent, state or "Send 25.00 from ACC-1 to ACC-2.", session=session("sess-kill_before_effect"))
    save_paused(result)
    return [i.raw_item.call_id for i in result.interruptions]


statuses, effects = [], []
for asking in steps_in_children(step, ("run", "approve", "resume")):
    statuses.append("crashed" if asking == "crashed" else "awaiting_approval" if asking else "completed")
    effects.append(ledger().get("c1", {"tool_entries": 0, "executor_entries": 0, "effects": 0}))
asked_again = asking == ["c1"] and effects[2]["executor_entries"] == effects[1]["executor_entries"]
used = effects[1]["executor_entries"] > effects[0]["executor_entries"]  # c1's executor entered in the killed step used its approval
report(SCENARIO, {**{f"step_statuses.{i}": s for i, s in enumerate(statuses)},  # the 4th step, reconcile, is refused by the column base
                  "checkpoint_after_interrupt.final_status": statuses[-1],
                  "checkpoint_after_interrupt.interrupts.0.resume_position": "awaiting_approval" if asked_again else "elsewhere",
                  "checkpoint_after_interrupt.interrupts.0.approval_survives": None if used else not asked_again,
                  "checkpoint_after_interrupt.effects_after_resume.c1": effects[2]["effects"],
                  **side_effects("c1")})
