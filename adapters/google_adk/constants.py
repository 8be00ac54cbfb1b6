"""The ADK defaults no name holds, measured on a small agent in the column's environment (an in-memory session, a
model that asks for two calls in one turn, then answers with text):

- ``tool_error``: what ADK does with an exception of a tool's body when no callback catches it: ``message`` (the
  model gets it as the call's response) or ``raise`` (the run ends in the exception).
- ``parallel_calls``: whether the calls of one model turn run ``concurrently`` (the second starts while the first
  awaits) or ``sequentially``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.genai import types

from handwritten.model import ModelReply, ToolCall

from .model import ScriptedLlm


class _TwoCalls:
    """A script: one turn with the calls ``first`` and ``second``, then text."""

    def complete(self, messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        if any(m["role"] == "assistant" for m in messages):
            return ModelReply(text="done")
        return ModelReply(tool_calls=(ToolCall("c1", "first", {}), ToolCall("c2", "second", {})))


def _run(first: Any, second: Any) -> None:
    agent = LlmAgent(name="probe", model=ScriptedLlm(_TwoCalls()), tools=[first, second])
    runner = InMemoryRunner(agent=agent, app_name="constants")

    async def go() -> None:
        session = await runner.session_service.create_session(app_name="constants", user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=types.Content(role="user", parts=[types.Part(text="go")])):
            pass

    asyncio.run(go())


def tool_error() -> dict[str, Any]:
    """``message`` or ``raise``: a turn whose first call's body raises."""

    async def first() -> dict[str, Any]:
        raise RuntimeError("the tool's body failed")

    async def second() -> dict[str, Any]:
        return {}

    try:
        _run(first, second)
    except RuntimeError:
        value = "raise"
    else:
        value = "message"
    return {"ref": "google.adk.flows.llm_flows.tools._caller (on_tool_error_callback unset)", "value": value}


def parallel_calls() -> dict[str, Any]:
    """``concurrently`` or ``sequentially``: whether the turn's second call starts while its first awaits."""
    order: list[str] = []

    async def first() -> dict[str, Any]:
        order.append("first started")
        await asyncio.sleep(0.01)
        order.append("first finished")
        return {}

    async def second() -> dict[str, Any]:
        order.append("second started")
        return {}

    _run(first, second)
    value = "concurrently" if order.index("second started") < order.index("first finished") else "sequentially"
    return {"ref": "google.adk.flows.llm_flows.tools._batch_executor:_execute_prepared_function_calls", "value": value}
