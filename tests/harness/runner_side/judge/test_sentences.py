"""The sentence check (``harness.runner_side.judge.said``): what a reason states about a trace is data, its words are
rendered from that data, and every statement stored in the committed evidence agrees with the record it was made from.

The check reads the statements, not the English: a call said to have entered with no entry in the step's facts, a
call said to be waiting that the step's facts do not list, "asked again" where the call was already waiting, a total
of effects that is one step's increment, each is found from the facts alone."""

from __future__ import annotations

from harness.columns import REFERENCE, ROOT, known_columns
from harness.runner_side.judge.case import contradicted_in
from harness.runner_side.judge.said import (
    KINDS,
    AskedAgain,
    EffectsSoFar,
    Entered,
    NeverAskedAgain,
    ResumeFound,
    Says,
    StepEnded,
    Waiting,
    from_record,
)
from harness.scenarios import SCENARIO_DIR
from tests.harness.runner_side.judge.facts_builder import run, step

FRAMEWORKS = sorted(n for n in known_columns() if n != REFERENCE)

# A killed approval, a resume that found it gone and asked again, a second effect of the same call later on.
RUN = run(
    {},
    step("run", pending=["t1"]),
    step("approve", granted=["t1"], entered={"t1": 1}, executed={"t1": 1}, effects={"t1": 1}, killed=True),
    step("resume", resumed="awaiting_approval", pending=["t1"]),
    step("approve", granted=["t1"], entered={"t1": 1}, executed={"t1": 1}, effects={"t1": 1}),
)


def _why(statement: object) -> str | None:
    return statement.contradiction(RUN)  # type: ignore[attr-defined]


def test_statements_made_from_the_record_agree_with_it() -> None:
    for statement in (Entered.of(RUN, 3), EffectsSoFar.of(RUN, "t1", 3), Waiting.of(RUN, 2), StepEnded.of(RUN, 1),
                      AskedAgain("t1", 2), ResumeFound.of(RUN, 2)):
        assert _why(statement) is None, statement


def test_each_kind_of_false_statement_is_found() -> None:
    assert _why(EffectsSoFar("t1", 1, 3)) == "t1 had 2 effects in all after driver step 3"  # a step's increment said as the total
    assert _why(Entered(2, (("t1", 1),))) == "driver step 2 entered nothing"  # said to have run, no entry in the step
    assert _why(Entered(3, ())) == "driver step 3 entered {'t1': 1}"  # "nothing ran" where a call ran
    assert _why(Waiting(3, ("t1",))) == "after driver step 3 the run waited for nothing"  # "pending" for a call no longer waiting
    assert _why(AskedAgain("t1", 3)) == "t1 was not waiting after driver step 3"  # "asked again" with no request after it
    assert _why(NeverAskedAgain("t1", 2)) == "t1 waited again after driver step 2"
    assert _why(StepEnded(3, "refused")) == "driver step 3 ended completed"
    assert _why(ResumeFound(2, ("t1",))) == "the resume of driver step 2 found approved: none"


def test_asked_again_needs_a_new_question() -> None:
    """A call still waiting from the step before was not asked again; one waiting after a killed step was."""
    still = run({}, step("run", pending=["t1"]), step("reject", pending=["t1"]))
    assert AskedAgain("t1", 1).contradiction(still) == "t1 was already waiting after driver step 0: no new question"
    assert _why(AskedAgain("t1", 2)) is None  # step 1 was killed: step 2's question is new


def test_words_are_rendered_from_the_statements_and_stored_as_data() -> None:
    say = Says()
    sentence = f"after it: {say(EffectsSoFar.of(RUN, 't1', 3))}; {say(Entered.of(RUN, 2))}"
    assert sentence == "after it: t1 had 2 effects in all after driver step 3; in driver step 2 nothing ran"
    records = [s.record() for s in say.all()]
    assert [from_record(r) for r in records] == list(say.all())
    assert {r["says"] for r in records} <= set(KINDS)


def test_no_stored_statement_of_the_committed_evidence_is_contradicted_by_its_record() -> None:
    """Every reason of every framework column and mode: each statement checked against the facts of its record."""
    checked, found = contradicted_in(ROOT / "evidence", SCENARIO_DIR, FRAMEWORKS)
    assert not found, "\n".join(found[:20])
    assert checked >= 100, f"only {checked} statements stored: the rules that state trace facts no longer say them as data"


def test_an_approval_is_used_once_its_call_ran_and_open_until_then() -> None:
    """``approval_survives`` asks only about approvals not yet used at the kill: a call whose body ran under its approval
    (the kill landed later in its batch, or inside it) has none to lose; one approved and killed before it ran has."""
    from harness.runner_side.judge.facts import open_approvals

    ran = run({}, step("run", pending=["t1"]),
              step("approve", granted=["t1"], executed={"t1": 1, "n1": 1}, effects={"t1": 1}, killed=True))
    assert open_approvals(ran, 1) == []
    waiting = run({}, step("run", pending=["t1", "t2"]), step("approve", granted=["t1"], pending=["t2"]),
                  step("approve", granted=["t2"], executed={"t2": 1}, killed=True))
    assert open_approvals(waiting, 2) == ["t1"]
