"""Reasons behind a run's differences, read from this column's own trace, the model log and the ledger of that run.

Each sentence names the AgentScope behaviour seen in this run; nothing is keyed by a
scenario's name: a sentence appears only when its trigger is in the run's records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from handwritten.tools import RiskClass
from harness.column_side.scripted_model import summarize_log
from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import ScenarioRun

CONFIRM_REFUSED = ("agentscope: Received UserConfirmResultEvent", "agentscope: Agent is not waiting for user confirmation")
NO_EVENT = "agentscope: Agent is waiting for"
Said = Iterator[tuple[str, tuple[str, ...]]]  # (sentence, the observables it explains)


@dataclass(frozen=True)
class _Seen:
    """What one run recorded, in the shapes the rules read."""

    run: ScenarioRun
    mode: str
    invalid_ids: list[str]
    model: dict[str, Any]

    @property
    def steps(self) -> list[Any]:
        return self.run.steps

    @property
    def ledger(self) -> dict[str, Any]:
        return self.run.steps[-1].ledger

    @property
    def actions(self) -> list[str]:
        return [s.action for s in self.steps]

    @property
    def trace(self) -> list[dict[str, Any]]:
        return [e for s in self.steps for e in s.trace]

    @property
    def turns_asked(self) -> set[int]:
        return {int(t) for t in self.model["calls_per_turn"]}

    def refused_with(self, prefix: str | tuple[str, ...]) -> list[int]:
        return [i for i, s in enumerate(self.steps) if (s.refusal or "").startswith(prefix)]

    def crashed_before(self, index: int) -> bool:
        return any(s.status == "crashed" for s in self.steps[:index])


def explanations(run: ScenarioRun, mode: str, invalid_ids: list[str]) -> dict[str, str]:
    """observable -> one sentence naming the behaviour behind a difference (only behaviours seen)."""
    seen = _Seen(run, mode, invalid_ids, summarize_log(run.scratch / "model_log.jsonl", len(run.scenario.model_script)))
    said: dict[str, list[str]] = {}
    for rule in RULES:
        for sentence, observables in rule(seen):
            for name in observables:
                said.setdefault(name, []).append(sentence)
    return {name: "; ".join(sentences) for name, sentences in sorted(said.items())}


def _model_input(seen: _Seen) -> Said:
    if any("<current-time>" in text for text in seen.model["injected"]):
        yield (
            "AgentScope's default InjectionConfig (inject_runtime_state=True) appends a runtime-state hint with the "
            "current time to the context, which reaches the model as a user message",
            ("model",),
        )
    if any("maximum of" in text and "reasoning-acting iterations" in text for text in seen.model["injected"]):
        yield "at ReActConfig.max_iters AgentScope asks the model once more, with a hint to answer without tools", ("model",)
    if seen.mode == "defaults" and len(seen.turns_asked) > seen.run.scenario.max_steps:
        yield ("AgentScope's default ReActConfig.max_iters is 50, so the model was called until the script ran out", ("status", "step_statuses", "side_effects", "model"))


def _permission(seen: _Seen) -> Said:
    ungated = sorted({(p["call_id"], p["tool"]) for s in seen.steps for p in s.pending if FIXTURE_TOOLS[p["tool"]].risk is not RiskClass.HIGH_RISK})
    if seen.mode == "defaults" and ungated:
        yield (
            f"AgentScope's permission engine (default mode DEFAULT) asks the user about every call of a tool that is not "
            f"read-only and has no permission of its own, as FunctionTool(fn) leaves a function: "
            f"{', '.join(f'{cid} ({tool})' for cid, tool in ungated)} waited for a human, where the contract runs it (or denies it) without asking",
            ("status", "step_statuses", "side_effects", "pre_approval_state", "model", "checkpoint_after_interrupt", "idempotent_replay"),
        )
    unconfirmable = sorted({seen.run.scenario.driver[i]["call_id"] for i in seen.refused_with(CONFIRM_REFUSED)})
    if unconfirmable:
        yield (
            f"AgentScope binds a confirmation to the id of a call that is asking and refuses, before the reply starts, one for "
            f"a call that is not asking at that moment ({', '.join(unconfirmable)})",
            ("status", "step_statuses", "refusals", "pre_approval_state", "model"),
        )
    if "misuse_token" in seen.actions and seen.mode == "defaults":
        yield (
            "an AgentScope ConfirmResult carries no token: each misused token went in as a confirmation, which approved the named call when it was asking",
            ("step_statuses", "refusals", "side_effects", "pre_approval_state"),
        )
    turn_of = {c["id"]: i for i, t in enumerate(seen.run.scenario.model_script) for c in t.get("tool_calls", ())}
    early = sorted(
        {
            cid
            for s in seen.steps
            if s.pending
            for cid, c in s.ledger.items()
            if c["effects"]
            and FIXTURE_TOOLS[c["tool"]].risk is not RiskClass.READ_ONLY
            and cid not in {p["call_id"] for p in s.pending}
            and turn_of.get(cid) in {turn_of.get(p["call_id"]) for p in s.pending}
        }
    )
    if early:
        yield (
            f"AgentScope decides permission per call and runs an allowed call at once: {', '.join(early)} ran while another call "
            "of the same turn still asked for confirmation; its permission system cannot hold a whole turn",
            ("pre_approval_state",),
        )


def _persistence(seen: _Seen) -> Said:
    repeated = sorted(cid for cid, c in seen.ledger.items() if c["effects"] > 1)
    if repeated:
        cause = (
            "the restored AgentState copy still asked for the call, and confirming it again ran it again"
            if "restore" in seen.actions
            else "the resume started from the last AgentState saved when a reply returned, before the effect"
        )
        yield (
            f"AgentScope ran {', '.join(repeated)} again: {cause}; AgentScope keeps no record of executed tool calls",
            ("side_effects", "idempotent_replay", "checkpoint_after_interrupt", "model"),
        )
    waiting = seen.refused_with(NO_EVENT)
    if any(seen.crashed_before(i) for i in waiting):
        yield (
            "AgentScope saves the AgentState only when a reply returns: the confirmation and the execution of the killed "
            "step were lost, the saved state still asks for the call, and reply(None) is refused while a call awaits "
            "confirmation",
            ("status", "step_statuses", "refusals", "side_effects", "pre_approval_state", "checkpoint_after_interrupt", "model"),
        )
    if any(not seen.crashed_before(i) for i in waiting):
        yield (
            "AgentScope starts no reply while a call awaits confirmation unless the input is that confirmation: reply(None) "
            "and a new user message are refused before the reply starts",
            ("step_statuses", "refusals", "checkpoint_after_interrupt", "idempotent_replay"),
        )
    if seen.model["missing_turns"] and any(e["kind"] == "resumed" and e["position"] == "model_turn" for e in seen.trace):
        yield "AgentScope's reply(None) on a session with no open call starts a new reply, so the resume asked the model for another turn", ("model",)
    if any(f.point == "engine.kill_after_checkpoint" for f in seen.run.scenario.faults) and "crashed" not in (s.status for s in seen.steps):
        yield (
            "AgentScope saves nothing between a call's permission decision and its execution, so the engine-only kill point never fires",
            ("step_statuses", "checkpoint_after_interrupt", "model"),
        )


def _tool_calls(seen: _Seen) -> Said:
    coerced = [cid for cid in seen.invalid_ids if seen.ledger.get(cid, {}).get("tool_entries")]
    if coerced:
        yield (
            f"AgentScope repairs tool arguments against the schema it generated from the signature (json_repair) before it "
            f"validates them, so the invalid arguments of {', '.join(coerced)} were coerced and the tool ran",
            ("side_effects", "schema_failure_side_effects"),
        )
    if "reconcile" in seen.actions and seen.mode == "defaults":
        yield (
            "nothing in AgentScope records that an executor was entered (toolkit.call_tool turns every tool exception, "
            "a TimeoutError included, into an error result), so reconcile is not supported",
            ("step_statuses", "refusals", "checkpoint_after_interrupt"),
        )
    failed = sorted(
        e["call_id"]
        for e in seen.trace
        if e["kind"] == "tool_result"
        and e["status"] == "error"
        and any(f.point == "tool.raise_before_effect" and f.call_id == e["call_id"] for f in seen.run.scenario.faults)
    )
    if failed:
        yield f"AgentScope does not retry a failed tool call: the exception of {', '.join(failed)} became an error result for the model", ("side_effects", "model")
    script = seen.run.scenario.model_script
    ids = [c["id"] for t in script for c in t.get("tool_calls", ())]
    repeats = [i for i, t in enumerate(script) for c in t.get("tool_calls", ()) if ids.count(c["id"]) > 1]
    if repeats and max(repeats) in seen.turns_asked:
        yield (
            f"AgentScope matches tool results to calls by id within a reply: the repeated {', '.join(sorted({i for i in ids if ids.count(i) > 1}))} "
            "counted as answered already and never reached the tools, so it got no second result",
            ("idempotent_replay", "model"),
        )


def _deduplication(seen: _Seen) -> Said:
    if seen.mode == "defaults" and any(s.action == "deliver_again" and s.status != "refused" for s in seen.steps):
        yield (
            "AgentScope has no inbound event id: the re-delivered input became a new user message and the model was asked again",
            ("step_statuses", "refusals", "model", "idempotent_replay"),
        )
    if seen.mode == "contract" and any(e["kind"] == "duplicate_event" or e.get("status") == "replayed" for e in seen.trace):
        yield (
            "the deduplication is contract glue (an idempotency record keyed <session>/<tool call id>, an event id claimed once): AgentScope deduplicates nothing itself",
            ("idempotent_replay",),
        )


RULES: tuple[Callable[[_Seen], Said], ...] = (_model_input, _permission, _persistence, _tool_calls, _deduplication)
