"""What the LangChain probes share, written with LangChain's documented API only: the scripted chat model, the fixture
tools as ``@tool`` functions over the probe's world, ``create_agent`` as the docs build it (with
``HumanInTheLoopMiddleware`` and a checkpointer where a probe asks for them), a ``SqliteSaver`` on a file, and the
readings of a thread and of the ledger. A probe keeps its own finding: the scenario's script, the fault, the driver
steps and the counts it reports; it imports what it uses with ``from _kit import ...`` (a probe runs with its own
folder first on ``sys.path``).

Documented API: ``create_agent`` (https://docs.langchain.com/oss/python/langchain/agents), ``HumanInTheLoopMiddleware``,
``get_state`` and ``Command(resume={"decisions": [...]})`` (https://docs.langchain.com/oss/python/langchain/human-in-the-loop),
a checkpointer, ``SqliteSaver`` and a ``thread_id`` (https://docs.langchain.com/oss/python/langchain/short-term-memory),
``@tool`` with ``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools), a tool taking
``runtime: ToolRuntime[Context]`` (https://docs.langchain.com/oss/python/langchain/runtime), a scripted chat model
whose ``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing),
``ChatOpenAI(model=..., base_url=..., api_key=...)`` for an OpenAI-compatible endpoint
(https://docs.langchain.com/oss/python/integrations/chat#chat-completions-api, https://docs.langchain.com/oss/python/integrations/chat/openai).
"""

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.tools import ToolRuntime
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from harness.column_side.probes.kit import SCRATCH, counts

APPROVE = {"type": "approve"}
"""A ``HumanInTheLoopMiddleware`` decision that approves the action it answers."""
LEFT = "[no scripted turn left]"
"""What the scripted model answers past the end of its script."""
KEYS = ("tool_entries", "executor_entries", "effects")
TURNS = SCRATCH / "turns.jsonl"  # every turn the model was asked for, in order: it survives a killed child


class Scripted(BaseChatModel):
    """Answers turn N of ``script``, N the number of AI messages already in the conversation, and ``LEFT`` past its end;
    ``bind_tools`` returns the model itself. A turn is the final text (a ``str``) or a list of tool calls: ``call(...)``,
    or ``{"id", "name", "arguments"}`` with the raw argument text of a chat completion, parsed as ``ChatOpenAI`` parses it
    (``parse_tool_call``; a failure is an ``invalid_tool_calls`` entry, ``make_invalid_tool_call``:
    https://reference.langchain.com/python/langchain-core/output_parsers/openai_tools). Each turn asked for is noted in
    the probe's scratch directory (``turns_asked``)."""

    script: list

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        with TURNS.open("a", encoding="utf-8") as noted:
            noted.write(f"{turn}\n")
        step = self.script[turn] if turn < len(self.script) else LEFT
        if isinstance(step, str):
            return ChatResult(generations=[ChatGeneration(message=AIMessage(step))])
        calls, invalid = [], []
        for c in step:
            if "args" in c:
                calls.append(c)
                continue
            wire = {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            try:
                calls.append(parse_tool_call(wire, return_id=True))
            except Exception as exc:  # noqa: BLE001 - ChatOpenAI turns every parse failure into an invalid tool call
                invalid.append(make_invalid_tool_call(wire, str(exc)))
        return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=calls, invalid_tool_calls=invalid))])

    def calls_per_turn(self) -> dict[str, int]:
        """How often the model was asked for each turn, by turn number."""
        asked = turns_asked()
        return {str(t): asked.count(t) for t in sorted(set(asked))}

    def missing_turns(self) -> list[int]:
        """The turns asked for past the script's end."""
        return sorted(t for t in set(turns_asked()) if t >= len(self.script))

    def unused_turns(self) -> list[int]:
        """The script's turns never asked for."""
        return sorted(set(range(len(self.script))) - set(turns_asked()))


def turns_asked() -> list[int]:
    """Every turn the scripted model was asked for so far, in this process or a child's."""
    return [int(line) for line in TURNS.read_text(encoding="utf-8").split()] if TURNS.exists() else []


def call(call_id: str, name: str, args: dict) -> dict:
    """One tool call of a scripted turn."""
    return {"id": call_id, "name": name, "args": args}


@dataclass
class SessionUser:
    """The agent's runtime context (``context_schema``): the session's user."""

    user: str


def fixture_tools(run: Callable[[str, str, dict], Any], *names: str) -> list[BaseTool]:
    """The named fixture tools as ``@tool`` functions: typed arguments, a docstring, the call id injected
    (``InjectedToolCallId``; ``list_orders`` reads it and the session's user from ``ToolRuntime``). Each calls
    ``run(tool, call_id, args)``: the probe's ``world(...).call``, or a function around it that orders siblings; its
    result is the tool's output as compact JSON."""

    def result(name: str, call_id: str, args: dict) -> str:
        return json.dumps(run(name, call_id, args), sort_keys=True, separators=(",", ":"))

    @tool
    def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Move money between accounts. High risk: needs a human approval."""
        return result("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents})

    @tool
    def send_email(to: str, subject: str, body: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Send an email. High risk: needs a human approval."""
        return result("send_email", call_id, {"to": to, "subject": subject, "body": body})

    @tool
    def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Store a note under a key (overwrites: reversible and idempotent)."""
        return result("put_note", call_id, {"key": key, "text": text})

    @tool
    def get_weather(city: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Current weather for a city."""
        return result("get_weather", call_id, {"city": city})

    @tool
    def drop_database(name: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Drop a database. Always denied."""
        return result("drop_database", call_id, {"name": name})

    @tool
    def list_orders(runtime: ToolRuntime[SessionUser]) -> str:
        """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
        return result("list_orders", runtime.tool_call_id, {"username": runtime.context.user})

    made = {t.name: t for t in (transfer_funds, send_email, put_note, get_weather, drop_database, list_orders)}
    return [made[name] for name in names]


def agent(model: Any, tools: list[BaseTool], *, reviewed: Iterable[str] | None = None, **options: Any) -> Any:
    """``create_agent`` with the model and the tools; with ``reviewed`` (tool names, none at all included) the docs'
    approval setup, a ``HumanInTheLoopMiddleware`` that asks about those tools' calls; ``options`` as the docs pass them
    (``checkpointer``, ``context_schema``, ``system_prompt``)."""
    middleware = [] if reviewed is None else [HumanInTheLoopMiddleware(interrupt_on=dict.fromkeys(reviewed, True))]
    return create_agent(model, tools=tools, middleware=middleware, **options)


def wire_agent(server: Any, tools: list[BaseTool], **options: Any) -> Any:
    """``create_agent`` with ``ChatOpenAI`` at its defaults against the loopback ``server``, under the scenarios' system prompt."""
    model = ChatOpenAI(model="scripted-model", base_url=server.url, api_key="probe-key")
    return agent(model, tools, system_prompt="You are a support agent for a small bank. Use the tools when they help.", **options)


def on_disk() -> SqliteSaver:
    """A ``SqliteSaver`` on the probe's checkpoint file, over a connection of this process's own: every process opens the
    file itself, so a parent knows only what a killed child left on disk."""
    return SqliteSaver(sqlite3.connect(SCRATCH / "checkpoints.sqlite", check_same_thread=False))


def thread(thread_id: str) -> dict:
    """The run config of a thread."""
    return {"configurable": {"thread_id": thread_id}}


def user(text: str) -> dict:
    """The agent input of a user message."""
    return {"messages": [{"role": "user", "content": text}]}


def decide(*decisions: dict) -> Command:
    """The resume that answers the interrupt's action requests, one decision each, in their order."""
    return Command(resume={"decisions": list(decisions)})


def finished(messages: list) -> bool:
    """The conversation ends with the model's final answer."""
    return isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls


def status(app: Any, config: dict) -> str:
    """The thread's status as the framework leaves it: a decision asked for, finished with the model's answer, or tasks left."""
    state = app.get_state(config)
    return "awaiting_approval" if state.interrupts else "completed" if finished(state.values["messages"]) and not state.tasks else "crashed"


def step(app: Any, payload: Any, config: dict | None = None, errors: tuple[type[BaseException], ...] = (), **options: Any) -> str:
    """One driver step, ``app.invoke(payload, config, **options)``: ``"error"`` when one of ``errors`` comes out of it (an
    exception out of the run ends the step), else the thread's ``status`` (``"completed"`` without a checkpointer)."""
    try:
        app.invoke(payload, config, **options)
    except errors as exc:
        print(f"the run raised {type(exc).__module__}.{type(exc).__name__}: {str(exc)[:300]}", flush=True)
        return "error"
    return status(app, config) if app.checkpointer else "completed"


def results(messages: list, call_id: str) -> list[str]:
    """The tool results a call holds in the conversation."""
    return [m.content for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id]


def ledger() -> dict[str, dict[str, int]]:
    """The side-effect ledger: ``tool_entries``, ``executor_entries``, ``effects`` per call id a tool was entered for."""
    return {cid: {k: row[k] for k in KEYS} for cid, row in counts().items()}


def schema_failure(call_id: str, row: dict) -> dict[str, Any]:
    """``schema_failure_side_effects`` of a call whose arguments break the tool's strict schema, from its ledger row."""
    return {f"schema_failure_side_effects.{call_id}.tool_entered": row["tool_entries"] > 0,
            f"schema_failure_side_effects.{call_id}.executor_entries": row["executor_entries"],
            f"schema_failure_side_effects.{call_id}.effects": row["effects"]}


def flat(prefix: str, value: dict | list) -> dict[str, Any]:
    """The leaves of ``value`` as counts under ``prefix``, a list's by index: ``flat("side_effects", {"c1": {"effects": 1}})``
    is ``{"side_effects.c1.effects": 1}``, ``flat("step_statuses", ["completed"])`` is ``{"step_statuses.0": "completed"}``."""
    found = {}
    for key, leaf in enumerate(value) if isinstance(value, list) else value.items():
        found |= flat(f"{prefix}.{key}", leaf) if isinstance(leaf, dict) and leaf else {f"{prefix}.{key}": leaf}
    return found


def resume_readings(call_id: str, granted: int, before: dict, after: Any) -> dict[str, Any]:
    """``checkpoint_after_interrupt.interrupts.0`` of a killed approved run and its resume, read from what the resume did
    (``after``: the thread's state then): asked about the call again, ran its executor again, or neither.
    ``approval_survives`` asks only about an approval given and not yet used at the kill: ``None`` when the call's executor
    was entered in the killed step (``before`` its ledger row when the resume starts, ``granted`` its executor entries
    when the approval was given), else whether the resume went on without asking again."""
    ran_again = counts()[call_id]["executor_entries"] > before["executor_entries"]
    found = {"resume_position": "awaiting_approval" if after.interrupts else "before_execute" if ran_again else "model_turn",
             "approval_survives": None if before["executor_entries"] > granted else not after.interrupts,
             "effects_before_resume": {call_id: before["effects"]}}
    return {f"checkpoint_after_interrupt.interrupts.0.{key}": value for key, value in found.items()}
