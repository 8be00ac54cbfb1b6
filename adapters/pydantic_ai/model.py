"""The scripted model as a Pydantic AI ``FunctionModel`` that answers from the messages it is sent: ``to_neutral``
maps them to the chat dicts ``ScriptedModel`` reads; the reply's ``ToolCallPart``s carry the script's call ids. A
return Pydantic AI made up (its history repair closes an unanswered call) or a prompt of its own is injected text."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, RetryFeedbackPart, RetryPromptPart, SystemPromptPart, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.scripted_model import ScriptedModel

SYNTHESIZED = "pydantic_ai_synthesized_tool_return"  # pydantic_ai.messages.SYNTHESIZED_TOOL_RETURN_METADATA_KEY


def scripted_function_model(scripted: ScriptedModel, offered: Callable[[AgentInfo], None] = lambda info: None) -> FunctionModel:
    """Asynchronous, so Pydantic AI calls it on the event loop (a plain function runs in a worker thread). ``offered``
    sees what each request offers the model (the ``mcp`` mode records the MCP tools' definitions from it)."""

    async def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered(info)
        answer = scripted.complete(to_neutral(messages), [])  # the script does not depend on the tools offered
        text: list[Any] = [TextPart(answer.text)] if answer.text else []
        return ModelResponse(parts=text + [ToolCallPart(c.name, _args(c.arguments), tool_call_id=c.id) for c in answer.tool_calls])

    return FunctionModel(reply, model_name="scripted")


def _args(arguments: Any) -> str | dict[str, Any]:
    """A call's arguments as a provider hands them over: an object, or the model's JSON text. Arguments that are JSON but
    not an object (an array, a number, null) arrive as their text, as from a real model; a list in ``ToolCallPart.args``
    would be history Pydantic AI writes and cannot load back (found by scripts/explore.py)."""
    return arguments if isinstance(arguments, (str, dict)) else json.dumps(arguments)


def to_neutral(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    """One chat dict per request part, one per response."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            calls = [{"id": p.tool_call_id, "type": "function", "function": {"name": p.tool_name, "arguments": p.args_as_json_str()}}
                     for p in message.parts if isinstance(p, ToolCallPart)]
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            out.append({"role": "assistant", "content": text or None} | ({"tool_calls": calls} if calls else {}))
            continue
        for part in message.parts:
            match part:
                case SystemPromptPart() | UserPromptPart():
                    out.append({"role": "system" if isinstance(part, SystemPromptPart) else "user", "content": str(part.content)})
                case ToolReturnPart():
                    role = "framework" if (part.metadata or {}).get(SYNTHESIZED) else "tool"
                    out.append({"role": role, "tool_call_id": part.tool_call_id, "content": part.model_response_str()})
                case RetryFeedbackPart():  # Pydantic AI's own feedback on an unusable response: never bound to a call
                    out.append({"role": "framework", "content": part.model_response()})
                case RetryPromptPart():  # bound to a call: its answer; otherwise a prompt of Pydantic AI's own
                    out.append({"role": "tool" if part.tool_name else "framework", "tool_call_id": part.tool_call_id, "content": part.model_response()})
                case _:
                    out.append({"role": part.part_kind, "content": str(part)})
    return out

