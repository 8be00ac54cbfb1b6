"""The shared scripted model behind LangChain's chat-model interface (LangGraph and LangChain columns).

LangChain's fake chat models cannot bind tools, so ``create_agent`` and tool-calling
graphs reject them; this subclass of ``BaseChatModel`` can. It translates LangChain
messages into the neutral chat dicts the scripted model reads, and the scripted reply
back into an ``AIMessage`` whose tool calls carry the scenario's own call ids, parsed from the raw argument text
the way LangChain's OpenAI client parses a chat completion's tool calls. It keeps
no state: the reply depends only on the messages received, so a re-executed node gets
the same answer. Import it only inside an environment that has langchain-core.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

from handwritten.canonical import canonical_json


class ScriptedChatModel(BaseChatModel):
    """``scripted`` is a ``harness.column_side.scripted_model.ScriptedModel`` (or anything with its ``complete``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    scripted: Any

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        reply = self.scripted.complete([to_neutral(m) for m in messages], kwargs.get("tools", []))
        calls, invalid = [], []
        for call in reply.tool_calls:
            # The call as an OpenAI chat completion carries it (arguments: the raw text), parsed as ``ChatOpenAI`` parses
            # it (langchain_openai ``_convert_dict_to_message``): JSON that is not an object is not turned into an
            # invalid call there, so ``AIMessage`` refuses it as LangChain's own client would
            raw = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
            wire = {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": raw}}
            try:
                calls.append(parse_tool_call(wire, return_id=True))
            except Exception as exc:  # noqa: BLE001 - ChatOpenAI catches every parse failure the same way
                invalid.append(make_invalid_tool_call(wire, str(exc)))
        message = AIMessage(content=reply.text or "", tool_calls=calls, invalid_tool_calls=invalid)
        return ChatResult(generations=[ChatGeneration(message=message)])


def to_neutral(message: BaseMessage) -> dict[str, Any]:
    """A LangChain message as the OpenAI-style dict the scripted model and the engine use."""
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": _text(message.content)}
    if isinstance(message, HumanMessage):
        return {"role": "user", "content": _text(message.content)}
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": _text(message.content)}
    if isinstance(message, AIMessage):
        calls = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": canonical_json(c["args"])}}
            for c in message.tool_calls
        ] + [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
            for c in message.invalid_tool_calls
        ]
        neutral: dict[str, Any] = {"role": "assistant", "content": _text(message.content) or None}
        if calls:
            neutral["tool_calls"] = calls
        return neutral
    return {"role": message.type, "content": _text(message.content)}  # anything else is recorded as injected


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
    return "".join(parts)
