"""Step facts from a column's own trace: the part of an observation a column contributes.

Two vocabularies: the engine's events (``handwritten.events``), which the hand-written
column and the local state graph write, and the compact events the third-party adapters
write (``call_admitted``, ``tool_result``, ``approval_granted``, ``duplicate_event``,
``resumed`` with its position already worked out, ``implicit_decision`` by the base column's driver side).
"""

from __future__ import annotations

from harness.records import ScenarioRun, StepFacts


def facts_from_engine_events(run: ScenarioRun) -> list[StepFacts]:
    """What the column's own trace says happened in each step."""
    out: list[StepFacts] = []
    admitted: set[str] = set()
    validated_before_pause: dict[str, bool] = {}
    for step in run.steps:
        f = StepFacts()
        for e in step.trace:
            match e["kind"]:
                case "call_admitted":
                    admitted.add(e["call_id"])
                case "approval_requested":
                    validated_before_pause[e["call_id"]] = e["call_id"] in admitted
                case "tool_result":
                    f.results.append({"call_id": e["call_id"], "status": e["status"], "content": e["content"]})
                    f.dedup = f.dedup or e["status"] == "replayed"
                case "approval_granted":
                    f.approvals_granted.append(e["call_id"])
                case "duplicate_event":
                    f.dedup = True
                case "resumed":
                    pending = None
                    if e["pending_call_id"] is not None:
                        pending = {"call_id": e["pending_call_id"], "tool": e["pending_tool"], "args_hash": e["pending_args_hash"]}
                    f.resumed = {"position": e["position"], "pending_call": pending, "approved_call_ids": sorted(e["approved_call_ids"])}
        if step.pending:
            f.validated_before_pause = all(validated_before_pause.get(p["call_id"], False) for p in step.pending)
        out.append(f)
    return out


def facts_from_column_trace(run: ScenarioRun, *, dedup_by: str, admitted_kind: str = "call_admitted") -> list[StepFacts]:
    """Facts from the third-party adapters' compact trace. ``admitted_kind`` names the event that says a
    call passed validation (and policy) before any pause; an approval traced in a refused step granted nothing."""
    out: list[StepFacts] = []
    admitted: set[str] = set()
    for step in run.steps:
        f = StepFacts(dedup_by=dedup_by)
        for e in step.trace:
            match e["kind"]:
                case kind if kind == admitted_kind:
                    admitted.add(e["call_id"])
                case "tool_result":
                    f.results.append({"call_id": e["call_id"], "status": e["status"], "content": e["content"]})
                    f.dedup = f.dedup or e["status"] == "replayed"
                case "approval_object":
                    f.approval_object = {k: e[k] for k in ("misuse", "binding", "carried", "made_for")}
                case "decision_held":  # kept by the human's side until the turn's last decision: nothing reached the framework
                    f.held.append(e["call_id"])
                case "approval_granted" if step.status != "refused":
                    f.approvals_granted.append(e["call_id"])
                case "duplicate_event":
                    f.dedup = True
                case "resumed":
                    f.resumed = {k: e[k] for k in ("position", "pending_call", "approved_call_ids")}
                case "implicit_decision":
                    f.implicit_decisions.append({k: e[k] for k in ("sub_step", "pause", "call_id", "tool", "args", "decision", "pending")})
        if step.pending:
            f.validated_before_pause = all(p["call_id"] in admitted for p in step.pending)
        out.append(f)
    return out
