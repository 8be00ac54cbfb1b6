"""The shared scripted model behind the Agents SDK's ``Model`` interface.

``Runner`` hands a model the instructions and the run's input items (Responses-API
items: messages, ``function_call`` and ``function_call_output`` items); this adapter
translates them into the neutral chat dicts the scripted model reads (system, user,
assistant with ``tool_calls``, tool), so it records roles and any injected text
faithfully, and turns the scripted reply back into ``ResponseFunctionToolCall`` /
``ResponseOutputMessage`` items that carry the scenario's own call ids. It keeps no
state: the reply depends only on the input it receives.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from handwritten.canonical import canonical_json
from harness.column_side.scripted_model import ScriptedModel


class ScriptedAgentsModel(Model):
    """``scripted``: the scenario's ``harness.column_side.scripted_model.ScriptedModel``; ``offered`` sees the tools each
    turn offers the model (the ``mcp`` mode records the MCP tools' schemas from it)."""

    def __init__(self, scripted: ScriptedModel, offered: Callable[[Sequence[Any]], None] | None = None) -> None:
        self.scripted = scripted
        self.offered = offered

    async def get_response(self, system_instructions: str | None, input: str | list[Any], model_settings: Any, tools: list[Any],
                           output_schema: Any, handoffs: list[Any], tracing: Any, *, previous_response_id: str | None,
                           conversation_id: str | None, prompt: Any) -> ModelResponse:
        if self.offered is not None:
            self.offered(tools)
        messages = ([{"role": "system", "content": system_instructions}] if system_instructions else []) + to_neutral(input)
        reply = self.scripted.complete(messages, [{"name": t.name} for t in tools])
        output: list[Any] = [
            ResponseFunctionToolCall(
                id=call.id,
                call_id=call.id,
                type="function_call",
                name=call.name,
                # raw JSON text, as a model sends it: the script's own text when it has one
                arguments=call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments),
            )
            for call in reply.tool_calls
        ]
        if reply.text is not None and not reply.tool_calls:
            output.append(ResponseOutputMessage(
                id="scripted-message", type="message", role="assistant", status="completed",
                content=[ResponseOutputText(text=reply.text, type="output_text", annotations=[], logprobs=[])],
            ))
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the adapter never streams: Runner.run calls get_response")


def to_neutral(items: str | list[Any]) -> list[dict[str, Any]]:
    """Responses-API input items as the OpenAI-style chat dicts the scripted model reads.

    Consecutive ``function_call`` items form one assistant message (one model turn);
    an item of any other type is kept under its own type as role, so the scripted
    model records it as injected rather than this adapter hiding it."""
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    out: list[dict[str, Any]] = []
    for item in items:
        item = item if isinstance(item, dict) else item.model_dump(exclude_unset=True)
        kind = item.get("type", "message")
        if kind == "function_call":
            call = {"id": item["call_id"], "type": "function", "function": {"name": item["name"], "arguments": item["arguments"]}}
            if out and out[-1]["role"] == "assistant" and out[-1].get("tool_calls"):
                out[-1]["tool_calls"].append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            out.append({"role": "tool", "tool_call_id": item["call_id"], "content": _text(item.get("output"))})
        elif kind == "message":
            out.append({"role": item.get("role", "user"), "content": _text(item.get("content"))})
        else:
            out.append({"role": kind, "content": canonical_json(item)})
    return out


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return canonical_json(content)
