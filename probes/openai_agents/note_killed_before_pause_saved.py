"""The SDK runs a turn's calls that need no approval at once, beside the one that does: the note runs in the first run,
before any pause is saved, so the kill inside it (before its effect) ends the run with nothing to resume from. The
approval that follows has no approval item to go to, the resume continues the saved conversation (the model is asked
for its first turn again and the note runs again), and the delivery of the same message afterwards sends the model an
assistant turn with only the note's call (the transfer's call, never answered, is left out), which the script never
wrote. The contract pauses the whole turn for the transfer's approval: nothing runs, so the kill never fires.

Documented API only: ``Agent`` with a ``Model`` passed directly (https://openai.github.io/openai-agents-python/models/),
``@function_tool(needs_approval=True)``, ``result.to_state().to_json()`` saved while paused, ``RunState.from_json``,
``state.approve(item)``, ``Runner.run(agent, state, session=...)`` (https://openai.github.io/openai-agents-python/human_in_the_loop/),
``SQLiteSession`` and a run with no new input continuing it (https://openai.github.io/openai-agents-python/sessions/),
a ``ToolContext`` first (https://openai.github.io/openai-agents-python/context/), output items from ``agents.testing``
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

SCENARIO = "kill_in_batch_after_approved@kill_first"
SHOWS = ("model.injected", "side_effects.n1", "step_statuses.0", "step_statuses.2", "step_statuses.3")

fixture = world(Fault("tool.kill_before_effect", call_id="n1"))
PROMPT = "Send 25.00 from ACC-1 to ACC-2 and note it."
SCRIPT = [{"tool_calls": [{"id": "t1", "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                          {"id": "n1", "name": "put_note", "arguments": {"key": "n", "text": "x"}}]},
          {"text": "done"}]
OWN = [tuple(c["id"] for c in s.get("tool_calls", ())) or s["text"] for s in SCRIPT]  # what makes an assistant turn the script's
STATE, STATUS, ASKED = SCRATCH / "run_state.json", SCRATCH / "status", SCRATCH / "asked.jsonl"  # what survives a process


class Scripted(Model):
    """Answers the script's turn k, k the number of assistant turns in its input (a run of ``function_call`` items is
    one), and notes each turn it is asked for with the assistant turns it was sent that the script never wrote."""

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turns, previous = [], None  # the assistant turns of the input: the call ids of a run of function calls, or a text
        for item in [] if isinstance(input, str) else input:
            if item.get("type") == "function_call" and previous == "function_call":
                turns[-1] += (item["call_id"],)
            elif item.get("type") == "function_call":
                turns.append((item["call_id"],))
            elif item.get("role") == "assistant":
                turns.append("".join(part.get("text", "") for part in item["content"]))
            previous = item.get("type")
        with ASKED.open("a") as log:
            log.write(json.dumps({"turn": len(turns), "injected": [f"assistant: {t if isinstance(t, str) else ''}" for t in turns if t not in OWN]}) + "\n")
        step = SCRIPT[len(turns)]
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


@function_tool(needs_approval=True)
def transfer_funds(ctx: ToolContext, from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", ctx.tool_call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


@function_tool
def put_note(ctx: ToolContext, key: str, text: str) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", ctx.tool_call_id, {"key": key, "text": text}))


async def step(action: str) -> None:
    """One driver step in this process, from what the earlier processes saved (the session, a paused run's state)."""
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=Scripted(), tools=[transfer_funds, put_note])
    session = SQLiteSession("sess-kill_in_batch_after_approved", str(SCRATCH / "session.sqlite"))
    state = await RunState.from_json(agent, json.loads(STATE.read_text())) if STATE.exists() and action != "deliver" else None
    if action == "approve":
        item = next((i for i in (state.get_interruptions() if state else []) if i.raw_item.call_id == "t1"), None)
        if item is None:  # no paused run holds an approval item for t1: nothing to hand the SDK
            return STATUS.write_text(json.dumps("no item"))
        state.approve(item)
    result = await Runner.run(agent, state or (PROMPT if action in ("run", "deliver") else []), session=session)
    if result.interruptions:  # the docs' way to survive a restart: save the paused run
        STATE.write_text(json.dumps(result.to_state().to_json()))
    STATUS.write_text(json.dumps("awaiting_approval" if result.interruptions else "completed"))


set_tracing_disabled(True)
statuses = []
for action in ("run", "approve", "resume", "deliver"):  # deliver: the same event delivered again
    STATUS.unlink(missing_ok=True)  # a step that fails leaves no status behind (reading it then fails the probe)
    code = in_child(lambda action=action: asyncio.run(step(action)))
    status = "crashed" if code == FAULT_EXIT_CODE else json.loads(STATUS.read_text())
    statuses.append(statuses[-1] if status == "no item" else status)  # nothing handed over: the session stays as it was

asked = [json.loads(line) for line in ASKED.read_text().splitlines()]
n1 = counts()["n1"]
report(SCENARIO, {"model.injected": sorted({t for a in asked for t in a["injected"]}),
                  "side_effects.n1": {k: n1[k] for k in ("tool_entries", "executor_entries", "effects")},
                  **{f"step_statuses.{i}": statuses[i] for i in (0, 2, 3)}})
