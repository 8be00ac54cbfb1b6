"""The scripted model behind ADK's own model interface: a ``BaseLlm`` whose ``generate_content_async`` answers from the
``LlmRequest`` it is sent (``to_neutral`` maps its ``contents`` to the chat dicts ``ScriptedModel`` reads). The reply's
``FunctionCall``s carry the script's call ids. A call's arguments reach ADK as Gemini's API sends them, a JSON object:
an object, or JSON text of one, as that object; anything else (text that is not JSON, an array, a number) cannot be
said through this interface and arrives as a call without arguments (the wire mode measures what ADK's ``OpenAILlm``
makes of the text itself)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

from handwritten.canonical import canonical_json

CONFIRMATION = "adk_request_confirmation"  # google.adk.utils._function_call_names.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME


class ScriptedLlm(BaseLlm):
    """``scripted`` is a ``harness.column_side.scripted_model.ScriptedModel`` (or anything with its ``complete``);
    ``offered`` sees each request the model is sent (the ``mcp`` mode records the MCP tools' declarations from it)."""

    _scripted: Any = PrivateAttr()
    _offered: Callable[[LlmRequest], None] | None = PrivateAttr(default=None)

    def __init__(self, scripted: Any, offered: Callable[[LlmRequest], None] | None = None) -> None:
        super().__init__(model="scripted")
        self._scripted = scripted
        self._offered = offered

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        if self._offered is not None:
            self._offered(llm_request)
        system = llm_request.config.system_instruction if llm_request.config else None
        answer = self._scripted.complete(to_neutral(llm_request.contents, system), [])  # the script does not depend on the tools offered
        parts = [types.Part(text=answer.text)] if answer.text else []
        parts += [types.Part(function_call=types.FunctionCall(id=c.id, name=c.name, args=as_object(c.arguments))) for c in answer.tool_calls]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def as_object(arguments: Any) -> dict[str, Any] | None:
    """A call's arguments as a ``FunctionCall`` holds them: a JSON object, else none."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    return arguments if isinstance(arguments, dict) else None


def to_neutral(contents: list[types.Content], system: Any = None) -> list[dict[str, Any]]:
    """One chat dict per text, per model turn (its calls) and per function response; the system instruction first."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system if isinstance(system, str) else str(system)}] if system else []
    for content in contents:
        calls = [p.function_call for p in content.parts or () if p.function_call]
        text = "".join(p.text for p in content.parts or () if p.text)
        if content.role == "model":
            listed = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": canonical_json(c.args or {})}} for c in calls]
            out.append({"role": "assistant", "content": text or None} | ({"tool_calls": listed} if listed else {}))
            continue
        if text:
            out.append({"role": "user", "content": text})
        for part in content.parts or ():
            if (response := part.function_response) is not None:
                out.append({"role": "tool", "tool_call_id": response.id, "content": canonical_json(response.response or {})})
    return out
