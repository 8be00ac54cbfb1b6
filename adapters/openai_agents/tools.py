"""The fixture tools the way the Agents SDK's documentation teaches tools: ``function_tool``
(the ``@function_tool`` decorator, applied to the functions a session offers) on typed Python
functions, ``needs_approval=True`` on the high-risk ones.

``@function_tool`` builds a pydantic argument model and a strict JSON schema from each
signature; the SDK parses the model's JSON arguments with that model before the function
runs, and by default turns a tool exception into an error message for the model
(``failure_error_function``). Each function takes a ``ToolContext`` first, the SDK's
documented way for a tool to see its call id (``ctx.tool_call_id``), so the shared ledger
counts entries and effects per call id: that is observer instrumentation, not contract glue.

A tool that acts for the session's user (``list_orders``) takes no argument naming the user: it
reads the user from the run's local context (the docs' "context management": the object passed as
``Runner.run(..., context=...)``, seen by a tool as ``ToolContext.context`` and never sent to the
model), a ``SessionUser`` mapping (a mapping context round-trips through ``RunState`` JSON as it
is), and hands the body ``{"username": user}`` as the engine's boundary does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypedDict

from agents import FunctionTool, function_tool
from agents.tool_context import ToolContext

from handwritten.canonical import canonical_json
from handwritten.tools import RiskClass
from harness.column_side.fixtures.world import FixtureWorld
from harness.fixture_tools import FIXTURE_TOOLS


class SessionUser(TypedDict):
    """The run's local context (``Runner.run(context=...)``): the session's user, for the tools that act for a user."""

    user: str


def _run(world: FixtureWorld, ctx: ToolContext[Any], name: str, received: dict[str, Any]) -> str:
    args = {k: v for k, v in received.items() if v is not None}  # an omitted optional field is absent, not null
    world.enter(name, ctx.tool_call_id, args)
    return canonical_json(world.execute(name, ctx.tool_call_id, args))


def gated(name: str) -> bool:
    """The high-risk tools: the ones a human approves (``needs_approval=True``)."""
    return FIXTURE_TOOLS[name].risk is RiskClass.HIGH_RISK


def fixture_tools(world: FixtureWorld, names: list[str], needs_approval: Callable[[str], Any] = gated, **options: Any) -> list[FunctionTool]:
    """The named fixture tools as SDK function tools whose bodies call into ``world``.

    ``needs_approval(name)`` is each tool's ``needs_approval`` value; ``options`` go to every
    ``function_tool`` (none in ``defaults``: every other setting is the SDK's). Only the named functions are made
    tools: ``function_tool`` builds a pydantic model and a strict schema for each, about 4 ms a tool in every step."""

    def get_weather(ctx: ToolContext[Any], city: str) -> str:
        """Current weather for a city."""
        return _run(world, ctx, "get_weather", {"city": city})

    def get_balance(ctx: ToolContext[Any], account: str) -> str:
        """Balance of a bank account in cents."""
        return _run(world, ctx, "get_balance", {"account": account})

    def search_kb(ctx: ToolContext[Any], query: str) -> str:
        """Search the support knowledge base."""
        return _run(world, ctx, "search_kb", {"query": query})

    def fetch_page(ctx: ToolContext[Any], url: str) -> str:
        """Fetch the text of a web page."""
        return _run(world, ctx, "fetch_page", {"url": url})

    def calculator(ctx: ToolContext[Any], a: int | float, b: int | float, op: Literal["add", "sub", "mul", "div"]) -> str:
        """Apply add, sub, mul or div to two numbers; errors come back as values."""
        return _run(world, ctx, "calculator", {"a": a, "b": b, "op": op})

    def list_orders(ctx: ToolContext[SessionUser]) -> str:
        """Orders of the signed-in user (acts for the session's user: the user comes from the session)."""
        return _run(world, ctx, "list_orders", {"username": ctx.context["user"]})

    def put_note(ctx: ToolContext[Any], key: str, text: str, priority: int | None = None) -> str:
        """Store a note under a key (overwrites: reversible and idempotent)."""
        return _run(world, ctx, "put_note", {"key": key, "text": text, "priority": priority})

    def transfer_funds(ctx: ToolContext[Any], from_account: str, to_account: str, amount_cents: int, memo: str | None = None) -> str:
        """Move money between accounts. High risk: needs a human approval."""
        return _run(world, ctx, "transfer_funds", {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents, "memo": memo})

    def send_email(ctx: ToolContext[Any], to: str, subject: str, body: str) -> str:
        """Send an email. High risk: needs a human approval."""
        return _run(world, ctx, "send_email", {"to": to, "subject": subject, "body": body})

    def drop_database(ctx: ToolContext[Any], name: str) -> str:
        """Drop a database. Always denied."""
        return _run(world, ctx, "drop_database", {"name": name})

    every: dict[str, Callable[..., str]] = {
        f.__name__: f for f in (get_weather, get_balance, search_kb, fetch_page, calculator, list_orders, put_note, transfer_funds, send_email, drop_database)
    }
    return [function_tool(every[n], needs_approval=needs_approval(n), **options) for n in names]
