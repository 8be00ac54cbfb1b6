"""What the Microsoft Agent Framework probes share, written with the framework's documented API only: the scripted
chat client, the fixture tools, the support agent, the session saved after every run, the approval answers, the resume,
the session read back, and the wire client.

- The scripted model is a chat client composed as the framework's own clients are, ``class
  ScriptedClient(FunctionInvocationLayer, ChatMiddlewareLayer, ChatTelemetryLayer, BaseChatClient)``, whose
  ``_inner_get_response`` answers a ``ChatResponse`` with one assistant ``Message`` (the ``BaseChatClient`` docstring,
  ``agent_framework/_clients.py``: "Subclasses must implement ``_inner_get_response()``"; the layers are what
  ``agent_framework.openai.OpenAIChatCompletionClient`` is built of, ``agent_framework_openai/_chat_completion_client.py``,
  and give it the framework's tool loop); its function calls are ``Content.from_function_call`` with the script's
  call ids. Turn k, k the assistant messages the request carries, is ``script[k]``.
- The fixture tools are typed ``async`` functions made tools with ``tool(function, description=...,
  approval_mode=...)``, ``"always_require"`` for the high-risk ones (transfer, email)
  (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools,
  https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval); ``async`` so that a turn's calls run as
  tasks on the run's event loop in the model's order (a plain function would run in a worker thread). A tool declaring a
  ``ctx: FunctionInvocationContext`` parameter gets the invocation's context, which the framework keeps out of the
  schema; the ledger counts each call by ``ctx.metadata["call_id"]``, which the framework sets only when a function
  middleware is present (``agent_framework/_tools.py``, ``_execute_single_function_call``): the agent has one that only
  passes each call on (``@function_middleware``, https://learn.microsoft.com/en-us/agent-framework/agents/middleware),
  as the column has. ``list_orders`` acts for the session's user: it has no parameter naming a user and reads
  ``ctx.kwargs["user"]``, given to the run as ``function_invocation_kwargs`` ("values that only tools or function
  middleware should see", https://learn.microsoft.com/en-us/agent-framework/agents/middleware/runtime-context).
- The agent is ``Agent(client=..., instructions=..., tools=..., middleware=[...])`` (the Function tools and Middleware
  pages); each run is ``agent.run(messages, session=...)`` on an ``AgentSession`` (``agent.create_session()`` before
  the first) saved with ``session.to_dict()`` to a file in ``SCRATCH`` when the run returns and loaded with
  ``AgentSession.from_dict(...)`` before the next (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session,
  "Serialization and restoration"): a run that raises or is killed saves nothing. A scripted probe's steps share one
  agent object (a killed step's child has its own copy): everything a step hands the next is in those files; a wire
  probe builds one per step (the openai client it holds belongs to one event loop).
- A paused run returns ``response.user_input_requests``; each is answered with
  ``request.to_function_approval_response(approved=...)``, sent in a user ``Message`` as a new run on the same session
  (the Tool approval page). The requests a run returned are kept in ``SCRATCH`` (a caller keeps what it was shown).
- A resume is a run on the saved session with no new input, ``agent.run(None, session=...)``.
- A wire probe's agent runs on the framework's own OpenAI-compatible client,
  ``agent_framework.openai.OpenAIChatCompletionClient(model=..., base_url=..., api_key=...)``
  (https://learn.microsoft.com/en-us/agent-framework/agents/providers/openai), every client setting at its default;
  a failed request ends the run in ``agent_framework.exceptions.ChatClientException``
  (https://learn.microsoft.com/en-us/python/api/agent-framework-core/agent_framework.exceptions).

Everything that must outlive a killed process (the saved session, the requests kept, the turns the model was asked
for) lives in the probe's ``SCRATCH``.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    Content,
    FunctionInvocationContext,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
    function_middleware,
    tool,
)
from agent_framework.observability import ChatTelemetryLayer

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.probes.kit import FIXTURE_TOOLS, SCRATCH, counts

BANK = "You are a support agent for a small bank. Use the tools when they help."
SESSION_ID, USER = "probe-session", "alice"
SESSION, KEPT, WAITING, ASKED = SCRATCH / "session.json", SCRATCH / "requests.json", SCRATCH / "waiting.json", SCRATCH / "asked.log"


def call(call_id: str, name: str, /, **args: Any) -> Content:
    """A scripted function call, as a model's reply carries it."""
    return Content.from_function_call(call_id=call_id, name=name, arguments=args)


def text(words: str) -> Content:
    return Content.from_text(words)


class ScriptedClient(FunctionInvocationLayer[Any], ChatMiddlewareLayer[Any], ChatTelemetryLayer[Any], BaseChatClient[Any]):
    """Turn k, k the assistant messages the request carries, is ``script[k]`` (text saying so beyond the script). Each
    turn asked for is logged, then the fixture's model faults for that turn meet it (``model.kill_before_turn``: the
    process dies before answering)."""

    OTEL_PROVIDER_NAME = "scripted"

    def __init__(self, script: list[list[Content]], fixture: FixtureWorld | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script, self.fixture = script, fixture

    async def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any) -> ChatResponse:
        turn = sum(1 for m in messages if m.role == "assistant")
        with ASKED.open("a") as log:
            log.write(f"{turn}\n")
        if self.fixture is not None:
            self.fixture.faults.fire("model.kill_before_turn", turn=turn)
        replies = self.script[turn] if turn < len(self.script) else [text("[no scripted turn left]")]
        return ChatResponse(messages=[Message(role="assistant", contents=[Content.from_dict(c.to_dict()) for c in replies])])


def asked() -> list[int]:
    """The turns the scripted model was asked for, in order, by every process of the probe."""
    return [int(line) for line in ASKED.read_text().split()] if ASKED.exists() else []


def model_counts(script: list[list[Content]], *names: str) -> dict[str, Any]:
    """The named ``model`` observables: ``calls_per_turn`` (asks per turn), ``unused_turns`` (script turns never asked
    for), ``missing_turns`` (turns asked for beyond the script)."""
    turns = asked()
    found = {"calls_per_turn": {str(t): n for t, n in sorted(Counter(turns).items())},
             "unused_turns": sorted(set(range(len(script))) - set(turns)),
             "missing_turns": sorted(t for t in set(turns) if t >= len(script))}
    return {f"model.{name}": found[name] for name in names}


def tool_output(fixture: FixtureWorld, tool_name: str, ctx: FunctionInvocationContext, **args: Any) -> Any:
    """A fixture tool's body for one call: the fixture's call under the framework's call id (an omitted optional is
    absent)."""
    return fixture.call(tool_name, str(ctx.metadata["call_id"]), {k: v for k, v in args.items() if v is not None})


def fixture_tools(fixture: FixtureWorld, *names: str) -> list[FunctionTool]:
    """The named fixture tools over ``fixture``, typed as the registry's schemas (a required field without a default,
    an optional one ``T | None = None``), described as the registry describes them."""

    async def get_weather(ctx: FunctionInvocationContext, *, city: str) -> Any:
        return tool_output(fixture, "get_weather", ctx, city=city)

    async def get_balance(ctx: FunctionInvocationContext, *, account: str) -> Any:
        return tool_output(fixture, "get_balance", ctx, account=account)

    async def fetch_page(ctx: FunctionInvocationContext, *, url: str) -> Any:
        return tool_output(fixture, "fetch_page", ctx, url=url)

    async def calculator(ctx: FunctionInvocationContext, *, a: int | float, b: int | float, op: Literal["add", "sub", "mul", "div"]) -> Any:
        return tool_output(fixture, "calculator", ctx, a=a, b=b, op=op)

    async def put_note(ctx: FunctionInvocationContext, *, key: str, text: str, priority: int | None = None) -> Any:
        return tool_output(fixture, "put_note", ctx, key=key, text=text, priority=priority)

    async def transfer_funds(ctx: FunctionInvocationContext, *, from_account: str, to_account: str, amount_cents: int, memo: str | None = None) -> Any:
        return tool_output(fixture, "transfer_funds", ctx, from_account=from_account, to_account=to_account, amount_cents=amount_cents, memo=memo)

    async def send_email(ctx: FunctionInvocationContext, *, to: str, subject: str, body: str) -> Any:
        return tool_output(fixture, "send_email", ctx, to=to, subject=subject, body=body)

    async def drop_database(ctx: FunctionInvocationContext, *, name: str) -> Any:
        return tool_output(fixture, "drop_database", ctx, name=name)

    async def list_orders(ctx: FunctionInvocationContext) -> Any:  # the user is the run's, never the model's
        return tool_output(fixture, "list_orders", ctx, username=ctx.kwargs["user"])

    functions = {f.__name__: f for f in (get_weather, get_balance, fetch_page, calculator, put_note, transfer_funds, send_email, drop_database, list_orders)}
    return [fixture_tool(functions[name]) for name in names]


def fixture_tool(function: Any) -> FunctionTool:
    """``function`` (named as its fixture tool) made a tool with the registry's description; a high-risk one with
    ``approval_mode="always_require"``."""
    spec = FIXTURE_TOOLS[function.__name__]
    return tool(function, description=spec.description, approval_mode="always_require" if spec.risk == "high_risk" else "never_require")


@function_middleware
async def identified(context: FunctionInvocationContext, call_next: Any) -> None:
    """Passes each call on: its presence makes the framework put the call id in ``ctx.metadata["call_id"]``."""
    await call_next()


def support_agent(script: list[list[Content]], fixture: FixtureWorld, *tools: str | FunctionTool, instructions: str = BANK) -> Agent[Any]:
    """The agent on the scripted client with the tools the scenario offers (fixture tools by name, or the probe's own)."""
    made = [fixture_tools(fixture, t)[0] if isinstance(t, str) else t for t in tools]
    return Agent(client=ScriptedClient(script, fixture), instructions=instructions, tools=made, middleware=[identified])


def load() -> AgentSession | None:
    """The saved session (None before any run returned)."""
    return AgentSession.from_dict(json.loads(SESSION.read_text())) if SESSION.exists() else None


def step(agent: Agent[Any], messages: Any, user: str = USER, errors: tuple[type[BaseException], ...] = (), session: AgentSession | None = None,
         save: bool = True) -> str:  # fmt: skip
    """One run on the saved session (a new one before the first), saved when it returns, as the driver reads its end:
    ``awaiting_approval`` when it returned approval requests (kept), else ``completed``; ``error`` when it raised one of
    ``errors`` (printed; nothing saved). ``session``: run on that session instead; ``save=False``: keep nothing of the
    run (a session the caller does not keep)."""
    session = session or load() or agent.create_session(session_id=SESSION_ID)
    try:
        response = asyncio.run(agent.run(messages, session=session, function_invocation_kwargs={"user": user}))
    except errors as exc:
        print(f"the run raised {type(exc).__name__}: {exc}", flush=True)
        return "error"
    if not save:
        return "awaiting_approval" if response.user_input_requests else "completed"
    SESSION.write_text(json.dumps(session.to_dict()))
    requests = [r for r in response.user_input_requests if r.function_call is not None]
    KEPT.write_text(json.dumps(kept_json() | {r.function_call.call_id: r.to_dict() for r in requests}))
    WAITING.write_text(json.dumps([{"call_id": r.function_call.call_id, "tool": r.function_call.name, "args": args_of(r.function_call)} for r in requests]))
    return "awaiting_approval" if requests else "completed"


def deliver(agent: Agent[Any], prompt: str, **kwargs: Any) -> str:
    """A new run with the user's text (the same text again is a redelivered event)."""
    return step(agent, prompt, **kwargs)


def answer(agent: Agent[Any], decisions: dict[str, bool], **kwargs: Any) -> str:
    """Each decision (call id -> approved) as the docs build it, ``request.to_function_approval_response(approved=...)``
    of the request kept for that call, sent in one user message as a new run on the same session."""
    requests = kept()
    return send(agent, [requests[c].to_function_approval_response(approved=ok) for c, ok in decisions.items()], **kwargs)


def send(agent: Agent[Any], answers: list[Content], **kwargs: Any) -> str:
    """Approval responses in one user message, as a new run on the saved session."""
    return step(agent, [Message(role="user", contents=answers)], **kwargs)


def resume(agent: Agent[Any], **kwargs: Any) -> str:
    """A run on the saved session with no new input; ``refused`` when no run ever returned (nothing was saved)."""
    if load() is None:
        print("resume: nothing saved to resume from", flush=True)
        return "refused"
    return step(agent, None, **kwargs)


def snapshot(name: str) -> str:
    """A copy of what the caller keeps (the saved session, the requests kept, the calls waited on); the status they
    say."""
    (SCRATCH / name).mkdir()
    for path in (SESSION, KEPT, WAITING):
        if path.exists():
            (SCRATCH / name / path.name).write_text(path.read_text())
    return "awaiting_approval" if waiting() else "completed"


def restore(name: str) -> str:
    """The copied files put back, as a retried webhook would deliver them again; the status they say."""
    for path in (SESSION, KEPT, WAITING):
        path.unlink(missing_ok=True)
        if (SCRATCH / name / path.name).exists():
            path.write_text((SCRATCH / name / path.name).read_text())
    return "awaiting_approval" if waiting() else "completed"


def kept_json() -> dict[str, Any]:
    return json.loads(KEPT.read_text()) if KEPT.exists() else {}


def kept() -> dict[str, Content]:
    """Call id -> the latest approval request a run returned for it (``user_input_requests``), as the caller kept it."""
    return {c: Content.from_dict(r) for c, r in kept_json().items()}


def pending() -> list[dict[str, Any]]:
    """The calls the last run that returned asked about (its ``user_input_requests``), as a pause lists them: ``call_id``,
    ``tool``, ``args``, by call id."""
    return sorted(json.loads(WAITING.read_text()), key=lambda p: p["call_id"]) if WAITING.exists() else []


def waiting() -> dict[str, dict[str, Any]]:
    """The calls the last run that returned asked about, with their arguments."""
    return {p["call_id"]: p["args"] for p in pending()}


def args_of(function_call: Content) -> dict[str, Any]:
    arguments = function_call.arguments
    if isinstance(arguments, str):
        arguments = json.loads(arguments)
    return dict(arguments or {})


def history(session: AgentSession | None = None) -> list[Message]:
    """The saved session's conversation, as the framework's in-memory history provider (the one an agent without a
    service-side history gets) keeps it in the session's ``state``, the dict the session shares with its context and
    history providers (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session), under the
    provider's source id, ``"in_memory"`` (``InMemoryHistoryProvider.DEFAULT_SOURCE_ID``, ``agent_framework/_sessions.py``)."""
    session = session or load()
    return list(((session.state.get("in_memory") or {}).get("messages") or []) if session else [])


def results(call_id: str) -> list[Any]:
    """The results the saved session delivered for ``call_id`` (its ``function_result`` contents), in order."""
    return [c.result for m in history() for c in m.contents if c.type == "function_result" and c.call_id == call_id]


def open_calls(messages: list[Message] | None = None) -> list[Content]:
    """The calls of the last model turn in the saved session that no function result answers."""
    messages = history() if messages is None else messages
    last = max((i for i, m in enumerate(messages) if m.role == "assistant" and any(c.type == "function_call" for c in m.contents)), default=None)
    if last is None:
        return []
    answered = {c.call_id for m in messages[last + 1 :] for c in m.contents if c.type == "function_result"}
    return [c for c in messages[last].contents if c.type == "function_call" and c.call_id not in answered]


def position() -> tuple[str | None, str | None]:
    """Where a resume of the saved session continues, and the call it continues at: the first open call of the last
    model turn, at its approval (``awaiting_approval``) for a tool that asks for one, else before running it
    (``before_execute``); with no open call, the next model turn (``model_turn``, None); with no session saved, nowhere
    (None, None)."""
    if load() is None:
        return None, None
    calls = open_calls()
    if not calls:
        return "model_turn", None
    first = calls[0]
    return ("awaiting_approval" if FIXTURE_TOOLS[first.name or ""].risk == "high_risk" else "before_execute"), first.call_id


def effects() -> dict[str, int]:
    """Effects so far of every call some tool was entered for, the read-only tools' left out (as the observables count
    them)."""
    return {call_id: entry["effects"] for call_id, entry in counts().items() if FIXTURE_TOOLS[entry["tool"]].risk != "read_only"}


def executor_entries() -> dict[str, int]:
    """Executor entries so far of every call some tool was entered for."""
    return {call_id: entry["executor_entries"] for call_id, entry in counts().items()}


def every_side_effect() -> dict[str, dict[str, int]]:
    """The ``side_effects`` observable: every call some tool was entered for, with its entries and effects."""
    return {call_id: side_effects(call_id) for call_id in counts()}


def side_effects(call_id: str) -> dict[str, int]:
    """The ``side_effects`` entry of one call: tool entries, executor entries, effects."""
    entry = counts().get(call_id, {})
    return {k: entry.get(k, 0) for k in ("tool_entries", "executor_entries", "effects")}


def wire_agent(url: str, tools: list[FunctionTool], instructions: str = BANK) -> Agent[Any]:
    """The support agent on the framework's own OpenAI-compatible client, ``OpenAIChatCompletionClient(model=...,
    base_url=..., api_key=...)``, aimed at the loopback stub, the openai client it builds at its defaults."""
    from agent_framework.openai import OpenAIChatCompletionClient

    client = OpenAIChatCompletionClient(model="scripted-model", base_url=url, api_key="probe-key")
    return Agent(client=client, instructions=instructions, tools=tools, middleware=[identified])


def declared(tools: list[FunctionTool]) -> dict[str, dict[str, Any]]:
    """Each tool's JSON schema as its own object declares it, ``FunctionTool.parameters()`` (the schema the framework
    sends the model: ``agent_framework/_tools.py``)."""
    return {t.name: dict(t.parameters()) for t in tools}


def model_errors() -> tuple[type[BaseException], ...]:
    """What a run raises when the model's endpoint fails: ``agent_framework.exceptions.ChatClientException``, in which
    ``OpenAIChatCompletionClient`` wraps the openai client's error after that client's own retries
    (https://learn.microsoft.com/en-us/python/api/agent-framework-core/agent_framework.exceptions)."""
    from agent_framework.exceptions import ChatClientException

    return (ChatClientException,)
