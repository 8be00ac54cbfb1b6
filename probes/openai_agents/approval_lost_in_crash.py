"""The SDK saves nothing while a run goes on: the only state a restarted process finds is the ``RunState`` JSON saved
when the run paused, before the approval. A kill inside the approved transfer (before its effect) therefore resumes
at the approval again: the approval is lost, the call is not run, and the run waits for a decision it already had.
``approval_survives`` asks only about approvals given and not yet used at the kill (one is used once its call's
executor was entered): the probe reports ``None`` when c1's executor was entered in the killed step (as here: the
kill is inside it), else whether the resume went on without asking again.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool(needs_approval=True)``, ``result.to_state().to_json()`` saved while paused, ``RunState.from_json``,
``state.approve(item)``, ``Runner.run(agent, state, session=...)`` (https://openai.github.io/openai-agents-python/human_in_the_loop/),
``SQLiteSession`` (https://openai.github.io/openai-agents-python/sessions/), a ``ToolContext`` first
(https://openai.github.io/openai-agents-python/context/), output items from ``agents.testing``
(https://openai.github.io/openai-agents-python/testing/). Each driver step runs in a fresh process (``in_child``).
"""

import asyncio
import json

from agents import Agent, Runner, RunState, SQLiteSession, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

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

fixture = world(Fault("tool.kill_before_effect", call_id="c1"))
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]},
          {"text": "Sent 25.00 from ACC-1 to ACC-2."}]
HERE = SCRATCH  # what survives a process: the session, the paused RunState, the step's status
STATE, STATUS = HERE / "run_state.json", HERE / "status"


class Scripted(Model):
    """Answers the script's turn k, where k is the number of model turns already in its input."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turn = sum(1 for item in input if item.get("type") == "function_call" or item.get("role") == "assistant")
        step = SCRIPT[turn]
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool(needs_approval=True)
def transfer_funds(ctx: ToolContext, from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    args = {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}
    return str(fixture.call("transfer_funds", ctx.tool_call_id, args))


async def step(action: str) -> None:
    """One driver step in this process: run, approve c1, or resume, from what the earlier processes saved."""
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=Scripted(), tools=[transfer_funds])
    session = SQLiteSession("sess-kill_before_effect", str(HERE / "session.sqlite"))
    state = await RunState.from_json(agent, json.loads(STATE.read_text())) if action != "run" else None
    if action == "approve":
        state.approve(state.get_interruptions()[0])
    result = await Runner.run(agent, state or "Send 25.00 from ACC-1 to ACC-2.", session=session)
    if result.interruptions:  # the docs' way to survive a restart: save the paused run
        STATE.write_text(json.dumps(result.to_state().to_json()))
    STATUS.write_text(json.dumps([i.raw_item.call_id for i in result.interruptions]))


set_tracing_disabled(True)
statuses, effects = [], []
for action in ("run", "approve", "resume"):
    STATUS.unlink(missing_ok=True)  # a step that fails leaves no status behind (reading it then fails the probe)
    code = in_child(lambda action=action: asyncio.run(step(action)))
    statuses.append("crashed" if code == FAULT_EXIT_CODE else "awaiting_approval" if json.loads(STATUS.read_text()) else "completed")
    effects.append(counts().get("c1", {"tool_entries": 0, "executor_entries": 0, "effects": 0}))
asked_again = json.loads(STATUS.read_text()) == ["c1"] and effects[2]["executor_entries"] == effects[1]["executor_entries"]
used = effects[1]["executor_entries"] > effects[0]["executor_entries"]  # c1's executor entered in the killed step used its approval
report(SCENARIO, {**{f"step_statuses.{i}": s for i, s in enumerate(statuses)},  # the 4th step, reconcile, is refused by the column base
                  "checkpoint_after_interrupt.final_status": statuses[-1],
                  "checkpoint_after_interrupt.interrupts.0.resume_position": "awaiting_approval" if asked_again else "elsewhere",
                  "checkpoint_after_interrupt.interrupts.0.approval_survives": None if used else not asked_again,
                  "checkpoint_after_interrupt.effects_after_resume.c1": effects[2]["effects"],
                  **{f"side_effects.c1.{k}": effects[2][k] for k in ("tool_entries", "executor_entries", "effects")}})
