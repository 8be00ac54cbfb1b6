"""What the Google ADK probes share, written with ADK's documented API only: the scripted model, the fixture tools,
the resumable app over a SQLite session, the confirmation answers, the resume, the session read back, and the wire
model.

- The scripted model is a ``BaseLlm`` instance given to the agent as its ``model=``, as the model connectors are
  (https://google.github.io/adk-docs/agents/models/); its ``generate_content_async`` yields an ``LlmResponse`` with a
  ``types.Content(role="model")`` of ``FunctionCall`` parts carrying the script's call ids.
- The fixture tools are typed ``async`` functions (a required parameter has no default, an optional one is
  ``T | None = None``) taking ``tool_context: ToolContext``, whose ``function_call_id`` names the call in the ledger,
  each wrapped as ``FunctionTool(fn)``, the high-risk ones (transfer, email) as ``FunctionTool(fn,
  require_confirmation=True)`` (https://google.github.io/adk-docs/tools-custom/function-tools/,
  https://google.github.io/adk-docs/tools-custom/confirmation/#boolean-confirmation); ADK runs the calls of one turn
  concurrently (https://google.github.io/adk-docs/tools-custom/performance/). ``list_orders`` acts for the session's
  user: it has no parameter naming a user and reads ``tool_context.state["user"]``, set by
  ``create_session(state=...)`` (https://google.github.io/adk-docs/sessions/state/).
- The agent is an ``LlmAgent`` with the scenario's system prompt as ``instruction=``
  (https://google.github.io/adk-docs/agents/llm-agents/) in an
  ``App(resumability_config=ResumabilityConfig(is_resumable=True))`` (https://google.github.io/adk-docs/runtime/resume/),
  run by a ``Runner`` over a ``SqliteSessionService`` file in the probe's ``SCRATCH``
  (https://google.github.io/adk-docs/sessions/session/; the class itself is taught by ADK's developer guide,
  https://github.com/google/adk-python/blob/main/docs/guides/sessions/session/index.md): ADK appends each event to that
  file as the run goes, so the session outlives a killed process. Each driver step builds its runner afresh.
- A confirmation is answered with a ``FunctionResponse`` whose id is the ``adk_request_confirmation`` call's and
  whose response is ``{"confirmed": True | False}``, sent with the invocation that asked
  (https://google.github.io/adk-docs/tools-custom/confirmation/#remote-response, "Note: Confirmation with Resume
  feature"); the resume is ``runner.run_async(..., invocation_id=<the latest>, new_message=None)`` (the Resume page).
- A wire probe's agent runs on ADK's own OpenAI-compatible model, ``OpenAILlm(model=..., base_url=..., api_key=...)``
  from ``google.adk.integrations.openai`` (the ``google-adk[openai]`` extra; its class docstring teaches it for "any
  OpenAI-compatible backend", as the column's wire mode uses it; the docs site teaches such endpoints through
  LiteLLM, https://google.github.io/adk-docs/agents/models/litellm/), every client setting at its default; the tools'
  declarations are read as ADK hands them to the model object, in a ``before_model_callback``'s ``llm_request``
  (https://google.github.io/adk-docs/callbacks/types-of-callbacks/#before-model-callback).

Everything that must outlive a killed process (the session file, the requests the model got, the prompts sent)
lives in the probe's ``SCRATCH``.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections import Counter
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.events import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.adk.tools import FunctionTool, ToolContext
from google.genai import types

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.probes.kit import FIXTURE_TOOLS, SCRATCH, counts

warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]")  # the notices of ResumabilityConfig and confirmations

BANK = "You are a support agent for a small bank. Use the tools when they help."
AGENT, APP, SESSION, USER = "fixture_agent", "probe_app", "probe_session", "alice"
CONFIRMATION = "adk_request_confirmation"  # the function call ADK asks a human with (the Confirmation page)
DB, ASKED, PROMPTS = SCRATCH / "session.db", SCRATCH / "asked.jsonl", SCRATCH / "prompts.jsonl"  # outlive a killed process


def call(call_id: str, tool: str, /, **args: Any) -> types.Part:
    """A scripted function call, as a model's reply carries it."""
    return types.Part(function_call=types.FunctionCall(id=call_id, name=tool, args=args))


def text(words: str) -> types.Part:
    return types.Part(text=words)


class ScriptedLlm(BaseLlm):
    """Turn k, k the model turns the request's contents carry, is ``script[k]`` (text saying so beyond the script).
    Each request is logged (its turn, system instruction and texts), then the fixture's model faults for that turn
    meet it (``model.kill_before_turn``: the process dies before answering)."""

    script: list[list[types.Part]]
    fixture: Any = None

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        turn = sum(1 for c in llm_request.contents if c.role == "model")
        system = llm_request.config.system_instruction if llm_request.config else None
        texts = [(c.role, p.text) for c in llm_request.contents for p in c.parts or () if p.text]
        with ASKED.open("a") as log:
            log.write(json.dumps({"turn": turn, "system": system if isinstance(system, str) else None, "texts": texts}) + "\n")
        if self.fixture is not None:
            self.fixture.faults.fire("model.kill_before_turn", turn=turn)
        yield LlmResponse(content=types.Content(role="model", parts=self.script[turn] if turn < len(self.script) else [text("[no scripted turn left]")]))


def _lines(path: Any) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def model_counts(script: list[list[types.Part]], *names: str, instruction: str = BANK) -> dict[str, Any]:
    """The named ``model`` observables from every request the scripted model got, in every process of the probe:
    ``calls_per_turn``, ``unused_turns`` (script turns never asked for), ``missing_turns`` (turns asked for beyond
    the script) and ``injected``: what the model received that neither the probe nor the script wrote (a system
    instruction other than the agent's, a text other than the prompts sent and the script's)."""
    requests = _lines(ASKED)
    turns = [r["turn"] for r in requests]
    own = {p.text for turn in script for p in turn if p.text} | set(_lines(PROMPTS))
    injected = {f"system: {r['system']}" for r in requests if r["system"] is not None and r["system"] != instruction}
    injected |= {f"{'assistant' if role == 'model' else role}: {words}" for r in requests for role, words in r["texts"] if words not in own}
    found = {"calls_per_turn": {str(t): n for t, n in sorted(Counter(turns).items())},
             "unused_turns": sorted(set(range(len(script))) - set(turns)),
             "missing_turns": sorted(t for t in set(turns) if t >= len(script)),
             "injected": sorted(injected)}
    return {f"model.{name}": found[name] for name in names}


def tool_output(fixture: FixtureWorld, tool: str, ctx: ToolContext, **args: Any) -> dict[str, Any]:
    """A fixture tool's body for one call: the fixture's call under ADK's call id (an omitted optional is absent)."""
    return fixture.call(tool, ctx.function_call_id or "", {k: v for k, v in args.items() if v is not None})


def fixture_tools(fixture: FixtureWorld, *names: str) -> list[FunctionTool]:
    """The named fixture tools over ``fixture``, described as the registry describes them; the high-risk ones with
    ``require_confirmation=True``."""

    async def get_weather(city: str, tool_context: ToolContext) -> dict[str, Any]:
        return tool_output(fixture, "get_weather", tool_context, city=city)

    async def get_balance(account: str, tool_context: ToolContext) -> dict[str, Any]:
        return tool_output(fixture, "get_balance", tool_context, account=account)

    async def put_note(key: str, text: str, tool_context: ToolContext, priority: int | None = None) -> dict[str, Any]:
        return tool_output(fixture, "put_note", tool_context, key=key, text=text, priority=priority)

    async def transfer_funds(from_account: str, to_account: str, amount_cents: int, tool_context: ToolContext,
                             memo: str | None = None) -> dict[str, Any]:  # fmt: skip
        return tool_output(fixture, "transfer_funds", tool_context, from_account=from_account, to_account=to_account,
                           amount_cents=amount_cents, memo=memo)  # fmt: skip

    async def send_email(to: str, subject: str, body: str, tool_context: ToolContext) -> dict[str, Any]:
        return tool_output(fixture, "send_email", tool_context, to=to, subject=subject, body=body)

    async def drop_database(name: str, tool_context: ToolContext) -> dict[str, Any]:
        return tool_output(fixture, "drop_database", tool_context, name=name)

    async def list_orders(tool_context: ToolContext) -> dict[str, Any]:  # the user is the session's, never the model's
        return tool_output(fixture, "list_orders", tool_context, username=tool_context.state["user"])

    functions = {f.__name__: f for f in (get_weather, get_balance, put_note, transfer_funds, send_email, drop_database, list_orders)}
    return [tool(functions[name]) for name in names]


def tool(function: Any) -> FunctionTool:
    """``function`` (named as its fixture tool) as a ``FunctionTool`` with the registry's description; a high-risk one
    with ``require_confirmation=True``."""
    spec = FIXTURE_TOOLS[function.__name__]
    function.__doc__ = spec.description
    return FunctionTool(function, require_confirmation=spec.risk == "high_risk")


def support_app(model: BaseLlm, tools: list[FunctionTool], instruction: str = BANK, **agent: Any) -> App:
    """The resumable app every probe runs: one ``LlmAgent`` with the model, the tools and the instruction."""
    root = LlmAgent(name=AGENT, model=model, instruction=instruction, tools=tools, **agent)
    return App(name=APP, root_agent=root, resumability_config=ResumabilityConfig(is_resumable=True))


def scripted_app(script: list[list[types.Part]], fixture: FixtureWorld, *tools: str | FunctionTool, instruction: str = BANK) -> App:
    """The app on the scripted model with the tools the scenario offers (fixture tools by name, or the probe's own)."""
    made = [fixture_tools(fixture, t)[0] if isinstance(t, str) else t for t in tools]
    return support_app(ScriptedLlm(model="scripted", script=script, fixture=fixture), made, instruction)


def step(app: App, message: types.Content | None, invocation_id: str | None = None, user: str = USER,
         errors: tuple[type[BaseException], ...] = ()) -> str:  # fmt: skip
    """One run of a fresh runner over the session file (created with ``state={"user": user}`` at the first run), as
    the driver reads its end: ``awaiting_approval`` while a confirmation request of the latest invocation is
    unanswered, else ``completed``; ``error`` when the run raised one of ``errors`` (printed)."""

    async def go() -> str:
        service = SqliteSessionService(str(DB))
        try:
            if await service.get_session(app_name=APP, user_id=user, session_id=SESSION) is None:
                await service.create_session(app_name=APP, user_id=user, session_id=SESSION, state={"user": user})
            try:
                async for _event in Runner(app=app, session_service=service).run_async(
                        user_id=user, session_id=SESSION, new_message=message, invocation_id=invocation_id):
                    pass
            except errors as exc:
                print(f"the run raised {type(exc).__name__}: {exc}", flush=True)
                return "error"
            return "awaiting_approval" if _waiting(await _events(service, user)) else "completed"
        finally:
            await service.close()

    return asyncio.run(go())


def deliver(app: App, prompt: str, **kwargs: Any) -> str:
    """A new invocation with the user's text (the same text again is a redelivered event)."""
    with PROMPTS.open("a") as log:
        log.write(json.dumps(prompt) + "\n")
    return step(app, types.Content(role="user", parts=[text(prompt)]), **kwargs)


def answer(app: App, decisions: dict[str, bool], user: str = USER, **kwargs: Any) -> str:
    """Each decision as the confirmation ``FunctionResponse`` for the call it names (``decisions``: original call id ->
    confirmed): the id of that call's ``adk_request_confirmation`` call, sent with the invocation that asked."""
    asked = requests(user)
    parts = [types.Part(function_response=types.FunctionResponse(id=asked[c]["id"], name=CONFIRMATION, response={"confirmed": ok}))
             for c, ok in decisions.items()]
    return step(app, types.Content(role="user", parts=parts), asked[next(iter(decisions))]["invocation"], user=user, **kwargs)


def resume(app: App, user: str = USER, **kwargs: Any) -> str:
    """The latest invocation continued with no new message (the Resume page)."""
    return step(app, None, events(user)[-1].invocation_id, user=user, **kwargs)


async def _events(service: SqliteSessionService, user: str) -> list[Event]:
    session = await service.get_session(app_name=APP, user_id=user, session_id=SESSION)
    return list(session.events) if session is not None else []


def events(user: str = USER) -> list[Event]:
    """The session's events, read back from the file by a fresh session service."""

    async def go() -> list[Event]:
        service = SqliteSessionService(str(DB))
        try:
            return await _events(service, user)
        finally:
            await service.close()

    return asyncio.run(go())


def requests(user: str = USER, found: list[Event] | None = None) -> dict[str, dict[str, Any]]:
    """Original call id -> its latest ``adk_request_confirmation`` call: its ``id``, ``invocation``, the original
    call's ``args``, and the ``answer`` a user event gave it (None: unanswered)."""
    found = events(user) if found is None else found
    answers = {r.id: (r.response or {}).get("confirmed") for e in found if e.author == "user" for r in e.get_function_responses()}
    out: dict[str, dict[str, Any]] = {}
    for event in found:
        for c in event.get_function_calls():
            if c.name == CONFIRMATION:
                original = (c.args or {})["originalFunctionCall"]
                out[original["id"]] = {"id": c.id, "invocation": event.invocation_id, "args": original.get("args") or {}, "answer": answers.get(c.id)}
    return out


def _waiting(found: list[Event]) -> dict[str, dict[str, Any]]:
    latest = found[-1].invocation_id if found else None
    return {c: r["args"] for c, r in requests(found=found).items() if r["invocation"] == latest and r["answer"] is None}


def waiting(user: str = USER) -> dict[str, dict[str, Any]]:
    """The calls the session waits on: those whose confirmation request in the latest invocation no user event
    answered, with their arguments."""
    return _waiting(events(user))


def open_calls(user: str = USER) -> list[dict[str, Any]]:
    """The calls of the session's last model turn that no function response answers with a result (ADK's answer to a
    call it holds for confirmation is the pause, not a result): ``id``, ``name``, ``args``."""
    found = events(user)
    turns = [e for e in found if e.author == AGENT and any(c.name != CONFIRMATION for c in e.get_function_calls())]
    if not turns:
        return []
    results = {r.id for e in found for r in e.get_function_responses() if r.id not in (e.actions.requested_tool_confirmations or {})}
    return [{"id": c.id, "name": c.name, "args": c.args or {}} for c in turns[-1].get_function_calls() if c.name != CONFIRMATION and c.id not in results]


def position(user: str = USER) -> tuple[str, str | None]:
    """Where a resume of the saved session continues, and the call it continues at: the first open call of the last
    model turn, before running it (``before_execute``) or, for a tool that asks for confirmation with no answer given,
    at its confirmation (``awaiting_approval``); with no open call, the next model turn (``model_turn``, None)."""
    calls = open_calls(user)
    if not calls:
        return "model_turn", None
    first, answers = calls[0], requests(user)
    held = FIXTURE_TOOLS[first["name"]].risk == "high_risk" and answers.get(first["id"], {}).get("answer") is None
    return "awaiting_approval" if held else "before_execute", first["id"]


def effects() -> dict[str, int]:
    """Effects so far of every call some tool was entered for, the read-only tools' left out (as the observables count
    them)."""
    return {call_id: entry["effects"] for call_id, entry in counts().items() if FIXTURE_TOOLS[entry["tool"]].risk != "read_only"}


def executor_entries() -> dict[str, int]:
    """Executor entries so far of every call some tool was entered for."""
    return {call_id: entry["executor_entries"] for call_id, entry in counts().items()}


def side_effects(call_id: str) -> dict[str, int]:
    """The ``side_effects`` entry of one call: tool entries, executor entries, effects."""
    entry = counts().get(call_id, {})
    return {k: entry.get(k, 0) for k in ("tool_entries", "executor_entries", "effects")}


def approval_survives(approved: list[str], granted: dict[str, int], entered: dict[str, int], asking: list[str]) -> bool | None:
    """``checkpoint_after_interrupt.interrupts.N.approval_survives``, which asks only about approvals given and not yet
    used at the kill (one is used once its call's executor was entered: ``granted`` and ``entered`` are the executor
    entries when the approvals were given and after the kill): None when the kill used them all, else whether the resume
    did not ask (``asking``: the calls it waits on) for one of them again."""
    open_at_kill = {c for c in approved if entered.get(c, 0) == granted.get(c, 0)}
    return not open_at_kill & set(asking) if open_at_kill else None


def model_errors() -> tuple[type[BaseException], ...]:
    """What a run raises when the model's endpoint fails: the openai client's errors (``openai.APIError``: its status and
    connection errors, https://github.com/openai/openai-python#handling-errors) and the ``JSONDecodeError`` of a body
    that is not JSON, which ``OpenAILlm`` lets out of the run."""
    import openai

    return (openai.APIError, json.JSONDecodeError)


def wire_app(url: str, tools: list[FunctionTool], declared: dict[str, Any], instruction: str = BANK) -> App:
    """The support app on ADK's own OpenAI-compatible model, ``OpenAILlm(model=..., base_url=..., api_key=...)``, aimed at
    the loopback stub, the client it builds at its defaults; ``declared`` gets each tool's parameters as ADK declares
    them to the model object. A driver step builds its own (the client ``OpenAILlm`` builds belongs to one event loop)."""
    from google.adk.integrations.openai import OpenAILlm

    def seen(callback_context: Any, llm_request: LlmRequest) -> None:
        for each in (llm_request.config.tools or []) if llm_request.config else []:
            for declaration in getattr(each, "function_declarations", None) or ():
                declared[declaration.name] = dict(declaration.parameters_json_schema or {})

    return support_app(OpenAILlm(model="scripted-model", base_url=url, api_key="probe-key"), tools, instruction, before_model_callback=seen)
