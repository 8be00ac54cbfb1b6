"""What LangGraph did behind a difference, in one sentence per observable, from the run's own trace and ledger.

Nothing here is written per scenario: each sentence is produced only when this run's
trace or ledger shows the behaviour it names, with the counts it measured.
"""

from __future__ import annotations

from typing import Any

from harness.column_side.scripted_model import summarize_log
from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import ScenarioRun
from harness.runner_side.observables import invalid_call_ids


def explanations(run: ScenarioRun, mode: str) -> dict[str, str]:
    """Observable -> the framework behaviour this run's trace shows behind it."""
    events = [e for step in run.steps for e in step.trace]
    if mode == "contract":
        # contract glue: start
        return _deduplication(events)
        # contract glue: end
    ledger = run.steps[-1].ledger if run.steps else {}
    said = _effects(run, ledger)
    if any(step.pending for step in run.steps) and not any(e["kind"] == "call_admitted" for e in events):
        said["pre_approval_state"] = (
            "the approval node's interrupt() pauses before ToolNode parses the arguments with the @tool's pydantic model, so nothing was validated before the pause"
        )
    if reasons := _status_reasons(run, events):
        said["step_statuses"] = said["refusals"] = said["status"] = "; ".join(reasons)
    model = summarize_log(run.scratch / "model_log.jsonl", len(run.scenario.model_script))
    again = {t: n for t, n in model["calls_per_turn"].items() if n > 1}
    if again or model["missing_turns"]:
        said["model"] = f"the agent node asked the model for turns {sorted(again) or model['missing_turns']} " + (
            "again after a resume re-ran it from an earlier checkpoint" if again else "beyond the script, after the graph kept running"
        )
    if any(f.action == "kill" for f in run.scenario.faults):
        resumed = [e for e in events if e["kind"] == "resumed"]
        if not any(s.status == "crashed" for s in run.steps):
            said["checkpoint_after_interrupt"] = (
                "the fault point between an intent checkpoint and the executor never fired: LangGraph has no intent checkpoint, ToolNode goes straight to the tool"
            )
        elif resumed:
            said["checkpoint_after_interrupt"] = _resumed_from(run, resumed[0])
    return said


# contract glue: start
def _deduplication(events: list[dict[str, Any]]) -> dict[str, str]:
    replays = [e["call_id"] for e in events if e["kind"] == "tool_result" and e["status"] == "replayed"]
    ignored = sum(e["kind"] == "duplicate_event" for e in events)
    if not replays and not ignored:
        return {}
    return {
        "idempotent_replay": (
            f"the deduplication ({len(replays)} replayed results, {ignored} ignored events) is contract glue "
            "(records in SqliteIdempotencyStore keyed <session>/<tool call id> and by event id): LangGraph keeps no record of executed tool calls or delivered inputs"
        )
    }
# contract glue: end


def _effects(run: ScenarioRun, ledger: dict[str, Any]) -> dict[str, str]:
    """Repeated executions, a denied tool that ran, invalid arguments that reached the tool."""
    said: dict[str, str] = {}
    repeated = {cid: c["executor_entries"] for cid, c in ledger.items() if c["executor_entries"] > 1}
    if repeated:
        said["side_effects"] = said["idempotent_replay"] = (
            f"ToolNode entered the tool again for {_counts(repeated)}: LangGraph re-runs every call it is handed "
            "(a repeated call id, a resumed tools task, a time-travel replay) and keeps no record of earlier executions"
        )
    denied = sorted(cid for cid, c in ledger.items() if c["tool"] in FIXTURE_TOOLS and FIXTURE_TOOLS[c["tool"]].risk.value == "always_deny" and c["effects"])
    if denied:
        said.setdefault("side_effects", f"LangGraph has no policy stage: ToolNode ran the always-denied call {', '.join(denied)}")
    coerced = [cid for cid in invalid_call_ids(run) if ledger.get(cid, {}).get("tool_entries", 0)]
    if coerced:
        said["schema_failure_side_effects"] = (
            f"the @tool's pydantic model accepted the invalid arguments of {', '.join(coerced)} in lax mode (coercing strings to integers, "
            "dropping unknown fields) and ToolNode ran the tool"
        )
        said.setdefault("side_effects", said["schema_failure_side_effects"])
    return said


def _status_reasons(run: ScenarioRun, events: list[dict[str, Any]]) -> list[str]:
    """Why the statuses and refusals differ: what LangGraph took, ignored or has no step for."""
    unpaired = [e for e in events if e["kind"] == "answer_without_question"]
    granted = sum(e["kind"] == "approval_granted" for e in events) - sum(e["approve"] for e in unpaired)
    reasons = []
    if granted and any(s.action == "misuse_token" for s in run.steps):
        reasons.append(f"the approval tasks took every approving answer as an approval, misused tokens included ({granted} approvals): defaults has no token to check")
    if ignored := sum(not e["interrupts"] for e in unpaired):
        reasons.append(f"LangGraph ran nothing and raised nothing for {ignored} Command(resume=...) answers sent when no interrupt was pending")
    if unasked := sorted({e["call_id"] for e in unpaired if e["interrupts"]}):
        reasons.append(f"no interrupt asked about {', '.join(unasked)} when its decision came, so the answer had no interrupt id to be paired with and was not sent")
    if any(s.action == "deliver_again" for s in run.steps):
        reasons.append("invoking the thread again with the same event appended the input again and ran the model again: LangGraph has no inbound event id")
    if any(s.refusal == "not supported by langgraph" for s in run.steps):
        reasons.append("LangGraph has no reconciliation step, so reconcile was refused as not supported")
    if not any(e["kind"] == "recursion_limit" for e in events) and run.scenario.max_steps < len(run.scenario.model_script):
        reasons.append(f"LangGraph's default recursion limit (25 super-steps) does not know max_steps={run.scenario.max_steps}: the loop ran until the script ran out")
    return reasons


def _resumed_from(run: ScenarioRun, resumed: dict[str, Any]) -> str:
    """What the resume continued from, and why, from the trace: a result streamed before the kill whose
    call runs again, or an approval asked again, means the checkpoint after it never landed."""
    where = f"the resume continued from the checkpoint with next={resumed['next']}"
    lost = "its checkpoint had not landed when the process died (the default asynchronous durability writes it from a background thread while the next step runs)"
    step = next(s.index for s in run.steps if any(e is resumed for e in s.trace))
    seen = {e["call_id"] for s in run.steps if s.index < step for e in s.trace if e["kind"] == "tool_result"}
    granted = {e["call_id"] for s in run.steps if s.index < step for e in s.trace if e["kind"] == "approval_granted"}
    call = (resumed["pending_call"] or {}).get("call_id")
    if resumed["position"] == "awaiting_approval" and granted:
        return f"{where}: the approval of {', '.join(sorted(granted))} was given before the kill, but {lost}, so the approval task asked again and that approval is lost"
    if "dispatch" in resumed["next"]:
        return (
            f"{where}: the approval tasks' checkpoint had landed, so the approval survived, but the dispatch step's had not when the process died "
            "(the default asynchronous durability writes it from a background thread while the next step runs), so LangGraph runs dispatch and the tools task "
            "again, with no record of whether its tool already ran"
        )
    if resumed["position"] == "before_execute" and call in seen:
        return f"{where}: {call}'s result was streamed before the kill, but {lost}, so LangGraph runs that tools task again, with no record of what already ran"
    if resumed["position"] == "before_execute":
        return f"{where}: LangGraph runs the tools task the kill interrupted again, with no record of whether its tool already ran"
    return f"{where}: LangGraph runs the task the kill interrupted again"


def _counts(entries: dict[str, Any]) -> str:
    return ", ".join(f"{cid} ({n} executions)" for cid, n in sorted(entries.items()))
