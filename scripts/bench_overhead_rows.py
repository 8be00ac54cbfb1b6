"""The rows of ``scripts/bench_overhead.py``: the scenario, and how each row's agent is built in its measuring child.

A builder gets a ``Setup`` (the script, the replay model, a scratch directory, an event loop) and an optional model URL
(over HTTP: the runner's scripted server) and returns a ``Built``: ``run(session)`` plays the whole scenario on a new
session, ``saved(session)`` says what that run handed its persistence. Each framework's agent is the one its column
builds in ``defaults``, from the adapter's own pieces; ``bench_overhead_child.py`` measures them.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sqlite3
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
sys.path[:0] = [str(ROOT), str(SCRIPTS)]  # runnable from a fresh clone without installing; bench_* beside this file

from bench_engine import ReplayModel, Script, bare_loop, load_script, tool_function, tool_specs  # noqa: E402

from handwritten.approvals import ApprovalAuthority  # noqa: E402
from handwritten.checkpoint import SqliteCheckpointStore  # noqa: E402
from handwritten.engine import Engine  # noqa: E402
from handwritten.idempotency import SqliteIdempotencyStore  # noqa: E402
from handwritten.model import ModelReply  # noqa: E402
from handwritten.tools import RiskClass, ToolRegistry  # noqa: E402
from handwritten.wire_model import OpenAIWireModel  # noqa: E402  (imports openai only when one is built)
from harness.fixture_tools import FIXTURE_TOOLS  # noqa: E402

SCENARIO = ROOT / "scenarios" / "basic_react_loop.json"
TURNS = load_script(SCENARIO).model_turns  # four: every child checks that its model was asked that many times a run
BARE, ENGINE = "bare loop", "engine"
FRAMEWORKS = ("langgraph", "langchain", "openai_agents", "agentscope", "pydantic_ai")
# What the import probe imports: what the in-process agent needs (the wire mode's client is imported by its build).
IMPORTS: dict[str, tuple[str, ...]] = {
    BARE: ("json",),
    ENGINE: ("handwritten.engine", "handwritten.checkpoint", "handwritten.idempotency"),
    "langgraph": ("langgraph.graph", "langgraph.prebuilt", "langgraph.checkpoint.sqlite"),
    "langchain": ("langchain.agents", "langgraph.checkpoint.sqlite"),
    "openai_agents": ("agents",),
    "agentscope": ("agentscope.agent",),
    "pydantic_ai": ("pydantic_ai",),
}
WIRE_MODE = "bench"  # the mode part of a worker's URL on the wire server (``<base>/<mode>/<scenario>/<step>/v1``)
WARM_BUILDS = 5  # builds after the first, per child: the median is the construction figure
API_KEY = "wire-dummy-key"  # the scripted server ignores it; the openai client refuses to start without one


class CountingReplay(ReplayModel):
    """``bench_engine.ReplayModel`` (the turn from the conversation, no I/O) that counts the requests it answers."""

    calls = 0

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> ModelReply:
        self.calls += 1
        return super().complete(messages, tools)


class PureWorld:
    """The fixture world as the adapters' tools call it (``enter``, ``execute``, ``call``), without its ledger and faults:
    only the pure fixture bodies run, as in ``bench_engine``, so every row pays the same for its tools. It counts the
    bodies it runs: a run whose tools were refused or never called still ends in the script's final text."""

    calls = 0

    def enter(self, tool: str, call_id: str, raw_args: Any) -> None:
        """The column records the entry in the ledger; nothing to record here."""

    def execute(self, tool: str, call_id: str, args: Any) -> Any:
        self.calls += 1
        return tool_function(tool)(args, call_id)

    def call(self, tool: str, call_id: str, args: Any) -> Any:
        return self.execute(tool, call_id, args)


@dataclass
class Setup:
    """What every builder gets: the script, the session's user, a scratch directory, the replay model, an event loop."""

    script: Script
    user: str
    scratch: Path
    model: CountingReplay
    loop: asyncio.AbstractEventLoop
    world: PureWorld = field(default_factory=PureWorld)

    @property
    def tools(self) -> list[str]:
        return list(self.script.tools)


@dataclass
class Built:
    """A built agent: ``run(session)`` plays the whole scenario on a new session and returns the final text;
    ``saved(session)`` is ``(bytes, writes)`` that session's run handed its persistence (None: nothing persists)."""

    run: Callable[[str], str | None]
    saved: Callable[[str], tuple[int, int]] | None = None
    close: Callable[[], None] = lambda: None


def env(module: str) -> Any:
    """A module of the child's pinned environment: a framework, or an adapter module that imports one. Imported by name
    because mypy checks this script in the project's environment, where no framework is installed (so: ``Any``)."""
    return importlib.import_module(module)


def payload_bytes(path: Path, queries: Iterable[str], session: str) -> tuple[int, int]:
    """Sum of ``(bytes, rows)`` over queries that select ``SUM(LENGTH(...)), COUNT(*)`` for one session of a SQLite file."""
    total, rows = 0, 0
    with closing(sqlite3.connect(path)) as db:
        for query in queries:
            size, count = db.execute(query, (session,)).fetchone()
            total, rows = total + (size or 0), rows + count
    return total, rows


def final_ai_text(updates: Iterable[Any]) -> str | None:
    """The last final answer (an AI message without tool calls) in LangGraph ``updates`` chunks (``{node: {"messages"}}``)."""
    text = None
    for update in updates:
        for value in update.values():
            for message in value.get("messages", []) if isinstance(value, dict) else []:
                if getattr(message, "type", None) == "ai" and not message.tool_calls:
                    text = str(message.content)
    return text


# -- the reference rows ------------------------------------------------------------------------------------------------


def build_bare(setup: Setup, model_url: str | None) -> Built:
    """``bench_engine.bare_loop``; over HTTP, the same loop on the openai client (defaults: only address and key)."""
    functions = {n: tool_function(n) for n in setup.tools}
    if model_url is None:
        return Built(lambda session: bare_loop(setup.script, functions)[-1]["content"])
    client = env("openai").OpenAI(base_url=model_url, api_key=API_KEY)
    tools = ToolRegistry(tool_specs(setup.tools)).openai_tools()  # the same tool list the engine sends
    return Built(lambda session: bare_wire_loop(setup.script, functions, client, tools), close=client.close)


def bare_wire_loop(script: Script, functions: Mapping[str, Callable[[Any, str], Any]], client: Any, tools: list[dict[str, Any]]) -> str | None:
    """Ask, call the tools the answer names, append the messages; until an answer without tool calls."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": script.system_prompt}] if script.system_prompt else []
    messages.append({"role": "user", "content": script.user_input})
    for _ in range(script.max_steps):
        message = client.chat.completions.create(model="scripted-model", messages=messages, tools=tools).choices[0].message
        if not message.tool_calls:
            return str(message.content)
        calls = [{"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}} for c in message.tool_calls]
        messages.append({"role": "assistant", "content": message.content, "tool_calls": calls})
        for c in message.tool_calls:
            output = functions[c.function.name](json.loads(c.function.arguments), c.id)
            messages.append({"role": "tool", "tool_call_id": c.id, "content": json.dumps(output)})
    return None


def build_engine(setup: Setup, model_url: str | None) -> Built:
    """The engine as the ``handwritten`` column builds it: SQLite stores in one file; over HTTP, its OpenAIWireModel."""
    db = setup.scratch / "engine.sqlite"
    checkpoints, idempotency = SqliteCheckpointStore(str(db)), SqliteIdempotencyStore(str(db))
    engine = Engine(
        model=OpenAIWireModel(model_url, session_id="bench") if model_url else setup.model,
        registry=ToolRegistry(tool_specs(setup.tools)),
        checkpoints=checkpoints,
        idempotency=idempotency,
        approvals=ApprovalAuthority(b"bench-secret", clock=lambda: 0.0, new_token_id=lambda: "unused"),
        max_steps=setup.script.max_steps,
        system_prompt=setup.script.system_prompt,
    )

    def close() -> None:
        checkpoints.close()
        idempotency.close()

    query = "SELECT SUM(LENGTH(added) + LENGTH(state)), COUNT(*) FROM checkpoints WHERE session_id = ?"
    return Built(lambda session: engine.run(session, setup.script.user_input, "e1").final_text,
                 lambda session: payload_bytes(db, [query], session), close)  # fmt: skip


# -- the frameworks, each as its column builds it in ``defaults`` -------------------------------------------------------


def chat_model(setup: Setup, model_url: str | None) -> Any:
    """LangChain's chat model for the LangGraph and LangChain columns: the scripted one, or ``ChatOpenAI`` on the wire."""
    if model_url:
        return env("adapters.wire_chat_openai").wire_model(model_url)
    return env("adapters.scripted_chat_model").ScriptedChatModel(scripted=setup.model)


def high_risk(names: list[str]) -> set[str]:
    """The tools a column's defaults ask a human about (none in this scenario)."""
    return {n for n in names if FIXTURE_TOOLS[n].risk is RiskClass.HIGH_RISK}


LANGGRAPH_SAVED = (
    "SELECT SUM(LENGTH(checkpoint) + LENGTH(metadata)), COUNT(*) FROM checkpoints WHERE thread_id = ?",
    "SELECT SUM(LENGTH(value)), COUNT(*) FROM writes WHERE thread_id = ?",
)


def build_langgraph(setup: Setup, model_url: str | None) -> Built:
    """``adapters/langgraph``: the hand-built ``StateGraph`` (``agent_graph``) compiled with a ``SqliteSaver`` on a file,
    streamed with ``stream_mode="updates"`` and LangGraph's default (asynchronous) durability."""
    saver_module, messages, tools = env("langgraph.checkpoint.sqlite"), env("langchain_core.messages"), env("adapters.langchain_tools")
    db = setup.scratch / "langgraph.sqlite"
    connection = sqlite3.connect(str(db), check_same_thread=False)  # LangGraph writes checkpoints from a thread
    risky = high_risk(setup.tools)
    graph = env("adapters.langgraph.graph").agent_graph(chat_model(setup, model_url), tools.fixture_tools(setup.world, setup.tools),
                                                        lambda call: call["name"] in risky, setup.script.system_prompt)  # fmt: skip
    compiled = graph.compile(checkpointer=saver_module.SqliteSaver(connection))
    context = tools.SessionUser(setup.user)

    def run(session: str) -> str | None:
        config = {"configurable": {"thread_id": session}}
        return final_ai_text(compiled.stream({"messages": [messages.HumanMessage(setup.script.user_input)]}, config, stream_mode="updates", context=context))

    return Built(run, lambda session: payload_bytes(db, LANGGRAPH_SAVED, session), connection.close)


def build_langchain(setup: Setup, model_url: str | None) -> Built:
    """``adapters/langchain``: ``create_agent`` with ``HumanInTheLoopMiddleware`` (on the high-risk tools) and a
    ``SqliteSaver`` on a file, streamed with ``stream_mode=["updates", "checkpoints"]`` as the column streams it."""
    agents, middleware, tools = env("langchain.agents"), env("langchain.agents.middleware"), env("adapters.langchain_tools")
    db = setup.scratch / "langchain.sqlite"
    connection = sqlite3.connect(str(db), check_same_thread=False)
    agent = agents.create_agent(
        chat_model(setup, model_url),
        tools=tools.fixture_tools(setup.world, setup.tools),
        system_prompt=setup.script.system_prompt,
        middleware=[middleware.HumanInTheLoopMiddleware(interrupt_on={name: True for name in high_risk(setup.tools)})],
        checkpointer=env("langgraph.checkpoint.sqlite").SqliteSaver(connection),
        context_schema=tools.SessionUser,
    )
    context = tools.SessionUser(setup.user)

    def run(session: str) -> str | None:
        stream = agent.stream({"messages": [{"role": "user", "content": setup.script.user_input}]}, {"configurable": {"thread_id": session}},
                              stream_mode=["updates", "checkpoints"], context=context)  # fmt: skip
        return final_ai_text(chunk for mode, chunk in stream if mode == "updates")

    return Built(run, lambda session: payload_bytes(db, LANGGRAPH_SAVED, session), connection.close)


def build_openai_agents(setup: Setup, model_url: str | None) -> Built:
    """``adapters/openai_agents``: ``Agent`` with the scripted ``Model`` (or the SDK's default ``OpenAIResponsesModel`` on
    the wire) and ``@function_tool`` tools, run by ``Runner.run`` over a ``SQLiteSession`` (a session per conversation)."""
    agents, tools = env("agents"), env("adapters.openai_agents.tools")
    agents.set_tracing_disabled(True)  # the environment says so too (OPENAI_AGENTS_DISABLE_TRACING): as the column does
    model = env("adapters.openai_agents.wire").wire_model(model_url) if model_url else env("adapters.openai_agents.model").ScriptedAgentsModel(setup.model)
    agent = agents.Agent(name="support", instructions=setup.script.system_prompt, model=model, tools=tools.fixture_tools(setup.world, setup.tools))
    db = setup.scratch / "session.sqlite"

    def run(session: str) -> str | None:
        history = agents.SQLiteSession(session, str(db))
        try:
            result = setup.loop.run_until_complete(agents.Runner.run(agent, setup.script.user_input, session=history, context=tools.SessionUser(user=setup.user)))
        finally:
            history.close()
        return str(result.final_output)

    return Built(run, lambda session: payload_bytes(db, ["SELECT SUM(LENGTH(message_data)), COUNT(*) FROM agent_messages WHERE session_id = ?"], session))


def build_agentscope(setup: Setup, model_url: str | None) -> Built:
    """``adapters/agentscope``: ``Agent`` with the scripted ``ChatModelBase`` (or ``OpenAIChatModel`` on the wire), a
    ``Toolkit`` of ``FunctionTool``s with the column's ``CallIdObserver``, and an ``AgentState`` per session whose
    permission context allows the scenario's tools; the state is saved as JSON when the reply returns, as the column does."""
    agent_module, permission, message = env("agentscope.agent"), env("agentscope.permission"), env("agentscope.message")
    state_type, tools = env("agentscope.state").AgentState, env("adapters.agentscope.tools")
    rules = {n: [permission.PermissionRule(tool_name=n, rule_content=None, behavior=permission.PermissionBehavior.ALLOW, source="userSettings")]
             for n in setup.tools}  # fmt: skip
    allowed = permission.PermissionContext(allow_rules=rules)  # one for every session: the agent's permission engine keeps its first
    model = env("adapters.agentscope.wire").wire_model(model_url) if model_url else env("adapters.agentscope.model").ScriptedChatModel(setup.model)
    agent = agent_module.Agent(
        name="assistant", system_prompt=setup.script.system_prompt or "", model=model,
        toolkit=env("agentscope.tool").Toolkit(tools=tools.fixture_tools(setup.world, setup.tools, setup.user)),
        middlewares=[tools.CallIdObserver(lambda event: None)], state=state_type(session_id="first", permission_context=allowed),
    )  # fmt: skip

    def run(session: str) -> str | None:
        agent.state = state_type(session_id=session, permission_context=allowed)
        reply = setup.loop.run_until_complete(agent.reply(message.UserMsg(name="user", content=setup.script.user_input)))
        (setup.scratch / f"{session}.agent_state.json").write_text(agent.state.model_dump_json(), encoding="utf-8")
        return str(reply.get_text_content())

    return Built(run, lambda session: (len((setup.scratch / f"{session}.agent_state.json").read_bytes()), 1))


def build_pydantic_ai(setup: Setup, model_url: str | None) -> Built:
    """``adapters/pydantic_ai``: ``Agent`` with the scripted ``FunctionModel`` (or ``OpenAIChatModel`` on the wire),
    ``Tool``s, ``output_type=[str, DeferredToolRequests]``; the history saved with ``ModelMessagesTypeAdapter`` after the run."""
    pydantic_ai, tools = env("pydantic_ai"), env("adapters.pydantic_ai.tools")
    model = env("adapters.pydantic_ai.wire").wire_model(model_url) if model_url else env("adapters.pydantic_ai.model").scripted_function_model(setup.model)
    agent = pydantic_ai.Agent(model, output_type=[str, pydantic_ai.DeferredToolRequests], tools=tools.fixture_tools(setup.world, setup.tools),
                              system_prompt=setup.script.system_prompt or (), deps_type=tools.SessionUser)  # fmt: skip

    def run(session: str) -> str | None:
        result = setup.loop.run_until_complete(agent.run(setup.script.user_input, message_history=[], deps=tools.SessionUser(setup.user)))
        (setup.scratch / f"{session}.messages.json").write_bytes(pydantic_ai.ModelMessagesTypeAdapter.dump_json(result.all_messages()))
        return str(result.output)

    return Built(run, lambda session: (len((setup.scratch / f"{session}.messages.json").read_bytes()), 1))


BUILDERS: dict[str, Callable[[Setup, str | None], Built]] = {
    BARE: build_bare, ENGINE: build_engine, "langgraph": build_langgraph, "langchain": build_langchain,
    "openai_agents": build_openai_agents, "agentscope": build_agentscope, "pydantic_ai": build_pydantic_ai,
}  # fmt: skip
