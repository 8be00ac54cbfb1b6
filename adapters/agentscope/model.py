"""The shared scripted model behind AgentScope 2.x's chat-model interface.

``ScriptedChatModel`` subclasses ``agentscope.model.ChatModelBase`` and implements
``_call_api``: it formats AgentScope's messages with ``OpenAIChatFormatter`` (what an
OpenAI-compatible model would receive, runtime-state hints included), translates them
into the neutral chat dicts ``harness.column_side.scripted_model.ScriptedModel`` reads, and answers
with a complete ``ChatResponse`` whose ``ToolCallBlock`` ids are the scenario's own call
ids. It keeps no state: the reply depends only on the messages received.

The one rewrite is for stable evidence: AgentScope injects the wall-clock time into its
runtime-state hint, and the neutral message carries ``<current-time>(wall clock)`` in its
place so the recorded injected text is the same in every run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from agentscope.credential import CredentialBase
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import Msg, TextBlock, ToolCallBlock
from agentscope.model import ChatModelBase, ChatResponse

from handwritten.canonical import canonical_json

WALL_CLOCK = re.compile(r"<current-time>.*?</current-time>")


class ToolNames:
    """How the model names a tool the script names: the same name (a ``FunctionTool`` is named after its function);
    the ``mcp`` mode's tools are named by AgentScope's MCP client (``adapters.agentscope.mcp.McpToolNames``)."""

    def given(self, tool: str) -> str:
        """The name the model calls the script's ``tool`` by."""
        return tool

    def tool(self, given: str) -> str:
        """The script's tool a name the model was given stands for."""
        return given


class ScriptedChatModel(ChatModelBase):
    """``scripted`` is a ``harness.column_side.scripted_model.ScriptedModel`` (or anything with its ``complete``). ``names``
    maps the script's tool names to the ones the model is given; ``on_tools``, when set, sees the tools of every request
    (the function schemas the toolkit gives the model)."""

    def __init__(self, scripted: Any, names: ToolNames | None = None, on_tools: Callable[[list[dict]], None] | None = None) -> None:
        super().__init__(credential=CredentialBase(), model="scripted", parameters=self.Parameters(), stream=False)
        self.scripted = scripted
        self.names = names or ToolNames()
        self.on_tools = on_tools
        self.formatter = OpenAIChatFormatter()  # the agent reads it; without it the first reply fails

    async def _call_api(self, model_name: str, messages: list[Msg], tools: list[dict] | None = None, tool_choice: Any = None, **kwargs: Any) -> ChatResponse:
        if self.on_tools is not None:
            self.on_tools(tools or [])
        formatted = await self.formatter.format(messages)
        reply = self.scripted.complete([self._named(to_neutral(m)) for m in formatted], tools or [])
        content: list[Any] = [TextBlock(text=reply.text)] if reply.text else []
        for call in reply.tool_calls:
            arguments = call.arguments if isinstance(call.arguments, str) else canonical_json(call.arguments)
            content.append(ToolCallBlock(id=call.id, name=self.names.given(call.name), input=arguments))
        return ChatResponse(content=content, is_last=True)

    def _named(self, message: dict[str, Any]) -> dict[str, Any]:
        """A message's tool calls under the script's names (the calls the model made by the names it was given)."""
        if not message.get("tool_calls") or type(self.names) is ToolNames:
            return message
        calls = [{**c, "function": {**c["function"], "name": self.names.tool(c["function"]["name"])}} if isinstance(c.get("function"), dict) else c
                 for c in message["tool_calls"]]
        return {**message, "tool_calls": calls}


def to_neutral(message: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-formatted message as the neutral dict the scripted model and the engine use."""
    neutral: dict[str, Any] = {"role": message["role"], "content": _text(message.get("content"))}
    if message.get("tool_calls"):
        neutral["tool_calls"] = message["tool_calls"]
        neutral["content"] = neutral["content"] or None
    if "tool_call_id" in message:
        neutral["tool_call_id"] = message["tool_call_id"]
    return neutral


def _text(content: Any) -> str:
    if content is None:
        return ""
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return WALL_CLOCK.sub("<current-time>(wall clock)</current-time>", text)
