"""The crash sweep's rules: what a kill at every transition, one resume and the scenario's remaining steps did to one
column and mode (``evidence/sweep.json``), each read from the rows' counts against the column's own uninterrupted runs
(``harness.runner_side.explore.crash_sweep``). Each finding names its runs, its scenarios and the case it quotes: the
most repeated effect, or the first case in the rows' order."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from harness.runner_side.judge.registry import sweep_rule, sweep_rules


@dataclass(frozen=True)
class Crashes:
    """One column and mode's rows of the sweep (scenario id -> row)."""

    column: str
    mode: str
    rows: dict[str, dict[str, Any]]

    @property
    def runs(self) -> int:
        return sum(row["runs"] for row in self.rows.values())

    def hits(self, kind: str) -> list[tuple[str, dict[str, Any]]]:
        """Every entry of ``kind`` (``duplicates``, ``approvals_lost``, ``stuck``) with its scenario, in the rows' order."""
        return [(sid, entry) for sid, row in sorted(self.rows.items()) for entry in row[kind]]


@dataclass(frozen=True)
class CrashFinding:
    """A rule's finding on one column and mode: its runs, scenarios, the case it quotes and the sentence."""

    rule: str
    column: str
    mode: str
    runs: int
    scenarios: tuple[str, ...]
    case: dict[str, Any]
    text: str
    worst: tuple[str, ...] = ()
    """Every run as bad as the quoted one (``<job>`` or ``<job>@<schedule>``): a probe of any of them shows the finding."""


def _runs(hits: list[tuple[str, dict[str, Any]]]) -> int:
    """How many runs the entries come from (a run with two repeated calls is one run)."""
    return len({(sid, e["kill_point"], e.get("schedule")) for sid, e in hits})


def _times(n: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


def _where(sid: str, entry: dict[str, Any]) -> str:
    return f"`{sid}` killed at `{entry['kill_point']}`" + (f" (schedule `{entry['schedule']}`)" if "schedule" in entry else "")


def _finding(
    rule: str, crashes: Crashes, hits: list[tuple[str, dict[str, Any]]], quoted: tuple[str, dict[str, Any]], what: str, case: str,
    worst: list[dict[str, Any]],
) -> CrashFinding:
    scenarios = tuple(sorted({sid for sid, _ in hits}))
    text = f"{_runs(hits)} of {crashes.runs} runs {what}, in {len(scenarios)} scenario{'s' if len(scenarios) != 1 else ''}; {case}"
    runs = tuple(sorted({e["job"] + (f"@{e['schedule']}" if "schedule" in e else "") for e in worst}))
    return CrashFinding(rule, crashes.column, crashes.mode, _runs(hits), scenarios, {"scenario": quoted[0], **quoted[1]}, text, runs)


@sweep_rule("effect_repeated_after_kill", "Takes a side effect more often when the process dies and the run resumes than uninterrupted",
            stage="idempotency")
def effect_repeated_after_kill(crashes: Crashes) -> Iterator[CrashFinding]:
    """A call took effect more often than in any of the column's uninterrupted runs of the scenario (the resume ran it
    again, or ran a call the uninterrupted run never ran). Quoted: the most effects above uninterrupted, first in the
    rows' order among equals."""
    hits = crashes.hits("duplicates")
    if not hits:
        return
    sid, entry = max(hits, key=lambda h: h[1]["extra_effects"])  # max keeps the first of equals
    before = max(u["effects"].get(entry["call_id"], 0) for u in crashes.rows[sid]["uninterrupted"].values())
    case = f"the most: {_where(sid, entry)}: `{entry['call_id']}` took effect {_times(entry['effects'])} ({_times(before)} uninterrupted)"
    worst = [e for _, e in hits if e["extra_effects"] == entry["extra_effects"]]
    yield _finding("effect_repeated_after_kill", crashes, hits, (sid, entry), "took a side effect more often than uninterrupted", case, worst)


@sweep_rule("approval_asked_again_after_kill", "Asks again for an approval it was given before the process died", stage="approval")
def approval_asked_again_after_kill(crashes: Crashes) -> Iterator[CrashFinding]:
    """A call approved before the kill was asked about again after it, more often than the uninterrupted run asked about
    it from that step on: the decision did not survive the crash. Quoted: the first in the rows' order."""
    yield from _first(crashes, "approvals_lost", "approval_asked_again_after_kill", "asked again about a call approved before the kill",
                      lambda e: f"`{e['call_id']}`, approved before the kill, was asked about again")  # fmt: skip


@sweep_rule("stuck_after_kill", "Ends in an error or a crash after the process dies and the run resumes, where uninterrupted it did not",
            stage="checkpoint")
def stuck_after_kill(crashes: Crashes) -> Iterator[CrashFinding]:
    """A run ended ``error``, ``stalled`` or ``crashed`` of a state the column found (not by a kill in its last step), after
    its resume and remaining steps, where no uninterrupted run of the scenario ended so: neither resumed nor ended in a
    named status. Quoted: the first in the rows' order."""
    yield from _first(crashes, "stuck", "stuck_after_kill", "ended in an error or a crash where no uninterrupted run did",
                      lambda e: f"ended `{e['status']}`")  # fmt: skip


def _first(crashes: Crashes, kind: str, rule: str, what: str, said: Callable[[dict[str, Any]], str]) -> Iterator[CrashFinding]:
    """The finding of a rule whose every entry of ``kind`` is as bad as another: the first quoted, any of them probed."""
    hits = crashes.hits(kind)
    if hits:
        sid, entry = hits[0]
        yield _finding(rule, crashes, hits, hits[0], what, f"the first: {_where(sid, entry)}: {said(entry)}", [e for _, e in hits])


def crash_findings(sweep: dict[str, Any]) -> list[CrashFinding]:
    """Every finding of the crash sweep's rules on ``sweep`` (``evidence/sweep.json``), by rule, column and mode."""
    found = []
    for _, (_rule, function) in sweep_rules().items():
        for column, modes in sorted(sweep["columns"].items()):
            for mode, rows in sorted(modes.items()):
                found += list(function(Crashes(column, mode, rows)))
    return found
