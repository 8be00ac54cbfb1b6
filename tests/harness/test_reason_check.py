"""The mutation check of the reasons (``harness.runner_side.reason_check``): a claim the fact does not imply is
caught, a narrow rule still explains its leaves, and the committed evidence scores what the README states."""

from __future__ import annotations

from functools import cache

import pytest

from harness.columns import ROOT
from harness.runner_side import reason_check as rc
from harness.runner_side.reason_mutations import mutations
from harness.runner_side.reasons import Case, Reason, reasons
from harness.scenarios import SCENARIO_DIR, load_scenarios

EVIDENCE = ROOT / "evidence"
SCENARIOS = {s.id: s for s in load_scenarios(SCENARIO_DIR)}


@cache
def _report() -> rc.Report:
    return rc.check(EVIDENCE, SCENARIOS)


def _case(column: str, mode: str, key: str) -> Case:
    return next(case for c, m, k, _, case in rc.load(EVIDENCE, SCENARIOS) if (c, m, k) == (column, mode, key))


def _outcome(case: Case, name: str, label: str, derive: rc.Derive = reasons) -> rc.Outcome:
    refusals = sorted(r for r, where in rc.refusal_pool(EVIDENCE).items() if where - {case.scenario.id})
    mutation = next(m for m in mutations(name, case, refusals) if m.label == label)
    return rc.judge("test", name, case, derive(case), mutation, derive)


def test_the_committed_evidence_scores_at_least_what_the_readme_states() -> None:
    stated = rc.stated_score((ROOT / "README.md").read_text(encoding="utf-8"))
    assert stated is not None and stated >= 95.0  # the floor
    report = _report()
    assert not report.stale, report.stale[:3]
    assert len(report.outcomes) > 1000 and report.score >= stated, rc.summary(report, 10)


def test_a_status_claimed_without_being_stated_is_missed_and_one_stated_is_caught() -> None:
    """The over-claim the check exists for: a reason that vouches for the final status whatever it is."""
    case = _case("langgraph", "defaults", "always_deny")
    label = f"status {case.framework.observables['status']!r} -> 'crashed'"

    def broad(case: Case) -> list[Reason]:
        return [*reasons(case), Reason("broad", "the run went another way", (("status",),))]

    def stating(case: Case) -> list[Reason]:
        return [*reasons(case), Reason("stating", f"the run ended {case.framework.observables['status']}", (("status",),))]

    missed = _outcome(case, "status", label, broad)
    assert not missed.caught and missed.rules["broad"] is False
    caught = _outcome(case, "status", label, stating)
    assert caught.caught and caught.how == ("stated",)


def test_a_count_the_facts_do_not_give_is_no_longer_claimed() -> None:
    case = _case("langgraph", "defaults", "always_deny")  # c1 (drop_database) ran once: denied_tool_ran claims its counts
    assert "denied_tool_ran" in {r.rule for r in reasons(case)}
    outcome = _outcome(case, "side_effects", "side_effects.c1.effects 1 -> 2")
    assert outcome.caught and outcome.how == ("unclaimed",) and outcome.rules["denied_tool_ran"] is True


def test_a_refusal_nobody_gave_is_unclaimed_and_a_step_refused_otherwise_is_stated() -> None:
    case = next(case for _, _, _, record, case in rc.load(EVIDENCE, SCENARIOS)
                if record["columns"]["refusals"]["equal"] is False and case.framework.observables["refusals"])
    refusals = sorted(r for r, where in rc.refusal_pool(EVIDENCE).items() if where - {case.scenario.id})
    found = reasons(case)
    added = next(m for m in mutations("refusals", case, refusals) if "no step gave it" in m.label)
    assert rc.judge("test", "refusals", case, found, added).how == ("unclaimed",)
    other = next(m for m in mutations("refusals", case, refusals) if m.kind == "refusal" and m.steps is not None)
    outcome = rc.judge("test", "refusals", case, found, other)
    assert outcome.caught and "stated" in outcome.how


def test_a_narrow_rule_still_explains_the_leaves_its_fact_gives() -> None:
    """Narrowing leaves no committed difference without a reason: every differing leaf is claimed by some reason."""
    from harness.runner_side.reasons import explain

    for _, _, key, record, case in rc.load(EVIDENCE, SCENARIOS):
        found = reasons(case)
        for name, cell in record["columns"].items():
            if cell["equal"] is False:
                assert explain(name, cell["handwritten"], cell["framework"], found)[2], (key, name)


@pytest.mark.parametrize(("old", "new", "value", "stated"), [
    ("turn 1 9 times (its default, 10 model calls: `x`)", "turn 1 10 times", 10, True),  # the 10 that is new, not the one that went
    ("driver step 2 ended completed", "driver step 2 ended completed", 2, False),  # nothing changed
    ("c1 ran at driver step 1", "c2 ran at driver step 1", 2, False),  # the 2 of c2 is no count
    ("c1: 1 executor entries", "c1: 2 executor entries", 2, True),
    ("c1 ran once", "c1 ran twice", 2, True),
    ("", "driver step 3 ended crashed", "crashed", True),  # a reason the rule did not give before
])
def test_a_value_is_stated_only_where_the_text_changed_to_say_it(old: str, new: str, value: object, stated: bool) -> None:
    before = [Reason("r", old, (("x",),))] if old else []
    assert rc._states(Reason("r", new, (("x",),)), value, before) is stated


def test_the_script_fails_below_its_threshold(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_reasons", ROOT / "scripts" / "check_reasons.py")
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--min", "100.1"]) == 1
    assert "is below 100.1 %" in capsys.readouterr().err
