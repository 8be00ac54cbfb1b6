"""What the OpenAI Agents SDK probes share, written with the SDK's documented API only: the scripted model, the fixture
tools, the support agent, a run and its approval, the state saved across a killed process, and the wire agent.

- The scripted model is a ``Model`` passed to the ``Agent`` directly (https://openai.github.io/openai-agents-python/models/),
  answering with output items built by ``agents.testing``'s ``function_call`` / ``assistant_message``
  (https://openai.github.io/openai-agents-python/testing/).
- The fixture tools are ``@function_tool`` functions taking a ``ToolContext`` first, whose ``tool_call_id`` names the
  call in the ledger (https://openai.github.io/openai-agents-python/tools/, https://openai.github.io/openai-agents-python/context/);
  the high-risk ones have ``needs_approval=True`` (https://openai.github.io/openai-agents-python/human_in_the_loop/).
- A paused run is approved on its ``ToolApprovalItem``: ``result.to_state()``, ``state.approve(item)`` /
  ``state.reject(item, rejection_message=...)``, then ``Runner.run(agent, state)``; it survives a restart as
  ``result.to_state().to_json()``, read back with ``RunState.from_json``
  (https://openai.github.io/openai-agents-python/human_in_the_loop/); the conversation lives in a ``SQLiteSession``
  (https://openai.github.io/openai-agents-python/sessions/).
- A wire probe's agent runs on ``OpenAIResponsesModel`` over its own ``AsyncOpenAI(base_url=..., api_key=...)``
  (https://openai.github.io/openai-agents-python/models/,
  https://openai.github.io/openai-agents-python/ref/models/openai_responses/), every client setting at its default.

Tracing is off in every probe (``set_tracing_disabled``). Everything that must outlive a killed process (the session,
the paused run's state, the turns the model was asked for, a driver step's outcome) lives in the probe's ``SCRATCH``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any

import openai
from agents import Agent, FunctionTool, OpenAIResponsesModel, Runner, RunResult, RunState, SQLiteSession, function_tool, set_tracing_disabled
from agents.items import ModelResponse, ToolApprovalItem, ToolCallOutputItem
from agents.models.interface import Model
from agents.testing import assistant_message, function_call
from agents.tool_context import ToolContext
from agents.usage import Usage
from openai import AsyncOpenAI

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.probes.kit import FAULT_EXIT_CODE, SCRATCH, counts, in_child
from harness.column_side.probes.wire import LoopbackModel

set_tracing_disabled(True)

BANK = "You are a support agent for a small bank. Use the tools when they help."
NO_TURN_LEFT = "[scripted model: no scripted turn left]"
ASKED, STATE, OUTCOME = SCRATCH / "asked.jsonl", SCRATCH / "run_state.json", SCRATCH / "outcome.json"  # outlive a killed process
LOOPS: dict[int, asyncio.AbstractEventLoop] = {}  # the event loop of each process (``complete``)


def assistant_turns(items: str | list[dict[str, Any]]) -> list[tuple[str, ...] | str]:
    """The assistant turns of a model input, in order: the call ids of a run of ``function_call`` items (one turn), or
    the text of an assistant message."""
    turns: list[tuple[str, ...] | str] = []
    previous = None
    for item in [] if isinstance(items, str) else items:
        if item.get("type") == "function_call" and previous == "function_call":
            turns[-1] += (item["call_id"],)
        elif item.get("type") == "function_call":
            turns.append((item["call_id"],))
        elif item.get("role") == "assistant":
            turns.append("".join(part.get("text", "") for part in item["content"]))
        previous = item.get("type")
    return turns


class ScriptedModel(Model):
    """Answers the script's turn k, k the number of assistant turns in its input (``assistant_turns``), and text saying
    so beyond the script; each request is logged (in ``SCRATCH``: a killed process's requests count) with the turn it
    asked for and the assistant turns it carried that the script never wrote. A script turn is ``{"tool_calls": [{"id",
    "name", "arguments"}]}`` or ``{"text": ...}``."""

    def __init__(self, script: list[dict[str, Any]]) -> None:
        self.script = script
        self.own = [tuple(c["id"] for c in step.get("tool_calls", ())) or step["text"] for step in script]

    async def get_response(self, system_instructions, input, *args, **kwargs) -> ModelResponse:
        turns = assistant_turns(input)
        injected = [f"assistant: {t if isinstance(t, str) else ''}" for t in turns if t not in self.own]
        with ASKED.open("a") as log:
            log.write(json.dumps({"turn": len(turns), "injected": injected}) + "\n")
        step = self.script[len(turns)] if len(turns) < len(self.script) else {"text": NO_TURN_LEFT}
        calls = [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in step.get("tool_calls", [])]
        return ModelResponse(output=calls or [assistant_message(step["text"])], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


def calls_per_turn() -> dict[str, int]:
    """How often the scripted model was asked for each turn, by every process of the probe."""
    return dict(Counter(str(json.loads(line)["turn"]) for line in ASKED.read_text().splitlines()))


def injected() -> list[str]:
    """The assistant turns the model was sent that its script never wrote (``assistant: <text>``, empty for calls)."""
    return sorted({turn for line in ASKED.read_text().splitlines() for turn in json.loads(line)["injected"]})


def tool_output(fixture: FixtureWorld, ctx: ToolContext, tool: str, **args: Any) -> str:
    """A fixture tool's body for one call: the fixture's call under the SDK's call id, its result as compact JSON."""
    return json.dumps(fixture.call(tool, ctx.tool_call_id, args), sort_keys=True, separators=(",", ":"))


def fixture_tools(fixture: FixtureWorld) -> dict[str, FunctionTool]:
    """The fixture tools the probes share, over ``fixture``, by name, as ``@function_tool`` functions; the high-risk
    transfer with ``needs_approval=True``, the SDK's only gate. A probe whose finding is in a tool's own signature or
    body (a lax argument, a validator, the run's context) writes that tool itself, with ``tool_output``."""

    @function_tool
    def get_weather(ctx: ToolContext, city: str) -> str:
        """Current weather for a city."""
        return tool_output(fixture, ctx, "get_weather", city=city)

    @function_tool
    def put_note(ctx: ToolContext, key: str, text: str) -> str:
        """Store a note under a key (overwrites: reversible and idempotent)."""
        return tool_output(fixture, ctx, "put_note", key=key, text=text)

    @function_tool(needs_approval=True)
    def transfer_funds(ctx: ToolContext, from_account: str, to_account: str, amount_cents: int) -> str:
        """Move money between accounts. High risk: needs a human approval."""
        return tool_output(fixture, ctx, "transfer_funds", from_account=from_account, to_account=to_account, amount_cents=amount_cents)

    @function_tool
    def drop_database(ctx: ToolContext, name: str) -> str:
        """Drop a database. Always denied."""
        return tool_output(fixture, ctx, "drop_database", name=name)

    return {tool.name: tool for tool in (get_weather, put_note, transfer_funds, drop_database)}


def support_agent(script: list[dict[str, Any]], *tools: FunctionTool, instructions: str = BANK) -> Agent:
    """The agent every probe runs: the scripted model and the tools the scenario offers."""
    return Agent(name="support", instructions=instructions, model=ScriptedModel(script), tools=list(tools))


def complete(work: Awaitable[Any]) -> Any:
    """Await ``work`` on this process's one event loop: a probe's runs share it, as they would inside one
    ``asyncio.run(main())`` (a client keeps its connections on it); a forked child makes its own."""
    if os.getpid() not in LOOPS:
        LOOPS[os.getpid()] = asyncio.new_event_loop()
    return LOOPS[os.getpid()].run_until_complete(work)


def run(agent: Agent, input: str | list | RunState, **kwargs: Any) -> RunResult:
    """``Runner.run(agent, input, **kwargs)`` to its end, as one driver step (``max_turns`` at its default)."""
    return complete(Runner.run(agent, input, **kwargs))


def status(result: RunResult) -> str:
    """A returned run's status as the driver reads it: paused on approval items, or completed."""
    return "awaiting_approval" if result.interruptions else "completed"


def item(result: RunResult | RunState, call_id: str) -> ToolApprovalItem | None:
    """The approval item of a paused run that names ``call_id`` (``raw_item.call_id``), if it has one."""
    items = result.get_interruptions() if isinstance(result, RunState) else result.interruptions
    return next((i for i in items if i.raw_item.call_id == call_id), None)


def approve(result: RunResult, approval: ToolApprovalItem) -> RunState:
    """The paused run's state with one approval item approved, for ``Runner.run(agent, state)``."""
    state = result.to_state()
    state.approve(approval)
    return state


def reject(result: RunResult, approval: ToolApprovalItem, message: str) -> RunState:
    """The paused run's state with one approval item rejected, for ``Runner.run(agent, state)``."""
    state = result.to_state()
    state.reject(approval, rejection_message=message)
    return state


def outputs(items: Iterable[Any], call_id: str | None = None) -> list[str]:
    """The tool outputs among a run's ``new_items`` (of one call, when named), as the model was sent them."""
    return [i.raw_item["output"] for i in items if isinstance(i, ToolCallOutputItem) and call_id in (None, i.raw_item["call_id"])]


def ledger() -> dict[str, dict[str, int]]:
    """Tool entries, executor entries and effects of every call some tool was entered for."""
    return {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()}


def side_effects(*call_ids: str) -> dict[str, int]:
    """``side_effects.<call>.<count>`` for the named calls (0 for a call never entered)."""
    found = ledger()
    return {f"side_effects.{c}.{k}": found.get(c, {}).get(k, 0) for c in call_ids for k in ("tool_entries", "executor_entries", "effects")}


def session(session_id: str) -> SQLiteSession:
    """The scenario's conversation, in a file that outlives a killed process."""
    return SQLiteSession(session_id, str(SCRATCH / "session.sqlite"))


def saved_state(agent: Agent) -> RunState | None:
    """The paused run saved by an earlier process (``save_paused``), read back for ``agent``; None when none was saved."""
    return complete(RunState.from_json(agent, json.loads(STATE.read_text()))) if STATE.exists() else None


def save_paused(result: RunResult) -> None:
    """The docs' way for a paused run to survive a restart: its state's JSON, written when the run pauses."""
    if result.interruptions:
        STATE.write_text(json.dumps(result.to_state().to_json()))


def steps_in_children(step: Callable[[str], Any], actions: Iterable[str]) -> Iterator[Any]:
    """Each driver step in a fresh process that knows only what earlier ones saved: ``step(action)``'s value (JSON),
    or ``"crashed"`` when a kill fault ended the process. A step that fails otherwise leaves nothing, and the probe fails."""
    for action in actions:
        OUTCOME.unlink(missing_ok=True)
        code = in_child(lambda action=action: OUTCOME.write_text(json.dumps(step(action))))
        yield "crashed" if code == FAULT_EXIT_CODE else json.loads(OUTCOME.read_text())


def wire_agent(server: LoopbackModel, *tools: FunctionTool) -> Agent:
    """The support agent on the SDK's Responses model over its own ``AsyncOpenAI`` client, pointed at the loopback stub."""
    model = OpenAIResponsesModel(model="scripted-model", openai_client=AsyncOpenAI(base_url=server.url, api_key="probe-key"))
    return Agent(name="support", instructions=BANK, model=model, tools=list(tools))


def outcome(agent: Agent, input: str | list, errors: tuple[type[BaseException], ...] = (openai.APIError,), **kwargs: Any) -> str:
    """A run's status: ``completed``, or ``error`` when ``Runner.run`` raised one of ``errors`` (printed): an exception
    out of it ends the run."""
    try:
        run(agent, input, **kwargs)
    except errors as exc:
        print(f"the run raised {type(exc).__name__}: {exc}")
        return "error"
    return "completed"
