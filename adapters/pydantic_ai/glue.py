"""Contract glue for Pydantic AI (see MAPPING.md): ``Tool.from_schema`` tools, so ``admit`` sees the raw arguments
(the model's ``ToolCallPart``, whatever JSON value or text it holds) first;
``ApprovalRequired`` for an admitted high-risk call and for a valid call whose turn has one waiting (``HELD``);
``run_once_async`` under ``<session>/<tool call id>``; ``CallDeferred`` for an uncertain call, until a reconcile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic_ai import ApprovalRequired, CallDeferred, DeferredToolResults, RunContext, Tool, ToolApproved, ToolDenied
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_core import SchemaValidator, core_schema

from adapters.glue_blocks import Contract, Failed, Ok, Reconciled, Rejected, Replay, Uncertain, admit, run_once_async
from handwritten.canonical import canonical_json
from handwritten.policy import Decision
from harness.column_side.fixtures.world import FixtureWorld
from harness.fixture_tools import FIXTURE_TOOLS

from .model import to_neutral

HELD = "held_with_turn"
_STATUS = {Ok: "ok", Reconciled: "reconciled", Replay: "replayed"}


def contract_tools(world: FixtureWorld, names: list[str], contract: Contract, statuses: dict[str, str], scratch: Path) -> list[Tool[Any]]:
    """The named fixture tools behind the contract; ``statuses`` gets each answered call's status."""

    def guarded(name: str) -> Any:
        async def call(ctx: RunContext[Any]) -> str:
            call_id = ctx.tool_call_id or ""
            verdict = admit(contract, name, call_id, _raw_args(ctx, call_id))
            if isinstance(verdict, Rejected):
                statuses[call_id] = verdict.status
                return canonical_json(verdict.output)
            if not ctx.tool_call_approved and (verdict.needs_approval or _sibling_waits(contract, ctx, call_id)):
                raise ApprovalRequired(metadata={HELD: not verdict.needs_approval})

            async def execute() -> Any:
                world.enter(name, call_id, verdict.args)
                return world.execute(name, call_id, verdict.args)

            done = await run_once_async(contract, name, call_id, verdict.args, execute, lambda c: _read(scratch / "reconcile.json").get(c))
            if isinstance(done, Uncertain):
                raise CallDeferred(metadata={"uncertain": True})
            statuses[call_id] = "error" if isinstance(done, Failed) else _STATUS[type(done)]
            if isinstance(done, Replay):  # the stored result, already canonical JSON
                return str(done.output)
            return canonical_json({"error": done.error} if isinstance(done, Failed) else done.output)

        return call

    tools = [Tool.from_schema(guarded(n), n, FIXTURE_TOOLS[n].description, FIXTURE_TOOLS[n].schema, takes_ctx=True) for n in names]
    for tool in tools:  # from_schema's validator hands any JSON value on as keywords (a list: TypeError): admit reads the raw
        tool.function_schema.validator = _NO_KEYWORDS
    return tools


def tool_retries(contract: Contract) -> int:
    """The run's retry budget for calls Pydantic AI refuses before any tool runs (arguments that are not JSON, a tool
    that is not offered): each is a retry the model is told about, on a budget of 1 by default, and the next such call
    ends the run (``UnexpectedModelBehavior``). The contract answers every such call with its error and goes on, bounded
    by its step bound alone: that bound is the budget."""
    return contract.max_steps


_NO_KEYWORDS = SchemaValidator(core_schema.no_info_plain_validator_function(lambda _value: {}))


def _raw_args(ctx: RunContext[Any], call_id: str) -> Any:
    """The call's arguments as the model sent them (its ``ToolCallPart``, latest first: a call id may come again), not
    as Pydantic AI read them (it reads empty text as ``{}``)."""
    parts = (p for m in reversed(ctx.messages) if isinstance(m, ModelResponse) for p in reversed(m.parts))
    return next(p.args for p in parts if isinstance(p, ToolCallPart) and p.tool_call_id == call_id)


def _sibling_waits(contract: Contract, ctx: RunContext[None], call_id: str) -> bool:
    """Another valid call of this turn waits for a human."""
    turn = next(m for m in reversed(ctx.messages) if isinstance(m, ModelResponse))
    return any(p.tool_call_id != call_id and p.tool_name in contract.registry and contract.decide(p.tool_name) is Decision.NEEDS_APPROVAL
               and contract.registry.validator(p.tool_name).check(p.args_as_dict()).ok for p in turn.parts if isinstance(p, ToolCallPart))


def save_decisions(scratch: Path, approvals: dict[str, bool | ToolApproved | ToolDenied]) -> None:
    """The approvals handed to a run, saved before it starts: a kill inside the run must not lose them."""
    decided = {c: {"denied": a.message} if isinstance(a, ToolDenied) else True for c, a in approvals.items()}
    (scratch / "decisions.json").write_text(json.dumps(decided), encoding="utf-8")


def saved_results(contract: Contract, scratch: Path, open_calls: list[ToolCallPart]) -> DeferredToolResults | None:
    """The results to resume the unanswered calls with (Pydantic AI takes them all at once): the saved decisions, and a
    go-ahead for calls that need no human; None while a call that needs one has none (Pydantic AI asks again)."""
    decided = _read(scratch / "decisions.json")
    free = {p.tool_call_id: True for p in open_calls if p.tool_name in contract.registry and contract.decide(p.tool_name) is not Decision.NEEDS_APPROVAL}
    if not open_calls or not {p.tool_call_id for p in open_calls} <= set(decided) | set(free):
        return None
    approvals: dict[str, bool | ToolApproved | ToolDenied] = {**free}
    approvals |= {c: a if a is True else ToolDenied(a["denied"]) for c, a in decided.items() if c in {p.tool_call_id for p in open_calls}}
    return DeferredToolResults(approvals=approvals)


def record_reconcile(scratch: Path, call_id: str, outcome: str) -> None:
    """The human's outcome of an uncertain call, read by ``settle`` when Pydantic AI runs the call again."""
    (scratch / "reconcile.json").write_text(json.dumps(_read(scratch / "reconcile.json") | {call_id: outcome}), encoding="utf-8")


def roles(messages: list[ModelMessage]) -> list[str]:
    """The roles of a saved history, as the step bound counts them (``glue_blocks.turns_left``)."""
    return [m["role"] for m in to_neutral(messages)]


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
