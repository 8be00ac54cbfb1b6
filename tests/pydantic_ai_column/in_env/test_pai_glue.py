"""Unit tests of the Pydantic AI column's pieces against the real framework: the saved decisions a resume hands over, the
defaults tools' lax validation and the scripted model's view of Pydantic AI's messages. The contract glue's tools in a
run, as every column's glue, are the conformance suite's (``tests/column_conformance``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.messages import ModelRequest, ModelResponse, RetryPromptPart, ToolCallPart, ToolReturnPart, UserPromptPart

from adapters.glue_blocks import Contract
from adapters.pydantic_ai.glue import contract_tools, roles, save_decisions, saved_results
from adapters.pydantic_ai.model import SYNTHESIZED, scripted_function_model
from adapters.pydantic_ai.tools import fixture_tools
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.scripted_model import ScriptedModel
from harness.ledger import ledger_counts
from harness.scenarios import Fault

TOOLS = ["put_note", "drop_database", "transfer_funds", "send_email"]
NOTE = {"key": "k", "text": "t"}
TRANSFER = {"from_account": "A", "to_account": "B", "amount_cents": 5}
EMAIL = {"to": "a@b.c", "subject": "s", "body": "b"}


class Rig:
    """One scratch directory's world, contract glue and agent over a script of turns (``[(call id, tool, args)]``)."""

    def __init__(self, tmp: Path, turns: list[list[tuple[str, str, Any]]], faults: tuple[Fault, ...] = (), contract: bool = True) -> None:
        self.tmp, self.events, self.statuses = tmp, [], {}
        self.world = FixtureWorld(tmp, list(faults), may_kill=False)
        script = [{"tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in turn]} for turn in turns] + [{"text": "done"}]
        model = scripted_function_model(ScriptedModel(script, user_inputs=["go"], system_prompt=None, log_path=tmp / "model.jsonl", faults=self.world.faults))
        self.contract = Contract("s1", ToolRegistry(self.world.tool_specs(TOOLS)), SqliteIdempotencyStore(str(tmp / "c.sqlite")), tmp / "intents.jsonl",
                                 self.events.append, lambda call_id: None, self.world.handover, max_steps=8)
        tools = contract_tools(self.world, TOOLS, self.contract, self.statuses, tmp) if contract else fixture_tools(self.world, TOOLS)
        self.agent = Agent(model, output_type=[str, DeferredToolRequests], tools=tools)

    def run(self, history: list[Any] | None = None, approvals: dict[str, Any] | None = None) -> Any:
        results = DeferredToolResults(approvals=approvals) if approvals is not None else None
        prompt = None if history else "go"
        return asyncio.run(self.agent.run(prompt, message_history=history or [], deferred_tool_results=results))

    def effects(self) -> dict[str, tuple[int, int, int]]:
        counts = ledger_counts(str(self.tmp / "ledger.sqlite"))
        return {cid: (c["tool_entries"], c["executor_entries"], c["effects"]) for cid, c in sorted(counts.items())}


def test_a_resume_gets_the_saved_decisions_and_a_go_ahead_only_for_calls_that_need_no_human(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [])
    save_decisions(tmp_path, {"c1": True, "c2": ToolDenied("no")})
    transfer, email, note = (ToolCallPart("transfer_funds", TRANSFER, tool_call_id="c1"), ToolCallPart("send_email", EMAIL, tool_call_id="c2"),
                             ToolCallPart("put_note", NOTE, tool_call_id="c4"))
    assert saved_results(rig.contract, tmp_path, [email, transfer, note]).approvals == {"c4": True, "c2": ToolDenied("no"), "c1": True}  # type: ignore[union-attr]
    undecided = ToolCallPart("transfer_funds", TRANSFER, tool_call_id="c3")
    assert saved_results(rig.contract, tmp_path, [transfer, undecided]) is None and saved_results(rig.contract, tmp_path, []) is None


def test_defaults_tools_coerce_and_forbid_unknown_fields_as_pydantic_does(tmp_path: Path) -> None:
    """The finding behind validation_before_execution: Pydantic AI's lax validation turns "2" into 2 and runs the
    tool; an unknown field is a retry prompt, and the tool is never entered."""
    rig = Rig(tmp_path, [[("c1", "put_note", {**NOTE, "priority": "2"})], [("c2", "put_note", {**NOTE, "color": "red"})]], contract=False)
    result = rig.run()
    assert rig.effects() == {"c1": (1, 1, 1)}
    answers = {p.tool_call_id: p.outcome for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)}
    assert answers == {"c1": "success", "c2": "retried"}  # the validation error goes back to the model as a retry


def test_the_scripted_model_sees_roles_and_what_pydantic_ai_made_up() -> None:
    history = [
        ModelRequest(parts=[UserPromptPart("go")]),
        ModelResponse(parts=[ToolCallPart("put_note", NOTE, tool_call_id="c1"), ToolCallPart("put_note", {}, tool_call_id="c2")]),
        ModelRequest(parts=[ToolReturnPart("put_note", "x", "c1", metadata={SYNTHESIZED: True}),
                            RetryPromptPart("missing", tool_name="put_note", tool_call_id="c2"), RetryPromptPart("try again")]),
    ]
    assert roles(history) == ["user", "assistant", "framework", "tool", "framework"]
