"""Reasons behind a run's differences, read from this column's own trace, the model log and the ledger of that run.

Each sentence names the Agents SDK behaviour seen in this run; nothing is keyed by a scenario's name: a
sentence is said only when its trigger is in the run's records. The rules are one table, every trigger and
sentence worked out for every run, so both modes run the same lines.
"""

from __future__ import annotations

from agents.run import DEFAULT_MAX_TURNS

from handwritten.tools import RiskClass
from harness.column_side.scripted_model import summarize_log
from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import ScenarioRun


def explanations(run: ScenarioRun, mode: str, invalid_ids: list[str]) -> dict[str, str]:
    """observable -> one sentence naming the behaviour behind a difference (only behaviours seen)."""
    scenario, ledger = run.scenario, run.steps[-1].ledger
    actions = [s.action for s in run.steps]
    trace = [e for s in run.steps for e in s.trace]
    asked = summarize_log(run.scratch / "model_log.jsonl", len(scenario.model_script))
    calls = asked["calls_per_turn"]
    defaults = mode == "defaults"
    repeated = sorted(cid for cid, c in ledger.items() if c["effects"] > 1)
    denied = sorted(cid for cid, c in ledger.items() if FIXTURE_TOOLS[c["tool"]].risk is RiskClass.ALWAYS_DENY and c["effects"])
    coerced = [cid for cid in invalid_ids if ledger.get(cid, {}).get("tool_entries")]
    paused = next((s for s in run.steps if s.status == "awaiting_approval"), None)
    early = sorted(cid for cid, c in (paused.ledger if paused else {}).items() if c["effects"] and FIXTURE_TOOLS[c["tool"]].risk is not RiskClass.READ_ONLY)
    ids = [c["id"] for t in scenario.model_script for c in t.get("tool_calls", ())]
    resumed = [(s.index, e) for s in run.steps for e in s.trace if e["kind"] == "resumed"]
    after_crash = {i for i, _ in resumed if i and run.steps[i - 1].status == "crashed"}
    killed_turns = {f.turn for f in scenario.faults if f.point == "model.kill_before_turn"}
    again = sorted(int(t) for t, n in calls.items() if n > 1 and int(t) not in killed_turns)
    counts = ", ".join(f"{c} {ledger[c]['effects']} times" for c in repeated)
    rules: list[tuple[bool, str, tuple[str, ...]]] = [
        (bool(repeated), f"the SDK ran {counts}: approving the restored copy of the saved RunState ran the approved call again, "
         "and the SDK keeps no record of executed tool call ids", ("side_effects", "idempotent_replay")),
        (bool(denied), f"the SDK has no deny policy: {', '.join(denied)} ran as an ordinary function tool, since needs_approval gates "
         "only the high-risk tools", ("side_effects", "pre_approval_state")),
        (bool(coerced), f"@function_tool's pydantic argument model (lax mode) accepted the invalid arguments of {', '.join(coerced)} "
         "by coercing or dropping them, so the tool ran (the strict JSON schema only shapes what the model is shown)",
         ("side_effects", "schema_failure_side_effects")),
        (paused is not None and not any(e["kind"] == "call_admitted" for e in trace),
         "needs_approval pauses on the model's raw tool call: its arguments are parsed only when the approved tool is invoked",
         ("pre_approval_state",)),
        (bool(early), f"the SDK runs the calls of a turn that need no approval before it pauses on the ones that do, so {', '.join(early)} "
         "had its effect before the approval (needs_approval decides per call, never for the batch)", ("pre_approval_state",)),
        (len(ids) != len(set(ids)) and any(n > 1 for n in calls.values()),
         "the SDK drops a tool call whose call id it already answered (it neither runs nor answers it again), so the model was sent "
         "the same input again and again until max_turns stopped the run", ("status", "step_statuses", "model", "idempotent_replay")),
        (defaults and "misuse_token" in actions,
         "an SDK approval carries no token: each misused token went in as state.approve() on the named call's ToolApprovalItem, "
         "which ran the call when it was pending and changed nothing when no item was pending for it",
         ("step_statuses", "refusals", "side_effects", "pre_approval_state")),
        (defaults and "reconcile" in actions,
         "nothing in the SDK records that an executor was entered: a tool exception (a TimeoutError included) becomes an error "
         "message for the model (the default failure_error_function), and reconcile is not supported",
         ("step_statuses", "refusals", "checkpoint_after_interrupt")),
        (defaults and any(f.point == "tool.raise_before_effect" for f in scenario.faults),
         "the default failure_error_function turned the tool's exception into an error message for the model and the SDK never "
         "retried the call", ("side_effects",)),
        (defaults and "deliver_again" in actions,
         "Runner.run has no inbound event id: the re-delivered input became a new user turn in the SQLiteSession and the model was "
         "asked again", ("step_statuses", "refusals", "model", "idempotent_replay")),
        (defaults and scenario.max_steps < len(scenario.model_script),
         f"Runner.run's default max_turns is {DEFAULT_MAX_TURNS}, above the scenario's bound, so the model was called until the script "
         "ran out", ("status", "step_statuses", "side_effects", "model")),
        (any(f.point == "engine.kill_after_checkpoint" for f in scenario.faults) and not any(s.status == "crashed" for s in run.steps),
         "the SDK has no checkpoint between a tool call's intent and its executor, so the engine-only kill point never fires",
         ("step_statuses", "checkpoint_after_interrupt")),
        (any(i not in after_crash and e["position"] == "model_turn" for i, e in resumed) and bool(asked["missing_turns"]),
         "the SDK records nothing that says whether a run ended: with no paused RunState saved, the resume continued the "
         "SQLiteSession's conversation (Runner.run(agent, [], session=...)) and the model was asked for a turn after its final answer",
         ("model",)),
        (any(e["position"] == "awaiting_approval" for _, e in resumed) and any(e["kind"] == "approval_granted" for e in trace),
         "the SDK saves nothing while a run goes on: the resume continued from the RunState saved when the run paused, before the "
         "approval, so the approval was lost and the call awaits approval again",
         ("status", "step_statuses", "side_effects", "model", "checkpoint_after_interrupt")),
        (any(e["position"] == "model_turn" for _, e in resumed) and bool(again),
         "the SQLiteSession stores a turn's items only after its tools ran and the SDK keeps no state inside a turn, so the resume "
         f"asked the model for turn {', '.join(map(str, again))} again and the call was proposed anew", ("model", "checkpoint_after_interrupt")),
        (not defaults and any(e["kind"] in ("duplicate_event", "tool_result") and e.get("status", "replayed") == "replayed" for e in trace),
         "the deduplication is contract glue (an idempotency record keyed <session>/<tool call id>, an event id claimed once): "
         "the SDK deduplicates nothing across runs itself", ("idempotent_replay",)),
    ]
    said: dict[str, list[str]] = {}
    for seen, sentence, observables in rules:
        for name in observables if seen else ():
            said.setdefault(name, []).append(sentence)
    return {name: "; ".join(sentences) for name, sentences in sorted(said.items())}
