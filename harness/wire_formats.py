"""The two OpenAI wire formats the scripted servers speak: chat completions and the Responses API (shared by the
runner's scripted server, ``harness.runner_side.run.servers.wire``, and the wire probes' plain stub, ``harness.column_side.probes.wire``).

A request of either is normalised to what the scripted model reads in process (OpenAI-style chat messages, the
tools as ``{name, description, parameters, strict}``), so the turn is chosen and the request judged the same way;
a script turn is rendered back as that API's answer, plain or as its server-sent-event stream. Ids and times in an
answer are derived from the turn (never random, never the clock), so two runs exchange the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from handwritten.canonical import canonical_json
from handwritten.model import ModelReply

Json = dict[str, Any]


def chat_messages(body: Mapping[str, Any]) -> list[Json]:
    """A chat completions request's messages in the neutral shape (``_message``), whatever a client sent."""
    messages = body.get("messages")
    return [_message(m) for m in messages] if isinstance(messages, list) else []


def responses_messages(body: Mapping[str, Any]) -> list[Json]:
    """A Responses API request's ``instructions`` and ``input`` as chat messages: a run of ``function_call`` items (and
    the assistant text just before them) is one assistant message, as a chat completion would have it."""
    messages: list[Json] = []
    if body.get("instructions"):
        messages.append({"role": "system", "content": _plain(body["instructions"])})
    items = body.get("input")
    if isinstance(items, str):
        return [*messages, {"role": "user", "content": items}]
    open_turn = False  # the last message is an assistant turn that a function_call may still join
    for item in items if isinstance(items, list) else []:
        kind = item.get("type", "message") if isinstance(item, dict) else None
        if not isinstance(item, dict):
            messages.append({"role": "item:invalid", "content": _plain(item)})
            open_turn = False
        elif kind == "function_call":
            call = {"id": _text(item.get("call_id")), "type": "function", "function": {"name": _text(item.get("name")), "arguments": item.get("arguments")}}
            if not open_turn:
                messages.append({"role": "assistant", "content": None})
            messages[-1].setdefault("tool_calls", []).append(call)
            open_turn = True
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": _text(item.get("call_id")), "content": _plain(item.get("output"))})
            open_turn = False
        elif kind == "message":
            role = _text(item.get("role"))
            messages.append({"role": role, "content": _plain(item.get("content"))})
            open_turn = role == "assistant"
        else:  # reasoning and other items the scripted model never produces: kept, so the judge sees them
            messages.append({"role": f"item:{_text(kind)}", "content": _plain(item)})
            open_turn = False
    return messages


def _message(message: Any) -> Json:
    """A chat message as the judge reads it: a text role, text content (or None), tool calls as ``{id, function: {name,
    arguments}}`` with text ids and names. Whatever else a client sends (a number for a message, a list of calls that are
    not objects) is kept as text, never a reason for the server to fail."""
    if not isinstance(message, dict):
        return {"role": "invalid", "content": _plain(message)}
    out: Json = {"role": _text(message.get("role")), "content": _plain(message.get("content"))}
    calls = message.get("tool_calls")
    if calls:
        out["tool_calls"] = [_call(c) for c in (calls if isinstance(calls, list) else [calls])]
    if "tool_call_id" in message:
        out["tool_call_id"] = _text(message["tool_call_id"])
    return out


def _call(call: Any) -> Json:
    """A tool call of an assistant message: ``{id, type, function: {name, arguments}}`` with a text id and name."""
    if not isinstance(call, dict):
        return {"id": None, "type": "invalid", "function": {"name": _plain(call), "arguments": None}}
    function = call["function"] if isinstance(call.get("function"), dict) else {}
    return {"id": _text(call.get("id")), "type": "function", "function": {"name": _text(function.get("name")), "arguments": function.get("arguments")}}


def chat_tools(body: Mapping[str, Any]) -> list[Json]:
    """The tools of a chat completions request, as sent, in one neutral shape."""
    tools = body.get("tools")
    return [_tool(t.get("function")) for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []


def responses_tools(body: Mapping[str, Any]) -> list[Json]:
    """The function tools of a Responses API request, as sent, in one neutral shape."""
    tools = body.get("tools")
    return [_tool(t) for t in tools if isinstance(t, dict) and t.get("type", "function") == "function"] if isinstance(tools, list) else []


def _tool(spec: Any) -> Json:
    """``{name, description, parameters, strict}``: a name as text, parameters an object (anything else as text)."""
    spec = spec if isinstance(spec, dict) else {}
    out: Json = {k: spec[k] for k in ("description", "strict") if k in spec}
    if "name" in spec:
        out["name"] = _text(spec["name"])
    if "parameters" in spec:
        out["parameters"] = _finite(spec["parameters"]) if isinstance(spec["parameters"], dict) else {"(not an object)": _plain(spec["parameters"])}
    return out


def _text(value: Any) -> str | None:
    """A role, an id or a name as text (None stays None): a client may send anything there."""
    return value if isinstance(value, str) or value is None else _plain(value)


def _finite(value: Any) -> Any:
    """JSON with every non-finite number as its text (``NaN``, ``Infinity``), so a record can always be written."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    return [_finite(v) for v in value] if isinstance(value, list) else value


def _plain(content: Any) -> Any:
    """Content as text: text parts joined with nothing between them, any other value as its JSON (None stays None)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in content):
        return "".join(p["text"] for p in content)
    return json.dumps(_finite(content), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _arguments(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else canonical_json(arguments)


# -- chat completions -------------------------------------------------------------------------------------------------


def chat_completion(reply: ModelReply, turn: int, model: str) -> Json:
    """A chat completion carrying the script's reply."""
    message: Json = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": _arguments(c.arguments)}} for c in reply.tool_calls]
    return {
        "id": f"chatcmpl-scripted-{turn}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }  # fmt: skip


def chat_chunks(reply: ModelReply, turn: int, model: str) -> Iterator[Json]:
    """The same reply as chat completion chunks (text first, then one chunk per call, then the finish and usage)."""
    base = {"id": f"chatcmpl-scripted-{turn}", "object": "chat.completion.chunk", "created": 0, "model": model}
    yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": reply.text or ""}, "finish_reason": None}]}
    for index, c in enumerate(reply.tool_calls):
        call = {"index": index, "id": c.id, "type": "function", "function": {"name": c.name, "arguments": _arguments(c.arguments)}}
        yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}]}
    yield {**base, "choices": [], "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


# -- the Responses API ------------------------------------------------------------------------------------------------


def response_object(reply: ModelReply, turn: int, model: str, status: str = "completed") -> Json:
    """A Responses API response carrying the script's reply."""
    output: list[Json] = []
    if reply.text:
        content = [{"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}]
        output.append({"type": "message", "id": f"msg_scripted_{turn}", "status": "completed", "role": "assistant", "content": content})
    for c in reply.tool_calls:
        output.append({"type": "function_call", "id": f"fc_scripted_{turn}_{c.id}", "call_id": c.id, "name": c.name,
                       "arguments": _arguments(c.arguments), "status": "completed"})
    return {
        "id": f"resp_scripted_{turn}", "object": "response", "created_at": 0, "status": status, "model": model,
        "output": output if status == "completed" else [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "error": None, "incomplete_details": None, "instructions": None, "metadata": {}, "temperature": None, "top_p": None,
        "text": {"format": {"type": "text"}}, "truncation": "disabled",
        "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0,
                  "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}},
    }  # fmt: skip


def response_events(reply: ModelReply, turn: int, model: str) -> Iterator[Json]:
    """The same reply as the Responses API's stream: created, each output item added and done, completed."""
    sequence = iter(range(1 << 30))
    yield {"type": "response.created", "sequence_number": next(sequence), "response": response_object(reply, turn, model, "in_progress")}
    for index, item in enumerate(response_object(reply, turn, model)["output"]):
        yield {"type": "response.output_item.added", "sequence_number": next(sequence), "output_index": index, "item": item}
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield {"type": "response.output_text.delta", "sequence_number": next(sequence), "output_index": index, "item_id": item["id"],
                   "content_index": 0, "delta": text, "logprobs": []}
        yield {"type": "response.output_item.done", "sequence_number": next(sequence), "output_index": index, "item": item}
    yield {"type": "response.completed", "sequence_number": next(sequence), "response": response_object(reply, turn, model)}
