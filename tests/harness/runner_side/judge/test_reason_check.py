"""The mutation check of the reasons (``harness.runner_side.judge.mutants.score``): a claim whose value the facts do
not give is missed, a claim with the facts' value is caught, a value counts as stated only where the text changed to
say it, and the script's exit status follows its threshold and stale stored reasons. The check itself runs over the
committed evidence once, in CI (``scripts/check_reasons.py``); here it runs on a stub evidence directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.columns import REFERENCE, ROOT
from harness.runner_side.judge import Case, Claim, Reason, case_from_record, reasons
from harness.runner_side.judge.mutants import score as mc
from harness.runner_side.judge.mutants.mutations import mutations

EVIDENCE = ROOT / "evidence"
ALWAYS_DENY = ("langgraph", "defaults", "always_deny")  # c1 (drop_database, always denied) ran once: side_effects differs
CRASH_RESUME = ("pydantic_ai", "defaults", "crash_resume")  # the resume was refused: "nothing saved to resume from"


def _outcome(case: Case, name: str, label: str, derive: mc.Derive = reasons, refusals: tuple[str, ...] = ()) -> mc.Outcome:
    mutation = next(m for m in mutations(name, case, list(refusals)) if m.label == label)
    return mc.judge("test", name, case, derive(case), mutation, derive)


def test_the_readme_states_a_score_of_at_least_the_issues_floor() -> None:
    stated = mc.stated_score((ROOT / "README.md").read_text(encoding="utf-8"))
    assert stated is not None and stated >= 99.0


def test_a_claim_with_the_observed_value_is_missed_unless_its_text_states_it() -> None:
    """The over-claim the check exists for: a claim whose value is the observable's own vouches for whatever the cell
    says, so the new value is explained; caught only when the text states it."""
    case = case_from_record(EVIDENCE, *ALWAYS_DENY)
    label = f"status {case.framework.observables['status']!r} -> 'crashed'"

    def broad(case: Case) -> list[Reason]:
        return [*reasons(case), Reason("broad", "the run went another way", (Claim(("status",), case.framework.observables["status"]),))]

    def stating(case: Case) -> list[Reason]:
        status = case.framework.observables["status"]
        return [*reasons(case), Reason("stating", f"the run ended {status}", (Claim(("status",), status),))]

    missed = _outcome(case, "status", label, broad)
    assert not missed.caught and missed.how == ("missed",) and missed.rules["broad"] is False
    caught = _outcome(case, "status", label, stating)
    assert caught.caught and caught.how == ("stated",) and caught.rules["stating"] is True


def test_a_claim_with_the_facts_value_leaves_a_mutated_leaf_unexplained() -> None:
    case = case_from_record(EVIDENCE, *ALWAYS_DENY)
    label = f"status {case.framework.observables['status']!r} -> 'crashed'"

    def narrow(case: Case) -> list[Reason]:
        return [*reasons(case), Reason("narrow", "the run went another way", (Claim(("status",), case.implied["status"]),))]

    outcome = _outcome(case, "status", label, narrow)
    assert outcome.caught and outcome.how == ("unexplained",) and outcome.rules["narrow"] is True


def test_a_count_the_facts_do_not_give_is_unexplained() -> None:
    case = case_from_record(EVIDENCE, *ALWAYS_DENY)
    assert "denied_tool_ran" in {r.rule for r in reasons(case)}
    outcome = _outcome(case, "side_effects", "side_effects.c1.effects 1 -> 2")
    assert outcome.caught and outcome.how == ("unexplained",) and outcome.rules["denied_tool_ran"] is True


def test_a_refusal_nobody_gave_is_unexplained_and_a_step_refused_otherwise_is_stated() -> None:
    """A refusal appended to the cell alone is in no step's record: no claim vouches for it. One that changes the
    step's record too changes the facts: the reason that vouches for it must, and does, name it."""
    case = case_from_record(EVIDENCE, *CRASH_RESUME)
    found = reasons(case)
    added = next(m for m in mutations("refusals", case, ["not_pending"]) if "no step gave it" in m.label)
    assert mc.judge("test", "refusals", case, found, added).how == ("unexplained",)
    other = next(m for m in mutations("refusals", case, ["not_pending"]) if m.kind == "refusal" and m.steps is not None)
    outcome = mc.judge("test", "refusals", case, found, other)
    assert outcome.caught and "stated" in outcome.how and outcome.rules.get("step_refused") is True


@pytest.mark.parametrize(("old", "new", "value", "stated"), [
    ("turn 1 9 times (its default, 10 model calls: `x`)", "turn 1 10 times", 10, True),  # the 10 that is new, not the one that went
    ("driver step 2 ended completed", "driver step 2 ended completed", 2, False),  # nothing changed
    ("c1 ran at driver step 1", "c2 ran at driver step 1", 2, False),  # the 2 of c2 is no count
    ("c1: 1 executor entries", "c1: 2 executor entries", 2, True),
    ("c1 ran once", "c1 ran twice", 2, True),
    ("", "driver step 3 ended crashed", "crashed", True),  # a reason the rule did not give before
])
def test_a_value_is_stated_only_where_the_text_changed_to_say_it(old: str, new: str, value: object, stated: bool) -> None:
    before = [Reason("r", old, (Claim(("x",), 1),))] if old else []
    assert mc._states(Reason("r", new, (Claim(("x",), 2),)), value, before) is stated


def _check_reasons(*argv: str) -> subprocess.CompletedProcess[str]:
    """``scripts/check_reasons.py`` run as a reader runs it: its exit status and what it printed."""
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "check_reasons.py"), *argv], cwd=ROOT, capture_output=True, text=True, timeout=300)


def _stub(tmp_path: Path, stale: bool = False) -> Path:
    """An evidence directory of the engine's document and one column's document cut to two records (plus the files
    that hold no runs, which the check passes over)."""
    for name in (f"{REFERENCE}.json", "availability.json"):
        (tmp_path / name).write_bytes((EVIDENCE / name).read_bytes())
    column, mode, _ = ALWAYS_DENY
    document: dict[str, Any] = json.loads((EVIDENCE / f"{column}.json").read_text(encoding="utf-8"))
    body = document["modes"][mode]
    kept = {key: body["scenarios"][key] for key in ("always_deny", "high_risk_approved")}
    if stale:
        kept["always_deny"]["reasons"][0]["text"] += " (as an older rule table said it)"
    document["modes"] = {mode: {**body, "scenarios": kept}}
    (tmp_path / f"{column}.json").write_text(json.dumps(document), encoding="utf-8")
    return tmp_path


def test_the_script_passes_at_its_threshold_and_fails_below_it(tmp_path: Path) -> None:
    evidence = _stub(tmp_path)
    passed = _check_reasons("--evidence", str(evidence), "--min", "0")
    assert passed.returncode == 0, passed.stderr
    assert "reasons caught" in passed.stdout and " of 0 mutations" not in passed.stdout  # the stub's not-equal cells were mutated
    below = _check_reasons("--evidence", str(evidence), "--min", "100.1")
    assert below.returncode == 1 and "is below 100.1 %" in below.stderr


def test_the_script_refuses_stored_reasons_the_rules_do_not_derive(tmp_path: Path) -> None:
    refused = _check_reasons("--evidence", str(_stub(tmp_path, stale=True)), "--min", "0")
    assert refused.returncode == 2 and "not what the rules derive" in refused.stderr
