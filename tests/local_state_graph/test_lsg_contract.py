"""The contract graph in one process, with in-memory records: what the scenarios do not reach directly."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from adapters.local_state_graph.checkpointer import MemorySaver
from adapters.local_state_graph.contract import (
    INITIAL_VALUES,
    ContractError,
    Services,
    checkpoint_intent,
    contract_graph,
)
from adapters.local_state_graph.graph import RunContext
from adapters.local_state_graph.session import ContractSession
from handwritten.approvals import ApprovalAuthority
from handwritten.canonical import args_hash
from handwritten.events import Event
from handwritten.idempotency import MemoryIdempotencyStore
from handwritten.tools import RiskClass, ToolContext, ToolRegistry, ToolSpec
from harness.column_side.fixtures.faults import FaultPlan
from harness.column_side.scripted_model import ScriptedModel

SESSION = "sess-1"
SECRET = b"test secret"
NOTE = {"key": "k", "text": "hello"}
PAY = {"amount": 5}


class Rig:
    """A session of the contract graph over two fake tools whose executors look at the saved checkpoint."""

    def __init__(self, tmp_path: Path, script: list[dict[str, Any]]) -> None:
        self.saver = MemorySaver()
        self.trace: list[dict[str, Any]] = []
        self.intent_on_disk: list[tuple[str, str | None]] = []  # (call entering its executor, pending intent saved)
        token_ids = itertools.count(1)
        self.authority = ApprovalAuthority(SECRET, clock=lambda: 0.0, new_token_id=lambda: f"tok-{next(token_ids)}")
        obj = {"type": "object"}
        tools = [
            ToolSpec(
                "put_note", "Store a note.", {**obj, "properties": {"key": {"type": "string"}, "text": {"type": "string"}}}, RiskClass.REVERSIBLE_WRITE, self._executor
            ),
            ToolSpec("pay", "Pay.", {**obj, "properties": {"amount": {"type": "integer"}}}, RiskClass.HIGH_RISK, self._executor),
        ]
        self.services = Services(
            model=ScriptedModel(script, user_inputs=["go"], system_prompt=None, log_path=tmp_path / "model.jsonl", faults=FaultPlan([], None, may_kill=False)),
            registry=ToolRegistry(tools),
            approvals=self.authority,
            idempotency=MemoryIdempotencyStore(),
            emit=lambda event: self.trace.append(event.to_json()),
            max_steps=5,
        )
        self.session = ContractSession(contract_graph().compile(self.saver), SESSION, self.services)

    def _executor(self, args: Any, ctx: ToolContext) -> Any:
        latest = self.saver.latest(SESSION)
        intent = latest.values["pending_intent"] if latest else None
        self.intent_on_disk.append((ctx.call_id, intent and intent["call_id"]))
        return {"done": ctx.call_id}

    def token(self, tool: str, args: Any, call_id: str = "c1") -> str:
        return self.authority.issue(SESSION, call_id, tool, args_hash(args), 60)

    def kinds(self) -> list[str]:
        return [e["kind"] for e in self.trace]


def _calls(*calls: tuple[str, str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in calls]}


def test_every_executor_runs_after_its_intent_is_checkpointed(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [_calls(("c1", "put_note", NOTE), ("c2", "pay", PAY)), {"text": "done"}])
    assert rig.session.deliver("e1", "go").status == "awaiting_approval"
    assert rig.intent_on_disk == []  # the whole turn waits: not even the reversible write ran
    assert rig.session.approve("c2", rig.token("pay", PAY, call_id="c2")).status == "completed"
    assert rig.intent_on_disk == [("c1", "c1"), ("c2", "c2")]


def test_a_refused_answer_leaves_the_question_pending_and_says_why(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [_calls(("c1", "pay", PAY)), {"text": "done"}])
    rig.session.deliver("e1", "go")
    wrong_args = rig.session.approve("c1", rig.token("pay", {"amount": 6}))
    assert (wrong_args.status, wrong_args.session_status, wrong_args.refusal) == ("refused", "awaiting_approval", "other_args")
    assert rig.session.approve("c9", rig.token("pay", PAY)).refusal == "not_pending"
    assert rig.session.reconcile("c1", "confirmed").refusal == "no uncertain call 'c1' to reconcile"
    token = rig.token("pay", PAY)
    assert rig.session.approve("c1", token).status == "completed"
    assert rig.session.approve("c1", token).refusal == "not_pending"  # nothing is pending any more
    assert rig.kinds().count("approval_refused") == 3


def test_inbound_events_while_a_question_is_pending(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [_calls(("c1", "pay", PAY)), {"text": "done"}])
    rig.session.deliver("e1", "go")
    duplicate = rig.session.deliver("e1", "go")
    assert (duplicate.status, duplicate.session_status, duplicate.refusal) == ("refused", "awaiting_approval", "duplicate_event")
    new = rig.session.deliver("e2", "go")  # a new event must wait until the pending call is settled: refused, as the engine does
    assert (new.status, new.session_status, new.refusal) == ("refused", "awaiting_approval", "run_unfinished")


def test_resume_reports_where_the_run_continues(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [_calls(("c1", "pay", PAY)), {"text": "done"}])
    rig.session.deliver("e1", "go")
    assert rig.session.resume().status == "awaiting_approval"
    resumed = [e for e in rig.trace if e["kind"] == "resumed"]
    assert [(e["position"], e["pending_call_id"]) for e in resumed] == [("awaiting_approval", None)]


def test_a_high_risk_call_never_reaches_its_intent_without_an_approval(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [])
    pay = {"call_id": "c1", "tool": "pay", "args": PAY, "args_hash": args_hash(PAY), "idempotency_key": f"{SESSION}/c1"}
    values = {**INITIAL_VALUES, "queue": [pay]}
    with pytest.raises(ContractError, match="c1 reached execution without an approval"):
        checkpoint_intent(values, RunContext(SESSION, rig.services))
    assert checkpoint_intent({**values, "approved": [["c1", "tok-1"]]}, RunContext(SESSION, rig.services))["pending_intent"] == pay


def test_the_trace_is_made_of_events_that_round_trip(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [_calls(("c1", "put_note", NOTE)), {"text": "done"}])
    rig.session.deliver("e1", "go")
    assert [Event.from_json(e).to_json() for e in rig.trace] == rig.trace


CONTRACT_MERMAID = """\
flowchart TD
    __start__([__start__])
    accept[accept]
    model[model]
    validate[validate]
    policy[policy]
    approval[approval]
    intent[intent]
    execute[execute]
    reconcile[reconcile]
    close_turn[close_turn]
    __end__([__end__])
    __start__ --> accept
    accept --> model
    model -.-> validate
    model -.-> __end__
    validate --> policy
    policy -.-> approval
    policy -.-> intent
    policy -.-> close_turn
    approval -.-> approval
    approval -.-> intent
    approval -.-> close_turn
    intent --> execute
    execute -.-> reconcile
    execute -.-> intent
    execute -.-> close_turn
    reconcile -.-> execute
    reconcile -.-> intent
    reconcile -.-> close_turn
    close_turn --> model
"""


def test_the_contract_graph_shape_and_its_mermaid_snapshot() -> None:
    graph = contract_graph().compile(MemorySaver())
    assert graph.mermaid() == CONTRACT_MERMAID
    assert graph.describe() == {
        "entry": "accept",
        "nodes": ["accept", "model", "validate", "policy", "approval", "intent", "execute", "reconcile", "close_turn"],
        "edges": [["__start__", "accept"], ["accept", "model"], ["validate", "policy"], ["intent", "execute"], ["close_turn", "model"]],
        "conditional_edges": {
            "model": ["validate", "__end__"],
            "policy": ["approval", "intent", "close_turn"],
            "approval": ["approval", "intent", "close_turn"],
            "execute": ["reconcile", "intent", "close_turn"],
            "reconcile": ["execute", "intent", "close_turn"],
        },
    }
