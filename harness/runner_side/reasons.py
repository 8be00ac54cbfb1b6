"""Why a framework's cell differs from the engine's: one rule table, shared by every column.

Each rule reads the two runs' measured facts (the observables, and ``facts``: what each driver step
added to the ledger, killed, left pending, granted, delivered, resumed) and, when its condition holds,
says what happened with the call ids, steps and counts inline. A framework contributes nothing but
the names of its mechanisms (``module:qualname``) and the constants read from its pinned environment.
Every reason names the differing leaves it accounts for (``claims``: path prefixes, ``*`` matching any
key); a leaf of a not-equal cell that no reason claims is reported as "no rule explains this difference".
A reason claims only the leaves whose values follow from the fact it states, or whose values its text states
(``harness.runner_side.rule_facts``); ``harness.runner_side.reason_check`` measures how well the table keeps to that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from harness.runner_side import approval_rules as a
from harness.runner_side import argument_rules as g
from harness.runner_side import event_rules as e
from harness.runner_side import rules as r
from harness.runner_side import wire_rules as w
from harness.runner_side.rule_facts import Case, Path, Reason, Run

__all__ = ["CONSEQUENCES", "RULES", "TITLES", "UNEXPLAINED", "Case", "Reason", "Run", "claimed", "differing_paths", "explain", "reason_record", "reasons"]
UNEXPLAINED = "no rule explains this difference"


Rule = Callable[[Case], Iterator[Reason]]


def differing_paths(a: Any, b: Any, where: Path = ()) -> list[Path]:
    """Every leaf where two values differ (dicts key by key, lists of one length item by item)."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        return [p for key in sorted(set(a) | set(b)) for p in differing_paths(a.get(key, "<absent>"), b.get(key, "<absent>"), (*where, str(key)))]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in differing_paths(x, y, (*where, str(i)))]
    return [where]


def claimed(path: Path, claims: tuple[Path, ...]) -> bool:
    """A claim explains a differing leaf when the leaf's path starts with it (``*`` matches any key)."""
    return any(len(path) >= len(c) and all(k in ("*", p) for k, p in zip(c, path, strict=False)) for c in claims)


RULES: tuple[Rule, ...] = (
    r.executed_again, r.denied_tool_ran, g.invalid_args_ran, g.other_user_ran, a.paused_before_validation, a.asked_about_other_calls,
    a.paused_at_other_steps, a.invalid_call_held, a.misused_approval,
    e.redelivered_as_new_turn, g.reused_id_ended_run, g.invalid_args_ended_run, g.unknown_tool_ended_run, g.invalid_call_dropped,
    r.step_bound_not_enforced,
    r.fault_never_fired, r.resumed_differently, r.uncertain_not_stopped,
    a.decision_reached_other_call, a.decision_raised, a.held_for_turn, r.tool_error_not_retried, r.fault_ended_run, r.step_refused, r.ran_less_often,
    r.repeat_not_answered,
    r.stopped_by_own_bound, r.model_asked_again, r.model_turns_differ, a.decisions_met_other_effects, r.deduplicated_by_glue,
    *w.RULES,
)


def reasons(case: Case) -> list[Reason]:
    """Every reason the rule table derives for this case, in the table's order."""
    return [reason for rule in RULES for reason in rule(case)]


def reason_record(reason: Reason) -> dict[str, Any]:
    """A reason as the evidence stores it: the rule, the text and the leaves it claims (dotted, ``*`` for any key)."""
    return {"rule": reason.rule, "text": reason.text, "claims": [".".join(c) for c in reason.claims]}


def explain(name: str, engine_value: Any, framework_value: Any, found: list[Reason]) -> tuple[str, list[str], bool]:
    """A not-equal cell's reason text, the rules behind it, and whether every differing leaf is explained."""
    paths = [(name, *p) for p in differing_paths(engine_value, framework_value)]
    tree = _claim_tree(found)  # a tree of claims, not every claim against every leaf
    matched = [_claimants(p, tree) for p in paths]
    used = [r for i, r in enumerate(found) if any(i in m for m in matched)]
    loose = [p for p, m in zip(paths, matched, strict=True) if not m]
    said = [r.text for r in dict.fromkeys(used)]
    if loose:
        said.append(f"{UNEXPLAINED} at {', '.join('.'.join(p) for p in loose[:3])}")
    return "; ".join(said), sorted({r.rule for r in used}), not loose


def _claim_tree(found: list[Reason]) -> dict[Any, Any]:
    """Every reason's claims as a tree of path keys; ``None`` under a node holds the indexes of the reasons whose
    claim ends there. Matching a leaf walks its path once, so the cost grows with the leaves plus the claims, not
    with their product (a long run has a leaf and a claim per call id)."""
    tree: dict[Any, Any] = {}
    for index, reason in enumerate(found):
        for claim in reason.claims:
            node = tree
            for key in claim:
                node = node.setdefault(key, {})
            node.setdefault(None, set()).add(index)
    return tree


def _claimants(path: Path, tree: dict[Any, Any]) -> set[int]:
    """The indexes of the reasons with a claim that ``claimed`` says explains ``path``."""
    out: set[int] = set()
    nodes = [tree]
    for key in path:
        for node in nodes:
            out |= node.get(None, set())
        nodes = [child for node in nodes for child in (node.get(key), node.get("*") if key != "*" else None) if child is not None]
    for node in nodes:
        out |= node.get(None, set())
    return out


TITLES: dict[str, str] = {
    "denied_tool_ran": "Runs a tool the contract always denies",
    "invalid_args_ran": "Hands arguments that break the tool's strict schema to the tool",
    "other_user_ran": "Runs a tool that acts for the session's user on a call whose arguments name another user",
    "paused_before_validation": "Pauses for approval before validating the arguments",
    "asked_about_other_calls": "Asks for approval of calls the contract does not ask about",
    "ran_without_asking": "Runs a high-risk call without asking for approval",
    "effect_before_decision": "Lets calls that were never asked about take effect while a call waits for approval",
    "approved_call_ran_early": "Runs an approved call before the other calls waiting with it are decided",
    "misused_approval_accepted": "Takes a misused approval whose binding its approval object carries (not enforced)",
    "misused_approval_ignored": "Neither refuses nor acts on a misused approval",
    "approval_not_carried": "Takes a misused approval whose binding its approval object does not carry",
    "decision_ignored": "Neither refuses nor acts on a decision for a call that is not waiting",
    "decision_reached_other_call": "Applies a decision about one call to another call",
    "decision_raised": "Answers a decision with an exception that ends the run",
    "held_for_turn": "Gets none of a turn's decisions until every call of the turn is decided",
    "executed_again": "Runs a tool call again (a repeated call id, a resumed or restored state)",
    "repeat_not_answered": "Drops a call id the model sends again",
    "redelivered_as_new_turn": "Does not recognise the same event delivered again, or takes a new one while the run is unfinished",
    "redelivery_failed": "Fails on the same event delivered again, or on a new one while the run is unfinished",
    "reused_id_ended_run": "Ends the run in an exception when the model reuses a call id with other arguments",
    "unknown_tool_ended_run": "Ends the run in an exception when the model calls a tool it was not given",
    "invalid_call_dropped": "Drops a tool call whose arguments are not JSON: the run ends as if the model had answered",
    "invalid_args_ended_run": "Ends the run in an exception on arguments the schema stage would answer",
    "resumed_differently": "Resumes a killed run somewhere else than the engine, or loses its approval",
    "fault_never_fired": "Never reaches a fault point the engine meets",
    "fault_fired_only_here": "Meets a fault point the engine never reaches",
    "uncertain_not_stopped": "Does not stop for reconciliation when a call's outcome is unknown",
    "tool_error_not_retried": "Does not retry a tool that failed before its effect",
    "step_bound_not_enforced": "Does not stop at the scenario's step bound",
    "stopped_by_own_bound": "Stops at its own step bound",
    "model_asked_again": "Asks the model again for a turn it already answered",
    "turns_beyond_script": "Asks the model for turns beyond the script",
    "model_saw_other_messages": "Sends the model messages of its own",
    "deduplicated_by_glue": "Deduplicates only through contract glue",
    # consequences of the behaviours above: they explain cells, they are not findings of their own
    "ran_less_often": "A call runs fewer times than in the engine's run",
    "ran_at_other_steps": "A call runs more often, or at other driver steps, than in the engine's run",
    "results_differ": "A call's results reach the model another number of times",
    "turns_never_asked": "Scripted turns are never asked for",
    "turns_asked_only_here": "Scripted turns the engine never asks for are asked for",
    "model_asked_less": "The model is asked for a turn fewer times than in the engine's run",
    "step_refused": "A driver step is refused, or one the engine refused is not",
    "paused_at_other_steps": "A driver step leaves other calls waiting for a decision than the engine's",
    "invalid_call_held": "A call whose arguments break the tool's schema waits for a human's decision",
    "redelivery_refused_not_deduplicated": "The same event delivered again is refused for a reason of the framework's own, not as a duplicate",
    "decision_for_unasked_call": "A decision names a call the framework never asked about (it paused for another)",
    "refused_decision_taken": "A decision the engine refuses goes in, and the framework's run goes on",
    "fault_ended_run": "A fault injected into a call the engine never ran raises out of the framework's run and ends it",
    **w.TITLES,
}
"""Every rule id the table yields, with the behaviour it names (the headings of ``evidence/FINDINGS.md``)."""
CONSEQUENCES = frozenset({"approval_not_carried", "decision_raised", "held_for_turn", "ran_less_often", "ran_at_other_steps", "results_differ",
                          "turns_never_asked", "turns_asked_only_here", "model_asked_less", "step_refused", "paused_at_other_steps",
                          "invalid_call_held", "redelivery_refused_not_deduplicated", "decision_for_unasked_call",
                          "refused_decision_taken", "fault_ended_run"}) | w.CONSEQUENCES
"""Rules that describe what followed from another behaviour (a run that ended early ran less): they explain
cells and are kept in the evidence, but ``evidence/FINDINGS.md`` does not list them as findings."""
