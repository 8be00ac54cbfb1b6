"""Reasons behind a run's differences, read from this column's own trace and the ledger of that run.

Each sentence names the LangChain behaviour seen in this run; nothing is keyed by a
scenario's name: a sentence appears only when its trigger is in the run's records.
"""

from __future__ import annotations

from collections.abc import Callable

from handwritten.tools import RiskClass
from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import ScenarioRun


def explanations(run: ScenarioRun, mode: str, invalid_ids: list[str]) -> dict[str, str]:
    """observable -> one sentence naming the behaviour behind a difference (only behaviours seen)."""
    actions = [s.action for s in run.steps]
    trace = [e for s in run.steps for e in s.trace]
    said: dict[str, list[str]] = {}

    def say(sentence: str, *observables: str) -> None:
        for name in observables:
            said.setdefault(name, []).append(sentence)

    _effects(run, invalid_ids, say)
    held = sorted({e["call_id"] for e in trace if e["kind"] == "decision_held"})
    if held:
        say(f"HumanInTheLoopMiddleware (default batched interrupt) takes a turn's decisions as one list matched by position to its "
            f"action requests, so the decision on {', '.join(held)} waited on the human's side until every reviewed call of the turn "
            "was decided, and LangChain's interrupt still listed the call as pending meanwhile", "pre_approval_state")
    if "misuse_token" in actions and mode == "defaults":
        say("a HITL decision carries no token: each misused token went in as an approve decision, which answers whichever "
            "interrupt is pending (a decision names no call) and is accepted silently when none is", "step_statuses", "refusals", "side_effects", "pre_approval_state")
    if "reconcile" in actions and mode == "defaults":
        say("nothing in LangChain records that an executor was entered, so a resume runs the tool again and reconcile is not supported",
            "step_statuses", "refusals", "checkpoint_after_interrupt")
    if "deliver_again" in actions and mode == "defaults":
        say("create_agent has no inbound event id: the re-delivered input became a new user turn and the model was asked again",
            "step_statuses", "refusals", "model", "idempotent_replay")
    if mode == "defaults" and run.scenario.max_steps < len(run.scenario.model_script):
        say("create_agent counts no model turns (its only bound is recursion_limit 9999), so the model was called until the script ran out",
            "status", "step_statuses", "side_effects", "model")
    if any(f.point == "engine.kill_after_checkpoint" for f in run.scenario.faults) and not any(s.status == "crashed" for s in run.steps):
        say("create_agent has no checkpoint between a tool call's intent and its executor, so the engine-only kill point never fires",
            "step_statuses", "checkpoint_after_interrupt")
    resumed = [e for e in trace if e["kind"] == "resumed"]
    if mode == "defaults" and resumed and any(s.status == "crashed" for s in run.steps):
        say(_resumed_from(run, resumed[0]), "checkpoint_after_interrupt", "side_effects", "status")
    if mode == "contract" and any(e["kind"] in ("duplicate_event", "tool_result") and e.get("status", "replayed") == "replayed" for e in trace):
        # contract glue: start
        say("the deduplication is contract glue (an idempotency record keyed <session>/<tool call id>, an event id claimed once): "
            "create_agent deduplicates nothing itself", "idempotent_replay")
        # contract glue: end
    return {name: "; ".join(sentences) for name, sentences in sorted(said.items())}


def _effects(run: ScenarioRun, invalid_ids: list[str], say: Callable[..., None]) -> None:
    """What the ledger shows LangChain ran: calls run again, a denied tool run, invalid arguments accepted, a raw pause."""
    ledger = run.steps[-1].ledger
    actions = [s.action for s in run.steps]
    repeated = sorted(cid for cid, c in ledger.items() if c["effects"] > 1)
    if repeated:
        counts = ", ".join(f"{c} {ledger[c]['effects']} times" for c in repeated)
        say(f"LangChain ran {counts}: {_rerun_cause(run, actions)}, "
            "and it keeps no record of executed tool call ids", "side_effects", "idempotent_replay", "checkpoint_after_interrupt")
    denied = sorted(cid for cid, c in ledger.items() if FIXTURE_TOOLS[c["tool"]].risk is RiskClass.ALWAYS_DENY and c["effects"])
    if denied:
        say(f"create_agent has no deny policy: {', '.join(denied)} ran as an ordinary tool, since HumanInTheLoopMiddleware gates only the tools in interrupt_on",
            "side_effects", "pre_approval_state")
    coerced = [cid for cid in invalid_ids if ledger.get(cid, {}).get("tool_entries")]
    if coerced:
        say(f"the @tool's pydantic argument model (lax mode) accepted the invalid arguments of {', '.join(coerced)} "
            "by coercing or dropping them, so the tool ran", "side_effects", "schema_failure_side_effects")
    if any(s.pending for s in run.steps) and not any(e["kind"] == "call_admitted" for s in run.steps for e in s.trace):
        say("HumanInTheLoopMiddleware pauses on the model's raw tool call: arguments are validated only when the tool node invokes the tool",
            "pre_approval_state")


def _rerun_cause(run: ScenarioRun, actions: list[str]) -> str:
    """Why a call ran again, from the driver steps and the script: a repeated call id, a restore, or a resume."""
    ids = [c["id"] for t in run.scenario.model_script for c in t.get("tool_calls", ())]
    if len(ids) != len(set(ids)):
        return "its router sends every call of the newest AI message without a ToolMessage after it to the tool node, a repeated id included"
    if "restore" in actions:
        return "continuing from the restored checkpoint (time travel) replayed the approved call"
    return "the resume continued from LangGraph's latest checkpoint, written (asynchronous durability) before the tool's effect"


def _resumed_from(run: ScenarioRun, resumed: dict) -> str:
    """What the resume after a kill continued from, read from the trace: a result streamed before the kill
    whose call runs again, or an approval asked again, means the checkpoint after it never landed."""
    lost = ("LangGraph's checkpoint after it had not landed when the process died (the default asynchronous "
            "durability writes it from a background thread while the next super-step runs)")
    step = next(s.index for s in run.steps if any(e is resumed for e in s.trace))
    seen = {e["call_id"] for s in run.steps if s.index < step for e in s.trace if e["kind"] == "tool_result"}
    granted = {e["call_id"] for s in run.steps if s.index < step for e in s.trace if e["kind"] == "approval_granted"}
    call = (resumed["pending_call"] or {}).get("call_id")
    if resumed["position"] == "awaiting_approval" and granted:
        return (f"the approval of {', '.join(sorted(granted))} was given before the kill, but {lost}, "
                "so HumanInTheLoopMiddleware asked again and that approval is lost")
    if resumed["position"] == "before_execute" and call in seen:
        return f"{call}'s result was streamed before the kill, but {lost}, so the resume ran {call} again"
    if resumed["position"] == "before_execute":
        return f"the resume ran the tool call the kill interrupted ({call}) again: nothing records whether its tool already ran"
    return "the resume continued from the latest checkpoint and asked the model for the turn the kill interrupted"
