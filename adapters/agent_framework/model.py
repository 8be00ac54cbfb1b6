"""The scripted model behind Agent Framework's chat-client interface: a ``BaseChatClient`` whose
``_inner_get_response`` answers from the messages it is sent (``to_neutral`` maps them to the chat dicts
``ScriptedModel`` reads), composed with the framework's layers as its own clients are (``FunctionInvocationLayer``:
the tool loop; ``ChatMiddlewareLayer``; ``ChatTelemetryLayer``), so the loop that runs the tools is the framework's.
The reply's function calls carry the script's call ids; their arguments reach the framework as a provider's reply
gives them: an object as a mapping, JSON text as that text, anything else as its JSON text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_framework import BaseChatClient, ChatMiddlewareLayer, ChatResponse, Content, FunctionInvocationLayer, Message
from agent_framework.observability import ChatTelemetryLayer

from handwritten.canonical import canonical_json


class ScriptedChatClient(FunctionInvocationLayer[Any], ChatMiddlewareLayer[Any], ChatTelemetryLayer[Any], BaseChatClient[Any]):
    """``scripted`` is a ``harness.column_side.scripted_model.ScriptedModel`` (or anything with its ``complete``)."""

    OTEL_PROVIDER_NAME = "scripted"

    def __init__(self, scripted: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scripted = scripted

    async def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any) -> ChatResponse:
        answer = self.scripted.complete(to_neutral(messages, options.get("instructions")), [])  # the script does not depend on the tools offered
        contents = [Content.from_function_call(call_id=c.id, name=c.name, arguments=c.arguments if isinstance(c.arguments, (str, dict)) else canonical_json(c.arguments))
                    for c in answer.tool_calls]
        contents += [Content.from_text(answer.text)] if answer.text else []
        return ChatResponse(messages=[Message(role="assistant", contents=contents)])


def to_neutral(messages: Sequence[Message], instructions: Any = None) -> list[dict[str, Any]]:
    """One chat dict per message (its text and calls) and per function result; the instructions first."""
    out: list[dict[str, Any]] = [{"role": "system", "content": str(instructions)}] if instructions else []
    for message in messages:
        calls = [c for c in message.contents if c.type == "function_call"]
        text = "".join(c.text or "" for c in message.contents if c.type == "text")
        if message.role == "assistant":
            listed = [{"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": _text(c.arguments or {})}} for c in calls]
            out.append({"role": "assistant", "content": text or None} | ({"tool_calls": listed} if listed else {}))
            continue
        if text:
            out.append({"role": str(message.role), "content": text})
        out += [{"role": "tool", "tool_call_id": c.call_id, "content": _text(c.result)} for c in message.contents if c.type == "function_result"]
    return out


def _text(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value)
