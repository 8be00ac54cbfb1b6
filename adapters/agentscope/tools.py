"""The fixture tools the way AgentScope 2.x teaches tools: typed Python functions wrapped in
``FunctionTool`` (which builds each JSON schema from the signature and docstring).

``FunctionTool`` calls a function with its parsed arguments only; the tool call id reaches
it through ``CallIdObserver``, an agent middleware (AgentScope's documented extension
point) whose ``on_acting`` hook sees the tool call and sets a context variable for the
call's task. It also records each permission decision. Both are observer instrumentation
(the ledger counts per call id, the trace), not contract glue.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncGenerator, Callable
from typing import Any, Literal

from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionBehavior, PermissionDecision
from agentscope.tool import FunctionTool

from handwritten.canonical import canonical_json
from handwritten.tools import RiskClass
from harness.world import FIXTURE_TOOLS, FixtureWorld

CURRENT_CALL: contextvars.ContextVar[str] = contextvars.ContextVar("current_tool_call_id")
Emit = Callable[[dict[str, Any]], None]


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


Guard = Callable[[str, str, dict[str, Any], Callable[[], Any]], Any]
"""Runs a call's body: (tool, call id, args, body) -> output; contract mode's executor records it."""


def fixture_tools(
    world: FixtureWorld, names: list[str], permissions: dict[str, PermissionDecision | None], guard: Guard | None = None
) -> list[FunctionTool]:
    """The named fixture tools as ``FunctionTool``s over ``world``; ``permissions``: a tool's own decision (None: ask);
    ``guard`` (contract glue) wraps each body, None runs it directly."""

    def run(name: str, received: dict[str, Any]) -> str:
        call_id = CURRENT_CALL.get()
        args = {k: v for k, v in received.items() if v is not None}  # an omitted optional field is absent, not null

        def body() -> Any:  # enter (the function was called) and execute
            return world.call(name, call_id, args)

        return canonical_json(guard(name, call_id, args, body) if guard else body())

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

    every = {f.__name__: f for f in (get_weather, get_balance, search_kb, fetch_page, calculator, put_note, transfer_funds, send_email, drop_database)}
    tools = []
    for name in names:
        read_only = FIXTURE_TOOLS[name].risk is RiskClass.READ_ONLY
        # Writes run one at a time: AgentScope batches concurrency-safe calls onto one gather.
        tools.append(FunctionTool(every[name], is_read_only=read_only, is_concurrency_safe=read_only, permission=permissions.get(name)))
    return tools


def defaults_permissions(names: list[str]) -> dict[str, PermissionDecision | None]:
    """``defaults``: a human confirms the high-risk tools and, as AgentScope does for any function tool
    it is not told about, the always-denied one; the reversible write is allowed outright.
    Read-only tools need nothing: the permission engine auto-allows them (``is_read_only``)."""
    allow = PermissionDecision(behavior=PermissionBehavior.ALLOW, message="A reversible write: allowed without asking.")
    return {n: allow for n in names if FIXTURE_TOOLS[n].risk is RiskClass.REVERSIBLE_WRITE}
