"""What the Pydantic AI probes share, written with Pydantic AI's documented API only: the scripted model, the fixture
tools, the support agent, the approval of a paused run, the history saved as the session, the model's turns as
observed, and the wire agent.

- The scripted model is a ``FunctionModel`` passed to the ``Agent`` (https://pydantic.dev/docs/ai/guides/testing/).
- The fixture tools are typed function tools taking ``RunContext`` first, whose ``tool_call_id`` names the call in the
  ledger (https://pydantic.dev/docs/ai/tools-toolsets/tools/); the high-risk ones are ``Tool(..., requires_approval=True)``,
  and an agent with one returns ``DeferredToolRequests`` (``output_type=[str, DeferredToolRequests]``) while a call
  waits; the next run takes the history and ``DeferredToolResults(approvals={call_id: True | ToolApproved(...)})``
  (https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval).
- The documented session is the history written with ``ModelMessagesTypeAdapter`` when a run returns, passed back as
  ``message_history`` (https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json).
- A wire probe's agent runs on ``OpenAIChatModel`` with ``OpenAIProvider(base_url=..., api_key=...)``
  (https://ai.pydantic.dev/models/compatible-apis/#other-endpoints), every client setting at its default; a model
  error comes out of the run as ``ModelAPIError`` (https://ai.pydantic.dev/api/exceptions/).

Everything that must outlive a killed process (the saved history, the calls it waits on, the turns the model was
asked for) lives in the probe's ``SCRATCH``.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from pydantic_ai import Agent, AgentRunResult, DeferredToolRequests, DeferredToolResults, ModelMessagesTypeAdapter, RunContext, Tool
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.messages import ModelMessage, ModelResponse, ModelResponsePart, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.probes.kit import FIXTURE_TOOLS, SCRATCH, counts
from harness.column_side.probes.wire import LoopbackModel

BANK = "You are a support agent for a small bank. Use the tools when they help."
ASKED, HISTORY, WAITING = SCRATCH / "asked.log", SCRATCH / "messages.json", SCRATCH / "waiting.json"  # outlive a killed process


def scripted(script: list[list[ModelResponsePart]], fixture: FixtureWorld) -> FunctionModel:
    """The scripted model: turn k, k the number of model responses in the conversation so far, is ``script[k]`` (text
    saying so beyond the script). Each turn asked for is logged (``asked``), then the fixture's model faults for that
    turn meet it (``model.kill_before_turn``: the process dies before answering)."""

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        with ASKED.open("a") as log:
            log.write(f"{turn}\n")
        fixture.faults.fire("model.kill_before_turn", turn=turn)
        return ModelResponse(parts=script[turn] if turn < len(script) else [TextPart("[no scripted turn left]")])

    return FunctionModel(answer)


def asked() -> list[int]:
    """The turns the scripted model was asked for, in order, by every process of the probe."""
    return [int(line) for line in ASKED.read_text().split()] if ASKED.exists() else []


def model_counts(script: list, *names: str) -> dict[str, Any]:
    """The named ``model`` observables: ``calls_per_turn`` (asks per turn), ``unused_turns`` (script turns never asked
    for), ``missing_turns`` (turns asked for beyond the script)."""
    turns = asked()
    found = {"calls_per_turn": {str(t): n for t, n in sorted(Counter(turns).items())},
             "unused_turns": sorted(set(range(len(script))) - set(turns)),
             "missing_turns": sorted(t for t in set(turns) if t >= len(script))}
    return {f"model.{name}": found[name] for name in names}


def tool_output(fixture: FixtureWorld, ctx: RunContext[None], tool: str, **args: Any) -> str:
    """A fixture tool's body for one call: the fixture's call under Pydantic AI's call id, its result as JSON."""
    return json.dumps(fixture.call(tool, ctx.tool_call_id, args))


def fixture_tools(fixture: FixtureWorld, *names: str) -> list[Tool]:
    """The named fixture tools over ``fixture``, as ``Tool`` objects with the registry's descriptions; the high-risk ones
    (transfer, email) with ``requires_approval=True``."""

    async def get_weather(ctx: RunContext[None], city: str) -> str:
        return tool_output(fixture, ctx, "get_weather", city=city)

    async def get_balance(ctx: RunContext[None], account: str) -> str:
        return tool_output(fixture, ctx, "get_balance", account=account)

    async def put_note(ctx: RunContext[None], key: str, text: str) -> str:
        return tool_output(fixture, ctx, "put_note", key=key, text=text)

    async def transfer_funds(ctx: RunContext[None], from_account: str, to_account: str, amount_cents: int) -> str:
        return tool_output(fixture, ctx, "transfer_funds", from_account=from_account, to_account=to_account, amount_cents=amount_cents)

    async def send_email(ctx: RunContext[None], to: str, subject: str, body: str) -> str:
        return tool_output(fixture, ctx, "send_email", to=to, subject=subject, body=body)

    async def drop_database(ctx: RunContext[None], name: str) -> str:
        return tool_output(fixture, ctx, "drop_database", name=name)

    functions = {f.__name__: f for f in (get_weather, get_balance, put_note, transfer_funds, send_email, drop_database)}
    return [Tool(functions[name], description=FIXTURE_TOOLS[name].description, requires_approval=FIXTURE_TOOLS[name].risk == "high_risk")
            for name in names]


def support_agent(script: list[list[ModelResponsePart]], fixture: FixtureWorld, *tools: str | Tool) -> Agent:
    """The agent every probe runs: the scripted model, the tools the scenario offers (fixture tools by name, or the
    probe's own ``Tool``), the bank's system prompt; ``output_type=[str, DeferredToolRequests]`` when a tool needs an
    approval."""
    made = [fixture_tools(fixture, tool)[0] if isinstance(tool, str) else tool for tool in tools]
    deferred = {"output_type": [str, DeferredToolRequests]} if any(tool.requires_approval for tool in made) else {}
    return Agent(scripted(script, fixture), tools=made, system_prompt=BANK, **deferred)


def status(output: object) -> str:
    """A returned run's status as the driver reads it: waiting on deferred calls, or completed."""
    return "awaiting_approval" if isinstance(output, DeferredToolRequests) else "completed"


def approve_all(output: DeferredToolRequests) -> dict[str, bool]:
    """An approval of every call a paused run waits on (``requests.approvals``)."""
    return {call.tool_call_id: True for call in output.approvals}


def decide(agent: Agent, history: list[ModelMessage], approvals: dict[str, Any]) -> AgentRunResult:
    """The paused run continued: a new run on its history with ``DeferredToolResults(approvals=...)``."""
    return agent.run_sync(message_history=history, deferred_tool_results=DeferredToolResults(approvals=approvals))


def run_saved(agent: Agent, **kwargs: Any) -> AgentRunResult:
    """One run on the saved history (none before the first), written back when it returns with the calls it waits on,
    as the documentation persists a session. A run that starts has taken the calls waited on before: one that dies
    leaves none waiting, and the history of the last run that returned."""
    WAITING.write_text("{}")
    history = ModelMessagesTypeAdapter.validate_json(HISTORY.read_bytes()) if HISTORY.exists() else None
    result = agent.run_sync(message_history=history, **kwargs)
    HISTORY.write_bytes(ModelMessagesTypeAdapter.dump_json(result.all_messages()))
    output = result.output
    WAITING.write_text(json.dumps({c.tool_call_id: c.args_as_dict() for c in output.approvals} if isinstance(output, DeferredToolRequests) else {}))
    return result


def waiting() -> dict[str, dict[str, Any]]:
    """The calls the last run that returned waits on, with their arguments (none before any run)."""
    return json.loads(WAITING.read_text()) if WAITING.exists() else {}


def effects() -> dict[str, int]:
    """Effects so far of every call some tool was entered for."""
    return {call_id: entry["effects"] for call_id, entry in counts().items()}


def executor_entries() -> dict[str, int]:
    """Executor entries so far of every call some tool was entered for."""
    return {call_id: entry["executor_entries"] for call_id, entry in counts().items()}


def approval_survives(approvals: dict[str, Any], granted: dict[str, int], entered: dict[str, int], asking: dict[str, Any]) -> bool | None:
    """``checkpoint_after_interrupt.interrupts.N.approval_survives``, which asks only about approvals given and not yet
    used at the kill (one is used once its call's executor was entered: ``granted`` and ``entered`` are the executor
    entries when the approvals were given and after the kill): None when the kill used them all, else whether the resume
    did not ask (``asking``: the calls it waits on) for one of them again."""
    open_at_kill = {c for c in approvals if entered.get(c, 0) == granted.get(c, 0)}
    return not open_at_kill & set(asking) if open_at_kill else None


def wire_agent(server: LoopbackModel, tools: list[Tool]) -> Agent:
    """The support agent on ``OpenAIChatModel`` with an ``OpenAIProvider`` pointed at the loopback stub."""
    model = OpenAIChatModel("scripted-model", provider=OpenAIProvider(base_url=server.url, api_key="probe-key"))
    return Agent(model, tools=tools, system_prompt=BANK)


def outcome(agent: Agent, prompt: str) -> str:
    """A run's status: ``completed``, or ``error`` when it raised ``ModelAPIError`` (printed): the exception ends the run."""
    try:
        agent.run_sync(prompt)
    except ModelAPIError as exc:
        print(f"the run raised {type(exc).__name__}: {exc}")
        return "error"
    return "completed"
