"""Reasons behind a run's differences, read from this column's own trace, the model log and the ledger of that run.

Each sentence names the AgentScope behaviour seen in this run; nothing is keyed by a
scenario's name: a sentence appears only when its trigger is in the run's records.
"""

from __future__ import annotations

from handwritten.tools import RiskClass
from harness.driver import ScenarioRun
from harness.scripted_model import summarize_log
from harness.world import FIXTURE_TOOLS

CONFIRM_REFUSED = "agentscope: Received UserConfirmResultEvent"
NOT_ASKING = "agentscope: Agent is not waiting for user confirmation"
NO_EVENT = "agentscope: Agent is waiting for"


def explanations(run: ScenarioRun, mode: str, invalid_ids: list[str]) -> dict[str, str]:
    """observable -> one sentence naming the behaviour behind a difference (only behaviours seen)."""
    steps, scenario = run.steps, run.scenario
    ledger = steps[-1].ledger
    actions = [s.action for s in steps]
    trace = [e for s in steps for e in s.trace]
    refusals = [s.refusal or "" for s in steps]
    model = summarize_log(run.scratch / "model_log.jsonl", len(scenario.model_script))
    said: dict[str, list[str]] = {}

    def say(sentence: str, *observables: str) -> None:
        for name in observables:
            said.setdefault(name, []).append(sentence)

    if any("<current-time>" in text for text in model["injected"]):
        say("AgentScope's default InjectionConfig (inject_runtime_state=True) appends a runtime-state hint with the "
            "current time to the context, which reaches the model as a user message", "model")
    if any("maximum of" in text and "reasoning-acting iterations" in text for text in model["injected"]):
        say("at ReActConfig.max_iters AgentScope asks the model once more, with a hint to answer without tools", "model")
    denied_asked = sorted({p["call_id"] for s in steps for p in s.pending if FIXTURE_TOOLS[p["tool"]].risk is RiskClass.ALWAYS_DENY})
    if denied_asked:
        say(f"AgentScope has no deny class of its own for a function tool: {', '.join(denied_asked)} fell to the permission "
            "engine's default for a function tool without a decision (ask the user), so the run paused for a human",
            "status", "step_statuses", "pre_approval_state", "model")
    coerced = [cid for cid in invalid_ids if ledger.get(cid, {}).get("tool_entries")]
    if coerced:
        say(f"AgentScope repairs tool arguments against the schema it generated from the signature (json_repair) before it "
            f"validates them, so the invalid arguments of {', '.join(coerced)} were coerced and the tool ran",
            "side_effects", "schema_failure_side_effects")
    repeated = sorted(cid for cid, c in ledger.items() if c["effects"] > 1)
    if repeated:
        cause = ("the restored AgentState copy still asked for the call, and confirming it again ran it again"
                 if "restore" in actions else
                 "the resume started from the last AgentState saved when a reply returned, before the effect")
        say(f"AgentScope ran {', '.join(repeated)} again: {cause}; AgentScope keeps no record of executed tool calls",
            "side_effects", "idempotent_replay", "checkpoint_after_interrupt", "model")
    if any(r.startswith(NO_EVENT) for r in refusals):
        say("AgentScope saves the AgentState only when a reply returns: the confirmation and the execution of the killed "
            "step were lost, the saved state still asks for the call, and reply(None) is refused while a call awaits "
            "confirmation", "status", "step_statuses", "refusals", "side_effects", "pre_approval_state", "checkpoint_after_interrupt", "model")
    if any(r.startswith(CONFIRM_REFUSED) for r in refusals) and any(p for s in steps for p in s.pending):
        say("AgentScope binds a confirmation to the id of a call that is asking and refuses one for any other call "
            "(a sequential batch of writes pauses at its first asking call, so later calls of the turn are not asking yet)",
            "status", "step_statuses", "refusals", "pre_approval_state", "model")
    if "misuse_token" in actions and mode == "defaults":
        say("an AgentScope ConfirmResult carries no token: a misused token went in as a confirmation, which approved the named call "
            "while it was asking, and AgentScope refused the confirmations for a call no longer asking (so the driver's "
            "'reused' misuse had no successful approval to reuse)", "step_statuses", "refusals", "side_effects", "pre_approval_state")
    if "reconcile" in actions and mode == "defaults":
        say("nothing in AgentScope records that an executor was entered (toolkit.call_tool turns every tool exception, "
            "a TimeoutError included, into an error result), so reconcile is not supported", "step_statuses", "refusals", "checkpoint_after_interrupt")
    failed = sorted(e["call_id"] for e in trace if e["kind"] == "tool_result" and e["status"] == "error"
                    and any(f.point == "tool.raise_before_effect" and f.call_id == e["call_id"] for f in scenario.faults))
    if failed:
        say(f"AgentScope does not retry a failed tool call: the exception of {', '.join(failed)} became an error result for the model",
            "side_effects", "model")
    if "deliver_again" in actions and mode == "defaults":
        say("AgentScope has no inbound event id: the re-delivered input became a new user message and the model was asked again",
            "step_statuses", "refusals", "model", "idempotent_replay")
    if mode == "defaults" and scenario.max_steps < len(scenario.model_script):
        say("AgentScope's default ReActConfig.max_iters is 50, so the model was called until the script ran out",
            "status", "step_statuses", "side_effects", "model")
    if model["missing_turns"] and any(e["kind"] == "resumed" and e["position"] == "model_turn" for e in trace):
        say("AgentScope's reply(None) on a session with no open call starts a new reply, so the resume asked the model for another turn", "model")
    if any(f.point == "engine.kill_after_checkpoint" for f in scenario.faults) and "crashed" not in (s.status for s in steps):
        say("AgentScope saves nothing between a call's permission decision and its execution, so the engine-only kill point never fires",
            "step_statuses", "checkpoint_after_interrupt", "model")
    early = sorted({cid for s in steps if s.pending for cid, c in s.ledger.items()
                    if c["effects"] and FIXTURE_TOOLS[c["tool"]].risk is not RiskClass.READ_ONLY})
    if early:
        say(f"AgentScope decides permission per call and runs a turn's calls in order: {', '.join(early)} (allowed) ran before a "
            "later call of the same turn asked for confirmation; its permission system cannot hold a whole turn", "pre_approval_state")
    ids = [c["id"] for t in scenario.model_script for c in t.get("tool_calls", ())]
    duplicated = sorted({cid for cid in ids if ids.count(cid) > 1})
    if duplicated:
        say(f"AgentScope matches tool results to calls by id within a reply: the repeated {', '.join(duplicated)} counted as "
            "answered already and never reached the tools, so it got no second result", "idempotent_replay", "model")
    if mode == "contract" and any(e["kind"] == "duplicate_event" or e.get("status") == "replayed" for e in trace):
        say("the deduplication is contract glue (an idempotency record keyed <session>/<tool call id>, an event id claimed "
            "once): AgentScope deduplicates nothing itself", "idempotent_replay")
    return {name: "; ".join(sentences) for name, sentences in sorted(said.items())}
