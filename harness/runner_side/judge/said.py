"""What a reason says about a trace, as data: each statement renders its own words and is checked against the record.

A rule that states a fact of a run (a call entered at a step, nothing ran, a call's effects in all, the calls waiting
after a step, a call asked about again, how a step or the run ended) builds a statement and puts its ``text()`` in its
sentence, so the words come from the data. The reason carries the statements (``Reason.says``), the evidence stores
them with the reason, and ``contradictions`` checks each against the facts of the run it names: a statement the trace
contradicts is a defect of the rule that made it, found by ``tests/harness/runner_side/judge/test_sentences.py`` over every stored
reason and reported by every comparison that makes one.

The facts read are the record's own (``harness.runner_side.observe.observation.step_facts``): per driver step the ledger counts
it added (``entered``: the tool function, ``executed``: its body, ``effects``), the calls left ``pending``, the
approvals ``granted``, whether the worker was ``killed``; and each step's status.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from harness.runner_side.judge.values import Run, final_status

if TYPE_CHECKING:  # a case is built with the facts, which build statements: at run time a statement needs only the runs
    from harness.runner_side.judge.case import Case


def _times(n: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


@dataclass(frozen=True)
class Statement:
    """One fact a reason states about a run (``run``: ``framework`` or ``engine``)."""

    kind: ClassVar[str] = ""

    def text(self) -> str:
        raise NotImplementedError

    def contradiction(self, run: Run) -> str | None:
        """Why the run's record contradicts the statement, or None when it agrees."""
        raise NotImplementedError

    def record(self) -> dict[str, Any]:
        """The statement as the evidence stores it (JSON's lists where the object has tuples)."""
        return {"says": self.kind, **{k: _listed(v) for k, v in asdict(self).items()}}


def _listed(value: Any) -> Any:
    return [_listed(v) for v in value] if isinstance(value, tuple | list) else value


def _fact(run: Run, step: int) -> dict[str, Any] | None:
    return run.facts[step] if 0 <= step < len(run.facts) else None


@dataclass(frozen=True)
class Entered(Statement):
    """In driver ``step`` each call of ``calls`` entered its tool that many times, and no other call entered: "nothing
    ran" when ``calls`` is empty."""

    kind: ClassVar[str] = "entered"
    step: int
    calls: tuple[tuple[str, int], ...]
    run: str = "framework"

    @classmethod
    def of(cls, run: Run, step: int, name: str = "framework") -> Entered:
        """What the record says entered at ``step``: the statement that holds."""
        fact = _fact(run, step) or {}
        return cls(step, tuple(sorted(fact.get("entered", {}).items())), name)

    def text(self) -> str:
        return f"in driver step {self.step} " + (", ".join(f"{c} entered {_times(n)}" for c, n in self.calls) or "nothing ran")

    def contradiction(self, run: Run) -> str | None:
        fact = _fact(run, self.step)
        if fact is None:
            return f"there is no driver step {self.step}"
        found = tuple(sorted(fact.get("entered", {}).items()))
        return None if found == tuple(self.calls) else f"driver step {self.step} entered {dict(found) or 'nothing'}"


@dataclass(frozen=True)
class EffectsSoFar(Statement):
    """``call`` had ``effects`` effects in all after driver ``step`` (the ledger's total, not the step's increment)."""

    kind: ClassVar[str] = "effects_so_far"
    call: str
    effects: int
    step: int
    run: str = "framework"

    @classmethod
    def of(cls, run: Run, call: str, step: int, name: str = "framework") -> EffectsSoFar:
        return cls(call, _total(run, call, step), step, name)

    def text(self) -> str:
        return f"{self.call} had {self.effects} effect{'' if self.effects == 1 else 's'} in all after driver step {self.step}"

    def contradiction(self, run: Run) -> str | None:
        if _fact(run, self.step) is None and self.step >= 0:
            return f"there is no driver step {self.step}"
        total = _total(run, self.call, self.step)
        return None if total == self.effects else f"{self.call} had {total} effects in all after driver step {self.step}"


def _total(run: Run, call: str, step: int, key: str = "effects") -> int:
    return sum(f.get(key, {}).get(call, 0) for f in run.facts if f["step"] <= step)


@dataclass(frozen=True)
class ExecutedSoFar(Statement):
    """``call``'s body was entered ``entries`` times in all by the end of driver ``step`` (the ledger's executor
    entries), with ``effects`` effects."""

    kind: ClassVar[str] = "executed_so_far"
    call: str
    entries: int
    effects: int
    step: int
    run: str = "framework"

    @classmethod
    def of(cls, run: Run, call: str, step: int, name: str = "framework") -> ExecutedSoFar:
        return cls(call, _total(run, call, step, "executed"), _total(run, call, step), step, name)

    def text(self) -> str:
        effects = "no effect" if not self.effects else f"{self.effects} effect{'' if self.effects == 1 else 's'}"
        return f"{self.call} had run {_times(self.entries)} with {effects} by the end of driver step {self.step}"

    def contradiction(self, run: Run) -> str | None:
        if _fact(run, self.step) is None and self.step >= 0:
            return f"there is no driver step {self.step}"
        found = (_total(run, self.call, self.step, "executed"), _total(run, self.call, self.step))
        return None if found == (self.entries, self.effects) else f"{self.call} had {found[0]} executor entries and {found[1]} effects after driver step {self.step}"


@dataclass(frozen=True)
class Waiting(Statement):
    """After driver ``step`` the run was waiting for a decision on exactly ``calls`` ("nothing" when empty)."""

    kind: ClassVar[str] = "waiting"
    step: int
    calls: tuple[str, ...]
    run: str = "framework"

    @classmethod
    def of(cls, run: Run, step: int, name: str = "framework") -> Waiting:
        return cls(step, tuple(sorted((_fact(run, step) or {}).get("pending", ()))), name)

    def text(self) -> str:
        return f"waiting after driver step {self.step}: {', '.join(self.calls) or 'nothing'}"

    def contradiction(self, run: Run) -> str | None:
        fact = _fact(run, self.step)
        if fact is None:
            return f"there is no driver step {self.step}"
        found = tuple(sorted(fact.get("pending", ())))
        return None if found == tuple(sorted(self.calls)) else f"after driver step {self.step} the run waited for {', '.join(found) or 'nothing'}"


@dataclass(frozen=True)
class AskedAgain(Statement):
    """After driver ``step`` the run waited for a decision on ``call`` again: a new question, the call not waiting
    after the step before (or that step killed)."""

    kind: ClassVar[str] = "asked_again"
    call: str
    step: int
    run: str = "framework"

    def text(self) -> str:
        return f"the run asked about {self.call} again at driver step {self.step}"

    def contradiction(self, run: Run) -> str | None:
        fact, before = _fact(run, self.step), _fact(run, self.step - 1)
        if fact is None:
            return f"there is no driver step {self.step}"
        if self.call not in fact.get("pending", ()):
            return f"{self.call} was not waiting after driver step {self.step}"
        if before is not None and self.call in before.get("pending", ()) and not before.get("killed"):
            return f"{self.call} was already waiting after driver step {self.step - 1}: no new question"
        return None


@dataclass(frozen=True)
class NeverAskedAgain(Statement):
    """From driver ``step`` on, the run never waited for a decision on ``call``."""

    kind: ClassVar[str] = "never_asked_again"
    call: str
    step: int
    run: str = "framework"

    def text(self) -> str:
        return f"the run never asked about {self.call} again"

    def contradiction(self, run: Run) -> str | None:
        again = [f["step"] for f in run.facts if f["step"] >= self.step and self.call in f.get("pending", ())]
        return f"{self.call} waited again after driver step {again[0]}" if again else None


@dataclass(frozen=True)
class ResumeFound(Statement):
    """The resume of driver ``step`` found exactly ``calls`` approved (as the column's resume reported them)."""

    kind: ClassVar[str] = "resume_found"
    step: int
    calls: tuple[str, ...]
    run: str = "framework"

    @classmethod
    def of(cls, run: Run, step: int, name: str = "framework") -> ResumeFound:
        return cls(step, tuple((_fact(run, step) or {}).get("resumed_approved", ())), name)

    def text(self) -> str:
        return f"the resume at driver step {self.step} found approved: {', '.join(self.calls) or 'none'}"

    def contradiction(self, run: Run) -> str | None:
        fact = _fact(run, self.step)
        if fact is None or not fact.get("resumed"):
            return f"driver step {self.step} resumed nothing"
        found = tuple(fact.get("resumed_approved", ()))
        return None if found == tuple(self.calls) else f"the resume of driver step {self.step} found approved: {', '.join(found) or 'none'}"


@dataclass(frozen=True)
class StepEnded(Statement):
    """Driver ``step`` ended ``status``."""

    kind: ClassVar[str] = "step_ended"
    step: int
    status: str
    run: str = "framework"

    @classmethod
    def of(cls, run: Run, step: int, name: str = "framework") -> StepEnded:
        return cls(step, str(run.steps[step]["status"]), name)

    def text(self) -> str:
        return f"driver step {self.step} ended {self.status}"

    def contradiction(self, run: Run) -> str | None:
        if not 0 <= self.step < len(run.steps):
            return f"there is no driver step {self.step}"
        found = run.steps[self.step]["status"]
        return None if found == self.status else f"driver step {self.step} ended {found}"


@dataclass(frozen=True)
class Answered(Statement):
    """In driver ``step`` the run delivered to the model a result for ``call`` with ``status`` (the column's own
    status word: ``ok``, ``error``, ``rejected``, ``replayed``...)."""

    kind: ClassVar[str] = "answered"
    step: int
    call: str
    status: str
    run: str = "framework"

    def text(self) -> str:
        return f"answered {self.call} with a result of status {self.status} in driver step {self.step}"

    def contradiction(self, run: Run) -> str | None:
        fact = _fact(run, self.step)
        if fact is None:
            return f"there is no driver step {self.step}"
        found = [r[1] for r in fact.get("results", ()) if r[0] == self.call]
        return None if self.status in found else f"driver step {self.step} delivered for {self.call}: {', '.join(found) or 'nothing'}"


@dataclass(frozen=True)
class RunEnded(Statement):
    """The run ended ``status`` (its last step's status, the session's where that differs, ``awaiting_approval`` while
    a call still waits: ``values.final_status``)."""

    kind: ClassVar[str] = "run_ended"
    status: str
    run: str = "framework"

    def text(self) -> str:
        return f"the run ended {self.status}"

    def contradiction(self, run: Run) -> str | None:
        found = final_status(run)
        return None if found == self.status else f"the run ended {found}"


@dataclass(frozen=True)
class Killed(Statement):
    """The worker of driver ``step`` was killed (``killed``: True) or was not (False)."""

    kind: ClassVar[str] = "killed"
    step: int
    killed: bool = True
    run: str = "framework"

    def text(self) -> str:
        return f"killed at driver step {self.step}" if self.killed else f"not killed at driver step {self.step}"

    def contradiction(self, run: Run) -> str | None:
        fact = _fact(run, self.step)
        if fact is None:
            return f"there is no driver step {self.step}"
        return None if bool(fact.get("killed")) == self.killed else f"driver step {self.step} was {'' if fact.get('killed') else 'not '}killed"


KINDS: dict[str, type[Statement]] = {k.kind: k for k in (
    Entered, EffectsSoFar, ExecutedSoFar, Waiting, AskedAgain, NeverAskedAgain, ResumeFound, StepEnded, RunEnded, Killed, Answered)}


def from_record(record: dict[str, Any]) -> Statement:
    """A stored statement back as its object (lists back to the tuples they were)."""
    kind = KINDS[record["says"]]
    values = {f.name: record[f.name] for f in fields(kind)}
    for key in ("calls",):
        if key in values:
            values[key] = tuple(tuple(c) if isinstance(c, list) else c for c in values[key])
    return kind(**values)


def contradictions(case: Case, says: list[dict[str, Any]] | tuple[Statement, ...]) -> list[str]:
    """Every statement of a reason (objects, or as the evidence stores them) that the case's records contradict, each
    as ``<what was said>: <what the record shows>``."""
    out = []
    for said in says:
        statement = said if isinstance(said, Statement) else from_record(said)
        run = case.framework if statement.run == "framework" else case.engine  # type: ignore[attr-defined]
        if (why := statement.contradiction(run)) is not None:
            out.append(f"{statement.kind} {statement.text()!r}: {why}")
    return out


class Says:
    """The statements of one reason as its rule writes them: ``say(statement)`` keeps the statement and returns its
    words for the sentence."""

    def __init__(self) -> None:
        self.statements: list[Statement] = []

    def __call__(self, statement: Statement) -> str:
        self.statements.append(statement)
        return statement.text()

    def all(self) -> tuple[Statement, ...]:
        return tuple(dict.fromkeys(self.statements))
