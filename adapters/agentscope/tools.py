"""The fixture tools the way AgentScope 2.x teaches tools: typed Python functions wrapped in
``FunctionTool`` (which builds each JSON schema from the signature and docstring).

Every tool is a ``FunctionTool`` at its constructor's defaults (``is_concurrency_safe=True``,
``is_read_only=False``, no ``permission``): AgentScope's documentation describes these flags
but does not set them for a custom function, and the engine's risk classes are ours, not
AgentScope's, so they never shape the tool (``contract`` decides permission in its glue).

``FunctionTool`` calls a function with its parsed arguments only; the tool call id reaches
it through ``CallIdObserver``, an agent middleware (AgentScope's documented extension
point) whose ``on_acting`` hook sees the tool call and sets a context variable for the
call's task. It also records each permission decision. Both are observer instrumentation
(the ledger counts per call id, the trace), not contract glue.

A tool that acts for the session's user (``list_orders``) takes no argument naming the user: the
toolkit is assembled for one session, and the user is bound when it is built, as AgentScope's own
application builds its toolkit (``agentscope.app._service._toolkit.get_toolkit(..., user_id=...)``,
whose team tools are "constructed at agent assembly time with the request-scoped ``user_id``",
``agentscope.app._tool._team_tool_base._TeamToolBase``). AgentState (the one thing a tool can be
handed, ``is_state_injected``) holds no user. The body gets ``{"username": user}``, as the engine's.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncGenerator, Callable
from typing import Any, Literal, Protocol

from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionDecision
from agentscope.tool import FunctionTool, ToolBase

from handwritten.canonical import canonical_json

CURRENT_CALL: contextvars.ContextVar[str] = contextvars.ContextVar("current_tool_call_id")
Emit = Callable[[dict[str, Any]], None]


class World(Protocol):
    """Where a tool function's body runs: the fixture world (``contract`` mode hands in its executor around it)."""

    def call(self, tool: str, call_id: str, args: dict[str, Any]) -> Any: ...


class CallIdObserver(MiddlewareBase):
    """Hands each tool function its call id (a context variable per tool task) and traces permission decisions."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit

    async def on_acting(self, agent: Any, input_kwargs: dict, next_handler: Callable[..., AsyncGenerator]) -> AsyncGenerator:
        CURRENT_CALL.set(input_kwargs["tool_call"].id)  # the gather task of this call: concurrent calls do not share it
        async for item in next_handler(**input_kwargs):
            yield item

    async def on_check_permission(self, agent: Any, input_kwargs: dict, next_handler: Callable[..., Any]) -> PermissionDecision:
        # Reached only once AgentScope parsed (with repair) and validated the input against the tool's schema.
        decision = await next_handler(**input_kwargs)
        self.emit({"kind": "permission", "call_id": input_kwargs["tool_call"].id, "behavior": str(decision.behavior.value)})
        return decision


def fixture_tools(world: World, names: list[str], user: str) -> list[ToolBase]:
    """The named fixture tools as ``FunctionTool``s whose bodies run in ``world``, assembled for the session of ``user``."""

    def run(name: str, received: dict[str, Any]) -> str:
        args = {k: v for k, v in received.items() if v is not None}  # an omitted optional field is absent, not null
        return canonical_json(world.call(name, CURRENT_CALL.get(), args))

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return run("get_weather", {"city": city})

    def get_balance(account: str) -> str:
        """Balance of a bank account in cents."""
        return run("get_balance", {"account": account})

    def search_kb(query: str) -> str:
        """Search the support knowledge base."""
        return run("search_kb", {"query": query})

    def fetch_page(url: str) -> str:
        """Fetch the text of a web page."""
        return run("fetch_page", {"url": url})

    def calculator(a: int | float, b: int | float, op: Literal["add", "sub", "mul", "div"]) -> str:
        """Apply add, sub, mul or div to two numbers; errors come back as values."""
        return run("calculator", {"a": a, "b": b, "op": op})

    def list_orders() -> str:
        """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
        return run("list_orders", {"username": user})

    def put_note(key: str, text: str, priority: int | None = None) -> str:
        """Store a note under a key (overwrites: reversible and idempotent)."""
        return run("put_note", {"key": key, "text": text, "priority": priority})

    def transfer_funds(from_account: str, to_account: str, amount_cents: int, memo: str | None = None) -> str:
        """Move money between accounts. High risk: needs a human approval."""
        return run("transfer_funds", {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents, "memo": memo})

    def send_email(to: str, subject: str, body: str) -> str:
        """Send an email. High risk: needs a human approval."""
        return run("send_email", {"to": to, "subject": subject, "body": body})

    def drop_database(name: str) -> str:
        """Drop a database. Always denied."""
        return run("drop_database", {"name": name})

    every = {f.__name__: f for f in (get_weather, get_balance, search_kb, fetch_page, calculator, list_orders, put_note, transfer_funds, send_email, drop_database)}
    # FunctionTool's annotations ask for a ToolChunk; it converts a returned str itself (FunctionTool.call).
    return [FunctionTool(every[name]) for name in names]  # type: ignore[arg-type]
