"""Contract glue for ``create_agent``: the shared glue blocks (``adapters/glue_blocks.py``) hooked into LangChain's middleware.

All of it is contract-only (the file name makes the evidence count it). ``create_agent``'s
graph still runs the model, routes tool calls, pauses for approval
(``HumanInTheLoopMiddleware``) and checkpoints; the glue only adds hooks:

- ``before_model``: the step bound. The model turns taken since the last user message are
  counted from the saved conversation (``turns_left``), so the bound holds across a resume; at
  the bound the hook jumps to the end with a closing ``AIMessage`` the session reports as
  ``stopped_max_steps``.
- ``after_model`` (runs before the HITL middleware's): ``admit`` (strict schema on the raw
  arguments, then policy). A rejected or denied call gets its answer as a ``ToolMessage``, so
  the router never sends it to the tool node and HITL never asks about it (``review``'s ``when``).
- ``wrap_tool_call``: ``run_once`` around the tool (intent, at most one execution per
  ``<session>/<tool call id>``, retries before any effect); an uncertain outcome is settled
  through LangGraph's own ``interrupt``, which only a reconcile answer resumes.
- ``SYNC_WRITES``: the run option that makes LangGraph save each super-step's checkpoint before
  the next one starts, so a kill never races the write.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.types import interrupt

from adapters.glue_blocks import Contract, Failed, Ok, Reconciled, Rejected, Replay, admit, run_once, turns_left
from adapters.scripted_chat_model import to_neutral
from handwritten.canonical import canonical_json

from .calls import unanswered

SYNC_WRITES = {"durability": "sync"}  # LangGraph's own option: wait for each checkpoint (pregel/main.py)
STEP_BOUND = "contract_step_bound"  # the name on the closing message of a run the step bound ended


def answer(call: dict[str, Any], status: str, output: Any, encoded: bool = False) -> ToolMessage:
    """The call's result as data; ``artifact`` carries the contract status (never sent to the model)."""
    content = output if encoded else canonical_json(output)
    return ToolMessage(content=content, tool_call_id=call["id"], name=call["name"], artifact={"status": status})


def stopped_by_bound(message: BaseMessage) -> bool:
    """The final message is the step bound's, not the model's answer."""
    return isinstance(message, AIMessage) and message.name == STEP_BOUND


def intended_call(contract: Contract, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The call the run was about to execute: the glue's last intent still open, else the first open call."""
    intended = calls[0] if calls else {}
    if contract.intents.exists():
        open_ids = {c["id"]: c for c in calls}
        for line in contract.intents.read_text(encoding="utf-8").splitlines():
            intended = open_ids.get(json.loads(line)["call_id"], intended)
    return intended


class ContractMiddleware(AgentMiddleware):
    """The step bound before each model call; schema and policy before approval; ``run_once`` around each tool."""

    def __init__(self, contract: Contract) -> None:
        super().__init__()
        self.contract = contract

    @property
    def review(self) -> dict[str, Any]:
        """HITL's config for a gated tool: ask only about calls that schema and policy let through."""
        return {"allowed_decisions": ["approve", "reject"], "when": self.still_open}

    def still_open(self, request: Any) -> bool:
        return request.tool_call["id"] in {c["id"] for c in unanswered(request.state["messages"])}

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        roles = [to_neutral(m)["role"] for m in state["messages"]]  # the roles the scripted model sees
        if turns_left(self.contract, roles) > 0:
            return None
        closing = AIMessage(content=f"Stopped: the run reached max_steps ({self.contract.max_steps} model turns).", name=STEP_BOUND)
        return {"jump_to": "end", "messages": [closing]}

    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        answers = []
        for call in unanswered(state["messages"]):
            verdict = admit(self.contract, call["name"], call["id"], call["args"])
            if isinstance(verdict, Rejected):
                answers.append(answer(call, verdict.status, verdict.output))
        return {"messages": answers} if answers else None

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        call, ran = request.tool_call, []

        def execute() -> Any:
            ran.append(handler(request))  # the tool node's own ToolMessage; a tool's exception propagates
            return json.loads(ran[-1].content)

        with self.contract.handover(call["id"]):
            result = run_once(self.contract, call["name"], call["id"], call["args"], execute, lambda call_id: self._settle(call))
        match result:
            case Ok():
                return ran[-1]
            case Replay(output=stored):
                return answer(call, "replayed", stored, encoded=True)
            case Reconciled(output=settled):
                return answer(call, "reconciled", settled)
            case Failed(error=error):
                return answer(call, "error", {"error": error})
        raise AssertionError(f"{call['id']}: the reconcile interrupt settles every uncertain call, got {result!r}")

    def _settle(self, call: dict[str, Any]) -> str:
        """Stop the run with a LangGraph interrupt until a human settles the call (``confirmed`` | ``not_executed``)."""
        self.contract.emit({"kind": "uncertain", "call_id": call["id"]})
        return str(interrupt({"kind": "reconcile", "call_id": call["id"], "tool": call["name"]})["outcome"])
