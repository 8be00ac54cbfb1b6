"""The tool calls of an agent's saved conversation: which are still open, and which ones HITL asks about.

``create_agent`` keeps the conversation in its ``messages`` channel; a call is open until a
``ToolMessage`` answers it. ``HumanInTheLoopMiddleware`` (default ``interrupt_mode="batched"``)
asks about a turn's gated calls with one interrupt whose ``action_requests`` list them in the
model's call order; a request names tool and arguments but not the call id, so the id is
recovered from the open calls.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from harness.column_side.protocol import PendingCall


def unanswered(messages: list[Any]) -> list[dict[str, Any]]:
    """The tool calls of the last AI message that have no ToolMessage after it yet."""
    last = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AIMessage)), None)
    if last is None:
        return []
    answered = {m.tool_call_id for m in messages[last + 1 :] if isinstance(m, ToolMessage)}
    return [c for c in messages[last].tool_calls if c["id"] not in answered]


def pending_calls(asked: list[dict[str, Any]], messages: list[Any]) -> tuple[PendingCall, ...]:
    """The reviewed calls with their ids, in the order of the interrupt's action requests (the order in which
    HITL matches a list of decisions to them)."""
    open_calls = unanswered(messages)
    pending = []
    for request in (r for a in asked for r in a.get("action_requests", [])):
        call = next(c for c in open_calls if c["name"] == request["name"] and c["args"] == request["args"])
        open_calls.remove(call)
        pending.append(PendingCall(call["id"], call["name"], call["args"]))
    return tuple(pending)


def tool_messages(values: Any) -> list[ToolMessage]:
    """The ToolMessages in one node's update (a dict, or a list of them for a fan-out)."""
    updates = values if isinstance(values, list) else [values]
    found: list[ToolMessage] = []
    for update in updates:
        if isinstance(update, dict):
            found += [m for m in update.get("messages", []) if isinstance(m, ToolMessage)]
    return found
