"""Contract glue for ``Agent`` + ``Runner``: the shared blocks plugged into the two hooks the SDK offers.

All of it is contract-only (the file name makes the evidence count it). ``Runner.run`` keeps its loop,
its approval pause (``needs_approval``) and its saved run (``RunState``); the glue adds only:

- ``needs_approval``: each high-risk tool's approval callable runs ``admit`` (strict schema, then policy) on
  the call's arguments, which the SDK asks before it pauses on or runs the call: only a valid call of a
  high-risk tool asks the human (every other tool's setting is ``False``: it never asks);
- ``on_llm_end`` (the glue is the run's ``RunHooks``): a turn is approved as a whole, so when a model turn holds
  a call that asks the human, every other tool's ``needs_approval`` pauses, for that turn, each call ``admit``
  lets run: the SDK pauses them with the human's calls instead of running them first (``glue_session`` lists only
  the human's calls as pending and approves the others once the human's are all decided); a call ``admit``
  refuses is answered at once, as the engine answers it;
- ``guard``: each ``FunctionTool.on_invoke_tool`` wrapped so that a rejected call is answered with its
  rejection and an admitted one runs under ``run_once_async`` (intent, one execution per
  ``<session>/<call id>``, 3 attempts, uncertain after a timeout inside the executor). An uncertain call stops
  the run (the SDK runs the turn's calls one at a time in contract mode, so none after it has started:
  ``glue_session.one_call_at_a_time``): the guard raises ``ReconcileRequired``,
  which the SDK re-raises because the tools are built with ``failure_error_function=None``; the
  reconcile step answers it through ``settle`` when the resumed run invokes the call again;
- ``max_turns``: the step bound for a run started from input, counted from the session's saved
  conversation (``turns_left``). A run resumed from a ``RunState`` ignores ``max_turns`` and carries
  on the count the state saved (``current_turn`` of ``max_turns``), so the bound holds across it;
- ``uncertain_call``: the call a reconcile may settle, read from the glue's own records.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agents import FunctionTool, RunHooks, SQLiteSession

from adapters.glue_blocks import (
    Admitted,
    Contract,
    Failed,
    Ok,
    Reconciled,
    Rejected,
    Replay,
    Uncertain,
    admit,
    run_once_async,
    turns_left,
)
from handwritten.canonical import canonical_json
from handwritten.idempotency import RecordState
from harness.column_side.fixtures.world import FixtureWorld

from .model import to_neutral
from .tools import fixture_tools, gated


class ReconcileRequired(Exception):
    """An effectful call's outcome is unknown: the run stops here until a reconcile settles it."""

    def __init__(self, call_id: str) -> None:
        super().__init__(call_id)
        self.call_id = call_id


@dataclass
class Glue(RunHooks[Any]):
    """The glue of one driver step: the shared ``Contract``, the contract status of each call's answer (for the
    trace), this step's reconcile, if any, and the tools that never ask the human (held with a turn that does)."""

    contract: Contract
    settling: tuple[str, str] | None = None  # (call id, outcome) in a reconcile step
    statuses: dict[str, str] = field(default_factory=dict)
    others: list[FunctionTool] = field(default_factory=list)
    turn: dict[str, Admitted | Rejected] = field(default_factory=dict)  # the last model turn's calls, as admit found them

    def tools(self, world: FixtureWorld, names: list[str]) -> list[FunctionTool]:
        """The fixture tools with the glue's approval callables, each invocation guarded; ``failure_error_function=None``
        so that a tool's exception reaches the glue instead of becoming a message for the model."""
        tools = [self.guard(t) for t in fixture_tools(world, names, self.needs_approval, failure_error_function=None)]
        self.others = [t for t in tools if not gated(t.name)]
        return tools

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        """A model turn that holds a call asking the human pauses with it every other call the contract would run (each
        other tool's ``needs_approval``, which the SDK asks as it reaches each call of the turn); a call the contract refuses
        is answered at once, and a turn that asks nobody runs as it is."""
        calls = [item for item in response.output if getattr(item, "type", None) == "function_call"]
        self.turn = {c.call_id: admit(self.contract, c.name, c.call_id, c.arguments, announce=False) for c in calls}
        waits = any(isinstance(v, Admitted) and v.needs_approval for v in self.turn.values())
        for tool in self.others:
            tool.needs_approval = self._held_with_turn if waits else False

    async def _held_with_turn(self, context: Any, params: dict[str, Any], call_id: str) -> bool:
        return isinstance(self.turn.get(call_id), Admitted)

    def needs_approval(self, tool: str) -> bool | Callable[[Any, dict[str, Any], str], Awaitable[bool]]:
        """The SDK's ``needs_approval`` for ``tool``: a callable that pauses only for an admitted call of a high-risk tool;
        ``False`` for every other tool (a risk class is the tool's, so no call of it can need an approval). A callable is
        never asked about arguments that are not a JSON object (the SDK pauses for approval instead), so a read-only
        call with such arguments would pause; with ``False`` it reaches ``guard``, whose ``admit`` refuses it."""
        if not gated(tool):
            return False

        async def check(context: Any, params: dict[str, Any], call_id: str) -> bool:
            verdict = admit(self.contract, tool, call_id, params)
            return isinstance(verdict, Admitted) and verdict.needs_approval

        return check

    def guard(self, tool: FunctionTool) -> FunctionTool:
        """Wrap the tool's invocation (the SDK hands it the raw JSON text of the arguments)."""
        invoke = tool.on_invoke_tool

        async def guarded(ctx: Any, raw: str) -> Any:
            return await self._answer(tool.name, ctx.tool_call_id, raw, lambda: invoke(ctx, raw))

        tool.on_invoke_tool = guarded
        return tool

    async def _answer(self, tool: str, call_id: str, raw: str, invoke: Callable[[], Awaitable[Any]]) -> str:
        # Traced once: when the SDK asked a high-risk tool's needs_approval, else here.
        verdict = admit(dataclasses.replace(self.contract, emit=lambda _: None) if gated(tool) else self.contract, tool, call_id, raw)
        if isinstance(verdict, Rejected):
            return self._say(call_id, verdict.status, verdict.output)

        async def execute() -> Any:
            return json.loads(await invoke())

        match await run_once_async(self.contract, tool, call_id, verdict.args, execute, self._settle):
            case Ok(output=output):
                return self._say(call_id, "ok", output)
            case Replay(output=stored):
                return self._say(call_id, "replayed", json.loads(stored))
            case Reconciled(output=output):
                return self._say(call_id, "reconciled", output)
            case Failed(error=error):
                return self._say(call_id, "error", {"error": error})
            case Uncertain():
                raise ReconcileRequired(call_id)
        raise AssertionError("run_once_async returned an unknown result")

    def _say(self, call_id: str, status: str, output: Any) -> str:
        self.statuses[call_id] = status
        return canonical_json(output)

    def _settle(self, call_id: str) -> str | None:
        return self.settling[1] if self.settling is not None and self.settling[0] == call_id else None

    async def max_turns(self, history: SQLiteSession, new_input: bool) -> int:
        """``max_turns`` for a run from input: the model turns left since the last user input of the saved
        conversation (a new input starts the count again)."""
        roles = [m["role"] for m in to_neutral(await history.get_items())] + (["user"] if new_input else [])
        return turns_left(self.contract, roles)

    def last_intent(self, call_ids: list[str]) -> str | None:
        """The last of ``call_ids`` whose intent the glue wrote (the call a run stopped at), or None."""
        lines = self.contract.intents.read_text(encoding="utf-8").splitlines() if self.contract.intents.exists() else []
        return next((i["call_id"] for i in map(json.loads, reversed(lines)) if i["call_id"] in call_ids), None)

    def uncertain_call(self) -> str | None:
        """A call whose executor was entered and whose outcome is unknown: its record is uncertain. A record still in
        progress (its process died inside the executor) is a crashed run's, and becomes uncertain when a run meets it
        again (a resume's, as the engine's resume finds it: ``run_once_async``), not before."""
        if not self.contract.intents.exists():
            return None
        for line in self.contract.intents.read_text(encoding="utf-8").splitlines():
            intent = json.loads(line)
            record = self.contract.idempotency.get(intent["key"]) if intent["key"] else None
            if record is not None and record.state is RecordState.UNCERTAIN:
                return str(intent["call_id"])
        return None
