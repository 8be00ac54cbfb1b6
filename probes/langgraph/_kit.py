"""What the LangGraph probes share, written with LangGraph's documented API only: the scripted chat model, the fixture
tools as ``@tool`` functions over the probe's world, the graphs the docs build (the tool-calling loop, with an
approve-or-reject node or with one approval task per call), a checkpointer on a file, and the readings of a thread and
of the ledger. A probe keeps its own finding: the scenario's script, the fault, the driver steps and the counts; it
imports what it uses with ``from _kit import ...`` (a probe runs with its own folder first on ``sys.path``).

Documented API: ``StateGraph`` with ``MessagesState``, a model node, ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/, https://docs.langchain.com/oss/python/langgraph/workflows-agents,
https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode), ``interrupt()`` answered with
``Command(resume=...)``, one interrupt per ``Send`` task answered by interrupt id
(https://docs.langchain.com/oss/python/langgraph/interrupts), checkpointers, ``thread_id``, ``get_state`` and ``SqliteSaver``
(https://docs.langchain.com/oss/python/langgraph/persistence), ``@tool`` with ``InjectedToolCallId`` or ``ToolRuntime``
(https://docs.langchain.com/oss/python/langchain/tools, https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolRuntime;
LangGraph before 1.0 has no ``ToolRuntime``: there a tool reads the runtime context with ``get_runtime``,
https://langchain-ai.github.io/langgraph/agents/context/, and ``TOOL_RUNTIME`` says which one the pin has),
a chat model subclassing ``BaseChatModel`` (https://reference.langchain.com/python/langchain-core/language_models/chat_models/BaseChatModel),
``ChatOpenAI(model=..., base_url=..., api_key=...)`` bound to the tools (https://docs.langchain.com/oss/python/integrations/chat/openai).
"""

import importlib.metadata
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, Send, interrupt

from harness.column_side.probes.kit import SCRATCH, counts

APPROVE = {"approve": True}
"""The human's approval, as the approval nodes read an answer (a rejection: ``{"approve": False, "reason": ...}``)."""
LEFT = "[no scripted turn left]"
"""What the scripted model answers past the end of its script."""
KEYS = ("tool_entries", "executor_entries", "effects")
TURNS = SCRATCH / "turns.jsonl"  # every turn the model was asked for, in order: it survives a killed child
TOOL_RUNTIME = int(importlib.metadata.version("langgraph").split(".")[0]) >= 1
"""LangGraph 1.0 and later inject a ``ToolRuntime`` into a tool; 0.6 has ``langgraph.runtime.get_runtime()`` instead."""


class Scripted(BaseChatModel):
    """Answers turn N of ``script``, N the number of assistant messages it is sent (a task run again gets the same
    answer), and ``LEFT`` past its end. A turn is the final text (a ``str``) or a list of tool calls: ``call(...)``, or
    ``{"id", "name", "arguments"}`` with the raw argument text of a chat completion, parsed as ``ChatOpenAI`` parses it
    (``parse_tool_call``; a failure is an ``invalid_tool_calls`` entry, ``make_invalid_tool_call``:
    https://reference.langchain.com/python/langchain-core/output_parsers/openai_tools). Each turn asked for is noted in
    the probe's scratch directory (``turns_asked``)."""

    script: list

    @property
    def _llm_type(self) -> str:
        return "scripted"

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
        return {str(t): n for t, n in sorted(Counter(turns_asked()).items())}

    def missing_turns(self) -> list[int]:
        """The turns asked for past the script's end."""
        return sorted({t for t in turns_asked() if t >= len(self.script)})

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
    """The graph's runtime context: the session's user (``context_schema``: https://reference.langchain.com/python/langgraph/runtime)."""

    user: str


def fixture_tools(run: Callable[[str, str, dict], Any], *names: str) -> list[BaseTool]:
    """The named fixture tools as ``@tool`` functions: typed arguments, a docstring, the call id injected
    (``InjectedToolCallId``; ``list_orders`` reads it and the session's user from ``ToolRuntime``, before LangGraph 1.0
    the user from ``get_runtime()``). Each calls
    ``run(tool, call_id, args)``: the probe's ``world(...).call``, or a function around it that orders siblings."""

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
    def get_balance(account: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Balance of a bank account in cents."""
        return result("get_balance", call_id, {"account": account})

    @tool
    def get_weather(city: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Current weather for a city."""
        return result("get_weather", call_id, {"city": city})

    @tool
    def drop_database(name: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Drop a database (always denied by the contract)."""
        return result("drop_database", call_id, {"name": name})

    if TOOL_RUNTIME:
        from langgraph.prebuilt import ToolRuntime

        @tool
        def list_orders(runtime: ToolRuntime[SessionUser]) -> str:
            """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
            return result("list_orders", runtime.tool_call_id, {"username": runtime.context.user})
    else:
        from langgraph.runtime import get_runtime

        @tool
        def list_orders(call_id: Annotated[str, InjectedToolCallId]) -> str:
            """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
            return result("list_orders", call_id, {"username": get_runtime(SessionUser).context.user})

    made = {t.name: t for t in (transfer_funds, send_email, put_note, get_balance, get_weather, drop_database, list_orders)}
    return [made[name] for name in names]


def agent_graph(model: Any, tools: list[BaseTool], *, review: bool = False, system: str | None = None, context_schema: type | None = None) -> StateGraph:
    """The docs' tool-calling agent, not yet compiled: a model node ``agent`` answering from the conversation (after
    ``system``, when given), ``ToolNode`` as ``tools`` and ``tools_condition`` between them. With ``review``, the docs'
    approve-or-reject node between the model's tool calls and ``ToolNode``: it asks with ``interrupt()`` about the
    turn's first call, ``{"call_id", "tool", "args"}``, and the call is approved when the interrupt returns
    (https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject)."""

    def agent(state: MessagesState) -> dict:
        return {"messages": [model.invoke([SystemMessage(system), *state["messages"]] if system else state["messages"])]}

    def review_call(state: MessagesState) -> dict:
        call = state["messages"][-1].tool_calls[0]
        interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})
        return {}

    graph = StateGraph(MessagesState, context_schema=context_schema)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    if review:
        graph.add_node("review", review_call)
        graph.add_conditional_edges("agent", tools_condition, {"tools": "review", "__end__": "__end__"})
        graph.add_edge("review", "tools")
    else:
        graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph


def approval_graph(model: Any, tools: list[BaseTool], reviewed: Iterable[str], *, context_schema: type | None = None) -> StateGraph:
    """The docs' approval of a turn of several calls, not yet compiled: each open call of a tool in ``reviewed`` gets an
    approval task of its own (``Send``) that asks with ``interrupt({"call_id", "tool", "args"})``, answered by interrupt id
    ("Handling multiple interrupts"); a rejection becomes the call's tool result; a join (``dispatch``) sends the calls
    not rejected to ``ToolNode`` as one task, or goes back to the model. A turn with no reviewed call goes to the tools."""
    reviewed = set(reviewed)

    def open_calls(messages: list) -> list[dict]:  # the last model turn's calls with no tool result yet
        last = max(i for i, m in enumerate(messages) if isinstance(m, AIMessage))
        answered = {m.tool_call_id for m in messages[last:] if isinstance(m, ToolMessage)}
        return [c for c in messages[last].tool_calls if c["id"] not in answered]

    def route(state: MessagesState) -> list[Send] | str:
        calls = open_calls(state["messages"])
        return [Send("approval", c) for c in calls if c["name"] in reviewed] or ("tools" if calls else END)

    def approval(call: dict) -> dict:  # one task per call: one interrupt about its own call
        answer = interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})
        if answer["approve"]:
            return {}
        text = json.dumps({"error": f"rejected by the human approver: {answer['reason']}"}, separators=(",", ":"))
        return {"messages": [ToolMessage(text, tool_call_id=call["id"], name=call["name"], status="error")]}

    def dispatch(state: MessagesState) -> Command:
        calls = open_calls(state["messages"])
        return Command(goto=[Send("tools", calls)] if calls else "agent")

    graph = StateGraph(MessagesState, context_schema=context_schema)
    graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("approval", approval)
    graph.add_node("dispatch", dispatch, destinations=("tools", "agent"))
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["approval", "tools", END])
    graph.add_edge("approval", "dispatch")
    graph.add_edge("tools", "agent")
    return graph


def wire_graph(server: Any, tools: list[BaseTool]) -> StateGraph:
    """The tool-calling agent with ``ChatOpenAI`` at its defaults against the loopback ``server``, bound to the tools,
    under the scenarios' system prompt."""
    model = ChatOpenAI(model="scripted-model", base_url=server.url, api_key="probe-key").bind_tools(tools)
    return agent_graph(model, tools, system="You are a support agent for a small bank. Use the tools when they help.")


def on_disk(graph: StateGraph, saver: type[SqliteSaver] = SqliteSaver) -> Any:
    """The graph compiled with a ``SqliteSaver`` (or a subclass) on the probe's checkpoint file, over a connection of
    this process's own: every process opens the file itself, so a parent knows only what a killed child left on disk."""
    return graph.compile(checkpointer=saver(sqlite3.connect(str(SCRATCH / "langgraph.sqlite"), check_same_thread=False)))


def thread(thread_id: str) -> dict:
    """The run config of a thread."""
    return {"configurable": {"thread_id": thread_id}}


def user(text: str) -> dict:
    """The graph input of a user message."""
    return {"messages": [("user", text)]}


def finished(messages: list) -> bool:
    """The conversation ends with the model's final answer."""
    return isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls


def status(app: Any, config: dict) -> str:
    """The thread's status as LangGraph leaves it: a question asked, finished with the model's answer, or tasks left."""
    state = app.get_state(config)
    return "awaiting_approval" if state.interrupts else "completed" if finished(state.values["messages"]) and not state.next else "crashed"


def step(app: Any, payload: Any, config: dict | None = None, errors: tuple[type[BaseException], ...] = (), **options: Any) -> str:
    """One driver step, ``app.invoke(payload, config, **options)``: ``"error"`` when one of ``errors`` comes out of it (an
    exception out of the run ends the step), else the thread's ``status`` (``"completed"`` without a checkpointer)."""
    try:
        app.invoke(payload, config, **options)
    except errors as exc:
        print(f"the run raised {type(exc).__module__}.{type(exc).__name__}: {str(exc)[:300]}", flush=True)
        return "error"
    return status(app, config) if app.checkpointer else "completed"


def asking(app: Any, config: dict) -> dict[str, str]:
    """The pending interrupts' ids, by the call id each asks about."""
    return {i.value["call_id"]: i.id for i in app.get_state(config).interrupts}


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


def flat(prefix: str, value: dict) -> dict[str, Any]:
    """The leaves of ``value`` as counts under ``prefix``: ``flat("side_effects", {"c1": {"effects": 1}})`` is
    ``{"side_effects.c1.effects": 1}``."""
    found = {}
    for key, leaf in value.items():
        found |= flat(f"{prefix}.{key}", leaf) if isinstance(leaf, dict) and leaf else {f"{prefix}.{key}": leaf}
    return found


# -- the defaults that moved between the pins, each measured on a graph of its own (never read from a name) ----------


def recursion_limit() -> int:
    """The super-steps a graph that never ends gets before ``GraphRecursionError``, with no ``recursion_limit`` given:
    LangGraph's default bound (https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT)."""
    from typing import TypedDict

    from langgraph.errors import GraphRecursionError

    class Ticks(TypedDict):
        n: int

    graph = StateGraph(Ticks)
    graph.add_node("tick", lambda state: {"n": state["n"] + 1})
    graph.add_edge(START, "tick")
    graph.add_edge("tick", "tick")
    steps = 0
    try:
        for _ in graph.compile().stream({"n": 0}, stream_mode="updates"):
            steps += 1
    except GraphRecursionError:
        return steps
    raise AssertionError("a graph that never ends ended")


def tool_error() -> str:
    """``message`` or ``raise``: what a ``ToolNode`` with its default ``handle_tool_errors`` does with a tool whose body
    raises, in a one-node graph."""

    @tool
    def fails() -> str:
        """A tool whose body raises."""
        raise RuntimeError("the tool's body failed")

    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([fails]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    try:
        out = graph.compile().invoke({"messages": [AIMessage("", tool_calls=[{"name": "fails", "args": {}, "id": "c1", "type": "tool_call"}])]})
    except RuntimeError:
        return "raise"
    return "message" if out["messages"][-1].status == "error" else "neither"


def interrupt_ids() -> str:
    """``one per task`` or ``one per interrupt``: the ids ``get_state().interrupts`` gives a node's first and second
    ``interrupt()`` (https://docs.langchain.com/oss/python/langgraph/interrupts)."""
    from langgraph.checkpoint.memory import InMemorySaver

    def asks_twice(state: MessagesState) -> dict:
        interrupt("first")
        interrupt("second")
        return {}

    graph = StateGraph(MessagesState)
    graph.add_node("asks_twice", asks_twice)
    graph.add_edge(START, "asks_twice")
    graph.add_edge("asks_twice", END)
    app, config = graph.compile(checkpointer=InMemorySaver()), {"configurable": {"thread_id": "ids"}}
    app.invoke({"messages": []}, config)
    first = app.get_state(config).interrupts[0].id
    app.invoke(Command(resume="answer"), config)
    return "one per task" if app.get_state(config).interrupts[0].id == first else "one per interrupt"
