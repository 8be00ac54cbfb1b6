"""The fixture tools the way LangChain's docs teach tools: ``@tool`` on typed Python functions
(shared by the LangGraph and LangChain columns; import it only where langchain-core is).

``@tool`` builds a pydantic argument model from each signature; the tool node parses the
model's arguments with it (lax by default) before the function runs. Each function gets its
tool call id through ``InjectedToolCallId`` (the framework's documented mechanism), so the
shared ledger can count entries and effects per call id: that is observer
instrumentation, not contract glue.

A tool that acts for the session's user (``list_orders``) takes no argument naming the user:
it reads the user from the run's runtime context (``ToolRuntime``, the docs' "runtime
context": ``context_schema=SessionUser`` on the graph or agent, ``context=SessionUser(...)``
on every ``stream``), which the model never sees, and hands the body ``{"username": user}``
as the engine's boundary does. LangGraph before 1.0 has no ``ToolRuntime``: there the tool reads
the same context with ``langgraph.runtime.get_runtime``, the 0.6 docs' way (``TOOL_RUNTIME``).
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from pydantic import BaseModel

from handwritten.canonical import canonical_json
from harness.column_side.fixtures.world import FixtureWorld

CallId = Annotated[str, InjectedToolCallId]  # module level: @tool resolves the annotations by name
TOOL_RUNTIME = int(importlib.metadata.version("langgraph").split(".")[0]) >= 1
"""LangGraph 1.0 and later inject a ``ToolRuntime``; 0.6 has ``get_runtime()`` (a column at an extra pin runs 0.6)."""


@dataclass(frozen=True)
class SessionUser:
    """The run's runtime context (``context_schema``): the session's user, for the tools that act for a user."""

    user: str


class _StepWorld:
    """The fixture world the tools below call into: the one of the step this process plays.

    The tools are built once, at import, as the docs define tools (``@tool`` at module level): ``@tool`` builds a pydantic
    model per tool, about 9 ms each, which a worker per driver step would otherwise pay again for every step. A column
    process imports this module before it forks its workers, and each worker binds its own world (``fixture_tools``)."""

    world: FixtureWorld | None = None


def fixture_tools(world: FixtureWorld | None, names: list[str]) -> list[BaseTool]:
    """The named fixture tools as LangChain tools whose bodies call into ``world``, the world of this process's step
    (None: a graph built only to be drawn, whose tools never run, leaves the step's world bound)."""
    if world is not None:
        _StepWorld.world = world
    return [_TOOLS[n] for n in names]


def _run(name: str, call_id: str, received: dict[str, Any]) -> str:
    world = _StepWorld.world
    assert world is not None, "fixture_tools binds the step's world before any agent is built"
    args = {k: v for k, v in received.items() if v is not None}  # an omitted optional field is absent, not null
    world.enter(name, call_id, args)
    return canonical_json(world.execute(name, call_id, args))


@tool
def get_weather(city: str, tool_call_id: CallId) -> str:
    """Current weather for a city."""
    return _run("get_weather", tool_call_id, {"city": city})


@tool
def get_balance(account: str, tool_call_id: CallId) -> str:
    """Balance of a bank account in cents."""
    return _run("get_balance", tool_call_id, {"account": account})


@tool
def search_kb(query: str, tool_call_id: CallId) -> str:
    """Search the support knowledge base."""
    return _run("search_kb", tool_call_id, {"query": query})


@tool
def fetch_page(url: str, tool_call_id: CallId) -> str:
    """Fetch the text of a web page."""
    return _run("fetch_page", tool_call_id, {"url": url})


@tool
def calculator(a: int | float, b: int | float, op: Literal["add", "sub", "mul", "div"], tool_call_id: CallId) -> str:
    """Apply add, sub, mul or div to two numbers; errors come back as values."""
    return _run("calculator", tool_call_id, {"a": a, "b": b, "op": op})


if TOOL_RUNTIME:
    from langgraph.prebuilt import ToolRuntime  # type: ignore[attr-defined,unused-ignore]  # absent before LangGraph 1.0

    @tool
    def list_orders(runtime: ToolRuntime[SessionUser]) -> str:
        """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
        return _run("list_orders", runtime.tool_call_id or "", {"username": runtime.context.user})

else:
    from langgraph.runtime import get_runtime

    @tool
    def list_orders(tool_call_id: CallId) -> str:
        """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
        return _run("list_orders", tool_call_id, {"username": get_runtime(SessionUser).context.user})


@tool
def put_note(key: str, text: str, tool_call_id: CallId, priority: int | None = None) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return _run("put_note", tool_call_id, {"key": key, "text": text, "priority": priority})


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, tool_call_id: CallId, memo: str | None = None) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return _run("transfer_funds", tool_call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents, "memo": memo})


@tool
def send_email(to: str, subject: str, body: str, tool_call_id: CallId) -> str:
    """Send an email. High risk: needs a human approval."""
    return _run("send_email", tool_call_id, {"to": to, "subject": subject, "body": body})


@tool
def drop_database(name: str, tool_call_id: CallId) -> str:
    """Drop a database. Always denied."""
    return _run("drop_database", tool_call_id, {"name": name})


_TOOLS: dict[str, BaseTool] = {
    t.name: t for t in (get_weather, get_balance, search_kb, fetch_page, calculator, list_orders, put_note, transfer_funds, send_email, drop_database)
}


def tool_schemas(names: list[str]) -> dict[str, dict[str, Any]]:
    """Each named tool's schema as its LangChain object holds it: ``BaseTool.tool_call_schema`` (the arguments the model
    fills in, injected ones left out), as JSON Schema (``model_json_schema`` of the pydantic model ``@tool`` built)."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        schema = _TOOLS[name].tool_call_schema
        if isinstance(schema, dict):
            out[name] = dict(schema)
        elif isinstance(schema, type) and issubclass(schema, BaseModel):  # ``@tool`` on a typed function: pydantic 2
            out[name] = schema.model_json_schema()
        else:
            raise TypeError(f"{name}: tool_call_schema is {schema!r}, not a JSON schema or a pydantic 2 model")
    return out


def import_lazy_modules() -> None:
    """Import what a LangChain run imports on its first use (its tracers, the v0 content-block translator), once in the
    column process, so forked workers do not import them again on every driver step."""
    import langchain_core.messages.block_translators.langchain_v0  # noqa: F401
    import langchain_core.tracers.context  # noqa: F401
    import langchain_core.tracers.run_collector  # noqa: F401
    import langchain_core.tracers.stdout  # noqa: F401
