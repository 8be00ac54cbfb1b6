"""The Agent Framework defaults no name holds, measured on one small agent run in the column's environment (no session, a
model that asks for two calls in one turn, then answers with text; the first call awaits, then raises):

- ``parallel_calls``: whether the calls of one model turn run ``concurrently`` (the second starts while the first
  awaits) or ``sequentially``;
- ``tool_error``: what the framework does with an exception of a tool's body: ``message`` (the model gets a result in
  its place) or ``raise`` (the run ends in the exception).

and, on a second run whose model asks for a call in every turn, ``at_step_limit``: what the loop does when its own
bound (``max_iterations``) is spent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent_framework import Agent, tool

from handwritten.model import ModelReply, ToolCall

from .model import ScriptedChatClient

_TWO_CALLS = ModelReply(tool_calls=(ToolCall("c1", "first", {}), ToolCall("c2", "second", {})))


def measured() -> dict[str, dict[str, Any]]:
    """``parallel_calls`` and ``tool_error``, from one run."""
    order: list[str] = []

    async def first() -> str:
        order.append("first started")
        await asyncio.sleep(0.01)
        order.append("first finished")
        raise RuntimeError("the tool's body failed")

    async def second() -> str:
        order.append("second started")
        return ""

    class Script:
        def complete(self, messages: list[dict[str, Any]], tools: Any) -> ModelReply:
            return ModelReply(text="done") if any(m["role"] == "assistant" for m in messages) else _TWO_CALLS

    async def go() -> None:
        await Agent(client=ScriptedChatClient(Script()), tools=[tool(first, name="first"), tool(second, name="second")]).run("go")

    try:
        asyncio.run(go())
    except RuntimeError:
        error = "raise"
    else:
        error = "message"
    parallel = "concurrently" if order.index("second started") < order.index("first finished") else "sequentially"
    return {"tool_error": {"ref": "agent_framework._tools:_function_execution_error_result", "value": error},
            "parallel_calls": {"ref": "agent_framework._tools:_try_execute_function_call_groups", "value": parallel}, "at_step_limit": at_step_limit()}


def at_step_limit() -> dict[str, Any]:
    """The model calls of a run whose model never stops calling a tool, and the tool choice of the last one."""
    choices: list[Any] = []

    class Recording(ScriptedChatClient):
        async def _inner_get_response(self, **kwargs: Any) -> Any:
            choices.append(kwargs["options"].get("tool_choice"))
            return await super()._inner_get_response(**kwargs)

    class Loop:
        def complete(self, messages: list[dict[str, Any]], tools: Any) -> ModelReply:
            return ModelReply(tool_calls=(ToolCall(f"c{len(choices)}", "first", {}),))

    async def first() -> str:
        return ""

    async def go() -> None:
        await Agent(client=Recording(Loop()), tools=[tool(first, name="first")]).run("go")

    asyncio.run(go())
    value = f"{len(choices)} model calls, the last with tool_choice={choices[-1]!r}"
    return {"ref": "agent_framework._tools:FunctionInvocationLayer._get_response_with_function_invocation", "value": value}
