"""What AgentScope's probes share: the scripted model, the fixture tools as AgentScope takes a tool, the driver that runs
replies and answers the confirmations the contract would not have asked for, the saved ``AgentState`` a step in a fresh
process starts from, and the counts several probes report. A probe keeps its own script, fault, driver steps and counts.

Documented API only: https://docs.agentscope.io/v2/building-blocks/agent (``Agent``, its ``AgentState`` saved with
``model_dump_json``, ``reply_stream``), .../tool (typed functions in ``FunctionTool(fn)``, a ``Toolkit``),
.../permission-system (a call that asks waits in ``get_awaiting_tool_calls``; a ``UserConfirmResultEvent`` answers it
with a ``ConfirmResult`` naming its ``ToolCallBlock``; a refusal is AgentScope's ``ValueError`` before the reply
starts), .../middleware (``on_acting`` wraps each call's execution), .../model (a ``ChatModelBase`` subclass; an
``OpenAIChatModel`` over an ``OpenAICredential`` with a ``base_url``).
"""

import asyncio
import atexit
import contextvars
import json
from typing import Any

import openai
from agentscope.agent import Agent
from agentscope.credential import CredentialBase, OpenAICredential
from agentscope.event import ConfirmResult, ToolResultTextDeltaEvent, UserConfirmResultEvent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, UserMsg
from agentscope.middleware import MiddlewareBase
from agentscope.model import ChatModelBase, ChatResponse, OpenAIChatModel
from agentscope.state import AgentState
from agentscope.tool import FunctionTool, Toolkit
from pydantic import SecretStr

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.probes.kit import SCRATCH, contract_answer, counts
from harness.column_side.probes.wire import LoopbackModel

__all__ = ["FILLER", "PROMPT", "SAVED", "CallIds", "Driver", "Scripted", "calls_per_turn", "effects", "fixture_tools", "missing_turns",
           "pending", "requests", "saved_state", "side_effects", "status", "tool_results", "turns", "unused_turns", "wire_step"]

PROMPT = "You are a support agent for a small bank. Use the tools when they help."
SAVED = SCRATCH / "agent_state.json"
"""Where a driver step saves the agent's state each time a reply returns (``Driver.saved``): what a fresh process finds."""
FILLER = "[no scripted turn left]"
_REQUESTS = SCRATCH / "model_requests.jsonl"  # on disk: a probe's steps may run in several processes
_CALL_ID: contextvars.ContextVar[str] = contextvars.ContextVar("call_id")


class Scripted(ChatModelBase):
    """A ``ChatModelBase`` subclass replaying ``script``: it answers with the script's turn n, n the number of assistant
    messages in the request (read as OpenAI's, through AgentScope's ``OpenAIChatFormatter``), past the script's end with
    ``FILLER``. A turn is a text or a list of ``(call_id, tool, args)`` tool calls. Every request is logged for
    ``requests`` and ``turns``; given the fixture ``world``, a ``model.kill_before_turn`` fault of it is met first."""

    formatter = OpenAIChatFormatter()

    def __init__(self, script: list, world: FixtureWorld | None = None) -> None:
        super().__init__(CredentialBase(), "scripted", ChatModelBase.Parameters(), stream=False)
        self.script, self.world = script, world

    async def _call_api(self, model_name, messages, tools=None, tool_choice=None, **kwargs) -> ChatResponse:
        request = await self.formatter.format(messages)
        with _REQUESTS.open("a") as log:
            log.write(json.dumps(request) + "\n")
        turn = sum(m["role"] == "assistant" for m in request)
        if self.world is not None:
            self.world.faults.fire("model.kill_before_turn", turn=turn)
        reply = self.script[turn] if turn < len(self.script) else FILLER
        blocks = [TextBlock(text=reply)] if isinstance(reply, str) else [ToolCallBlock(id=i, name=n, input=json.dumps(a)) for i, n, a in reply]
        return ChatResponse(content=blocks, is_last=True)


class CallIds(MiddlewareBase):
    """Hands a tool function the id of the call it runs for: ``on_acting`` wraps each call's execution."""

    async def on_acting(self, agent, input_kwargs, next_handler):
        _CALL_ID.set(input_kwargs["tool_call"].id)
        async for item in next_handler(**input_kwargs):
            yield item


def fixture_tools(world: FixtureWorld, *names: str) -> list[FunctionTool]:
    """The named fixture tools as AgentScope documents a tool: a typed function whose docstring describes it, in a
    ``FunctionTool(fn)``. Its body runs the fixture tool over ``world`` under the id ``CallIds`` set, and returns the
    result as compact JSON (as the evidence records a result)."""

    def run(tool: str, args: dict[str, Any]) -> str:
        return json.dumps(world.call(tool, _CALL_ID.get(), args), sort_keys=True, separators=(",", ":"))

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return run("get_weather", {"city": city})

    def search_kb(query: str) -> str:
        """Search the support knowledge base."""
        return run("search_kb", {"query": query})

    def put_note(key: str, text: str, priority: int | None = None) -> str:
        """Store a note under a key (overwrites: reversible and idempotent)."""
        return run("put_note", {"key": key, "text": text, **({"priority": priority} if priority is not None else {})})

    def send_email(to: str, subject: str, body: str) -> str:
        """Send an email. High risk: needs a human approval."""
        return run("send_email", {"to": to, "subject": subject, "body": body})

    def transfer_funds(from_account: str, to_account: str, amount_cents: int, memo: str | None = None) -> str:
        """Move money between accounts. High risk: needs a human approval."""
        return run("transfer_funds", {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents, **({"memo": memo} if memo else {})})

    functions = {f.__name__: f for f in (get_weather, search_kb, put_note, send_email, transfer_funds)}
    return [FunctionTool(functions[name]) for name in names]


def saved_state(session: str) -> AgentState:
    """The ``AgentState`` in ``SAVED`` (what a fresh process finds), or a new one of session ``sess-<session>`` when none was saved yet."""
    return AgentState.model_validate_json(SAVED.read_text()) if SAVED.exists() else AgentState(session_id=f"sess-{session}")


def status(state: AgentState) -> str:
    """A driver step's status as the evidence words it: ``awaiting_approval`` while a call asks, else ``completed``."""
    return "awaiting_approval" if state.get_awaiting_tool_calls("assistant") else "completed"


class Driver:
    """One ``Agent`` (the probes' prompt, the model, a ``Toolkit`` of the tools, ``CallIds`` or a subclass of it as its
    middleware, over ``state``: None for a new ``AgentState``) driven as the column's driver does: every reply runs to its
    end and its events are kept in ``events``; with ``save``, the state is written to ``SAVED`` each time a reply returns."""

    def __init__(self, model: ChatModelBase, tools: list[FunctionTool], state: AgentState | None = None,
                 middleware: CallIds | None = None, save: bool = False) -> None:  # fmt: skip
        self.agent = Agent(name="assistant", system_prompt=PROMPT, model=model, toolkit=Toolkit(tools=tools),
                           middlewares=[middleware or CallIds()], **({"state": state} if state is not None else {}))  # fmt: skip
        self.save, self.events, self.refusals, self.implicit = save, [], [], []
        self._loop = asyncio.Runner()  # one event loop for all its replies: a model's HTTP client stays bound to the first
        atexit.register(self._loop.close)

    @classmethod
    def saved(cls, model: ChatModelBase, tools: list[FunctionTool], session: str) -> "Driver":
        """A driver step in a fresh process: the agent over ``saved_state(session)``, saving it again each time a reply returns."""
        return cls(model, tools, saved_state(session), save=True)

    def asking(self) -> list[ToolCallBlock]:
        """The calls awaiting a confirmation."""
        return self.agent.state.get_awaiting_tool_calls("assistant")

    def status(self) -> str:
        """The status of the step so far (``status``)."""
        return status(self.agent.state)

    def confirmation(self, block: ToolCallBlock, confirmed: bool = True) -> UserConfirmResultEvent:
        """The human's answer to one asking call, as the next reply's input."""
        return UserConfirmResultEvent(reply_id=self.agent.state.reply_id, confirm_results=[ConfirmResult(confirmed=confirmed, tool_call=block)])

    def reply(self, inputs: Any) -> None:
        """One ``reply_stream`` over ``inputs`` (a message, a confirmation, or None to go on from the state) to its end."""

        async def run() -> None:
            async for event in self.agent.reply_stream(inputs):
                self.events.append(event)
            if self.save:
                SAVED.write_text(self.agent.state.model_dump_json())
        self._loop.run(run())

    def answer_implicit(self, step: int = 0, limit: int | None = None) -> None:
        """Confirm, one reply each, the asking calls the contract would not have asked about, with the contract's answer
        (``contract_answer``), until none is left (or ``limit`` answers); each answer is kept in ``implicit`` as the
        evidence records it."""
        while limit is None or limit > 0:
            answerable = [b for b in self.asking() if contract_answer(b.name) is not None]
            if not answerable:
                return
            block, confirmed = answerable[0], contract_answer(answerable[0].name)[0]
            self.implicit.append({"step": step, "sub_step": sum(d["step"] == step for d in self.implicit) + 1, "call_id": block.id, "tool": block.name,
                                  "args": json.loads(block.input), "decision": "approve" if confirmed else "reject"})  # fmt: skip
            self.reply(self.confirmation(block, confirmed))
            limit = None if limit is None else limit - 1

    def step(self, inputs: Any, step: int = 0) -> str:
        """One driver step: the reply over ``inputs``, then ``answer_implicit``; its status. A reply AgentScope refuses
        before it starts (its ``ValueError``) ends the step ``refused``, the refusal kept in ``refusals`` as the evidence
        words it (up to its first colon)."""
        try:
            self.reply(inputs)
        except ValueError as refused:
            self.refusals.append("agentscope: " + str(refused).split(":")[0].rstrip("."))
            return "refused"
        self.answer_implicit(step)
        return self.status()


def wire_step(server: LoopbackModel, tools: list[FunctionTool], text: str) -> str:
    """A wire probe's run: ``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...), model=...)`` at its
    defaults against the loopback server, one driver step over the user's ``text``; an ``openai.APIError`` out of it
    ends the run (status ``error``)."""
    model = OpenAIChatModel(credential=OpenAICredential(api_key=SecretStr("probe-key"), base_url=server.url), model="scripted-model")
    try:
        return Driver(model, tools).step(UserMsg(name="user", content=text))
    except openai.APIError as exc:
        print(f"the run raised {type(exc).__name__}: {exc}")
        return "error"


def tool_results(events: list) -> list[str]:
    """The tool results' text the replies streamed, in order (``ToolResultTextDeltaEvent``: one per result of a ``FunctionTool``)."""
    return [e.delta for e in events if isinstance(e, ToolResultTextDeltaEvent)]


def pending(blocks: list[ToolCallBlock]) -> list[dict[str, Any]]:
    """Asking calls as the evidence lists a pause's pending calls."""
    return [{"call_id": b.id, "tool": b.name, "args": json.loads(b.input)} for b in blocks]


def side_effects() -> dict[str, dict[str, int]]:
    """The ``side_effects`` observable: the ledger's entries and effects per call id."""
    return {c: {k: n[k] for k in ("tool_entries", "executor_entries", "effects")} for c, n in counts().items()}


def effects() -> dict[str, int]:
    """Effects per call id so far."""
    return {c: n["effects"] for c, n in counts().items()}


def requests() -> list[list[dict[str, Any]]]:
    """Every request a ``Scripted`` model received, in any process of the probe, as OpenAI messages."""
    return [json.loads(line) for line in _REQUESTS.read_text().splitlines()] if _REQUESTS.exists() else []


def turns() -> list[int]:
    """The script turn each model request asked for, in order."""
    return [sum(m["role"] == "assistant" for m in request) for request in requests()]


def calls_per_turn() -> dict[str, int]:
    """``model.calls_per_turn``: model requests per script turn."""
    asked = turns()
    return {str(t): asked.count(t) for t in sorted(set(asked))}


def unused_turns(script: list) -> list[int]:
    """``model.unused_turns``: script turns the model was never asked for."""
    return [t for t in range(len(script)) if t not in turns()]


def missing_turns(script: list) -> list[int]:
    """``model.missing_turns``: turns asked for beyond the script (answered with ``FILLER``)."""
    return sorted(t for t in set(turns()) if t >= len(script))
