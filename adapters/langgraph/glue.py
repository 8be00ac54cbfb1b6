"""Contract glue: the least code that keeps the contract around LangGraph's own loop.

Every line of this file is contract-only (counted as glue). LangGraph keeps running the
graph, pausing with ``interrupt()``, checkpointing and resuming; the glue adds what it has
no mechanism for, from the shared blocks (``adapters/glue_blocks.py``):

- ``asks``: the calls the approval node asks about, admitted (schema, then policy) before the pause;
- ``ToolGuard``: the ``ToolNode``'s ``wrap_tool_call`` hook: ``admit``, then ``run_once`` (intent,
  idempotency record keyed ``<session>/<tool call id>``, attempts), an uncertain call settled through
  LangGraph's own ``interrupt()``;
- ``next_turn``: the step bound, ``turns_left`` counted from the saved messages before every model turn;
- ``resumed``: where a resume continues, from the idempotency records.

The base column verifies approval tokens, refuses answers nobody asked for and events seen before.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph import END
from langgraph.types import StateSnapshot, interrupt

from adapters.glue_blocks import Admitted, Contract, Failed, Ok, Reconciled, Rejected, Replay, admit, resume_position, run_once, turns_left
from adapters.scripted_chat_model import to_neutral
from handwritten.idempotency import RecordState

from .graph import ToolCall, tool_message

DURABILITY: Literal["sync"] = "sync"  # the checkpoint after the step that names a call (its intent) is on disk before the tool runs


def asks(contract: Contract) -> Callable[[ToolCall], bool]:
    """Admit every call of the turn (schema, then policy) where the graph routes it, one call after another, and ask
    only about those the policy holds for approval. Admitting here, not in the ToolNode's threads, keeps the trace
    in the model's order (a rejected call is answered by the guard when the turn runs)."""

    def asked(call: ToolCall) -> bool:
        verdict = admit(contract, call["name"], call["id"], call["args"])
        return isinstance(verdict, Admitted) and verdict.needs_approval

    return asked


def unanswered(snapshot: StateSnapshot) -> list[Any]:
    """The questions still open in the thread's latest checkpoint: the interrupts of the tasks that have no result yet.
    LangGraph 0.6 keeps listing, in ``StateSnapshot.interrupts``, the interrupt of a task that was answered and has
    finished while its batch's other tasks still wait; 1.x drops it from the latest checkpoint's snapshot (and lists
    every interrupt of an older one, as 0.6 does): the contract asks about a call once."""
    return [i.value for task in snapshot.tasks if task.result is None for i in task.interrupts]


def turns(contract: Contract, messages: list[AnyMessage]) -> int:
    """Model turns left since the last user input, counted from the saved conversation."""
    return turns_left(contract, [to_neutral(m)["role"] for m in messages])  # the roles the scripted model sees


def next_turn(contract: Contract) -> Callable[[list[AnyMessage]], str]:
    """The step bound before every model turn: ``agent`` while a turn is left, else ``END`` (the run stops)."""
    return lambda messages: "agent" if turns(contract, messages) > 0 else END


def settle(call_id: str) -> str:
    """Pause the run until a human reconciles the uncertain call (LangGraph's ``interrupt()``)."""
    return str(interrupt({"kind": "reconcile", "call_id": call_id})["outcome"])


class ToolGuard:
    """``ToolNode(wrap_tool_call=...)``: schema and policy, then at most one execution per key."""

    def __init__(self, contract: Contract) -> None:
        self._contract = contract

    def __call__(self, request: Any, execute: Callable[[Any], Any]) -> Any:
        call = request.tool_call
        with self._contract.handover(call["id"]):  # the harness's sibling order (a schedule), around the call
            verdict = admit(self._contract, call["name"], call["id"], call["args"], announce=False)  # traced where it was routed
            if isinstance(verdict, Rejected):
                return tool_message(call, verdict.status, verdict.output)
            messages: list[Any] = []

            def once() -> Any:
                messages.append(execute(request))
                return json.loads(messages[-1].content)

            match run_once(self._contract, call["name"], call["id"], verdict.args, once, settle):
                case Ok():
                    return messages[-1]
                case Replay(output=stored):  # the record keeps the result as canonical JSON text
                    return tool_message(call, "replayed", json.loads(stored))
                case Reconciled(output=output):
                    return tool_message(call, "reconciled", output)
                case Failed(error=error):
                    return tool_message(call, "error", {"error": error})
            raise AssertionError("settle pauses the run: a call is never left uncertain here")


def resumed(contract: Contract, calls: list[ToolCall]) -> tuple[ToolCall, str]:
    """The call a resume continues at, as the engine's pending intent would name it (one entered and not
    finished, else the first not completed, else the first), and its position from its record."""
    states = {c["id"]: getattr(contract.idempotency.get(contract.key(c["id"])), "state", None) for c in calls}
    entered = [c for c in calls if states[c["id"]] in (RecordState.IN_PROGRESS, RecordState.UNCERTAIN)]
    not_done = [c for c in calls if states[c["id"]] is not RecordState.COMPLETED]
    call = (entered or not_done or calls)[0]
    return call, resume_position(contract, call["id"], "before_execute")
