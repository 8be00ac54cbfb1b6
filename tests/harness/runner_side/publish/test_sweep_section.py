"""The crash sweep as FINDINGS.md, the report and a sweep probe read it: each finding's sentence is what its rows'
entries say (runs, scenarios, the case quoted), a finding links the sweep probe of the run it quotes, and a sweep
probe is compared with what the rows say of that run, and nothing else."""

from __future__ import annotations

from typing import Any

from harness.runner_side.judge.registry import sweep_rules
from harness.runner_side.judge.rules.crashes import crash_findings
from harness.runner_side.publish.probes import Probe, disagreements, sweep_counts
from harness.runner_side.publish.sections.sweep import sweep_html, sweep_lines


def _row(**found: list[dict[str, Any]]) -> dict[str, Any]:
    empty = {k: [] for k in ("duplicates", "approvals_lost", "stuck", "not_reached", "errors")}
    return {"uninterrupted": {"plain": {"status": "completed", "effects": {"c1": 1}}}, "kill_points": ["a", "b", "c"], "runs": 3,
            "exactly_once": 2, "ended": {"completed": 3}, **empty, **found}  # fmt: skip


DUPLICATE = {"job": "s__after_c1", "kill_point": "tool.kill_after_effect c1", "call_id": "c1", "effects": 3, "extra_effects": 2}
LOST = {"job": "t__turn_1", "kill_point": "model.kill_before_turn turn 1", "schedule": "write_held", "call_id": "c1"}
SWEEP = {"columns": {"fw": {"defaults": {"s": _row(duplicates=[DUPLICATE, {**DUPLICATE, "job": "s__turn_1", "kill_point": "x", "effects": 2, "extra_effects": 1}]),
                                         "t": _row(approvals_lost=[LOST], stuck=[{**LOST, "status": "error"}])},
                            "contract": {"s": _row()}}}}  # fmt: skip


def test_each_finding_says_what_its_entries_say() -> None:
    found = {(f.rule, f.mode): f for f in crash_findings(SWEEP)}
    assert set(found) == {("effect_repeated_after_kill", "defaults"), ("approval_asked_again_after_kill", "defaults"), ("stuck_after_kill", "defaults")}
    repeated = found[("effect_repeated_after_kill", "defaults")]
    assert repeated.runs == 2 and repeated.scenarios == ("s",)
    assert repeated.text == ("2 of 6 runs took a side effect more often than uninterrupted, in 1 scenario; the most: `s` killed at "
                             "`tool.kill_after_effect c1`: `c1` took effect 3 times (once uninterrupted)")  # fmt: skip
    assert "`t` killed at `model.kill_before_turn turn 1` (schedule `write_held`): ended `error`" in found[("stuck_after_kill", "defaults")].text


def test_the_section_counts_the_rows_and_links_the_probe_of_the_quoted_run() -> None:
    probe = Probe("fw", "probes/fw/s__after_c1__sweep.py", "s__after_c1", ("side_effects.c1.effects",), "sweep")
    lines = sweep_lines(SWEEP, [probe])
    assert "| fw | defaults | 2 | 6 | 6 | 4 | 2 | 1 | 1 | 0 | 0 |" in lines
    assert any(line.startswith("- **fw**, defaults (probe: [s__after_c1__sweep.py](../probes/fw/s__after_c1__sweep.py)): 2 of 6 runs") for line in lines)
    assert any("(probe: no probe yet)" in line for line in lines)  # the approval asked again: no probe quotes that run
    assert [line for line in lines if line.startswith("### ")] == [f"### {r.title} (`{i}`)" for i, (r, _) in sweep_rules().items()]
    assert "probes/fw/s__after_c1__sweep.py" in sweep_html(SWEEP, [probe])
    assert "run <code>python scripts/sweep.py</code>" in sweep_html(None, [])


def test_a_sweep_probe_agrees_only_with_what_the_rows_say_of_its_run() -> None:
    assert sweep_counts(SWEEP, "fw", "s__after_c1") == {"side_effects.c1.effects": 3}
    assert sweep_counts(SWEEP, "fw", "t__turn_1@write_held") == {"pre_approval_state.asked_again.c1": True, "status": "error"}
    probe = Probe("fw", "probes/fw/s__after_c1__sweep.py", "s__after_c1", ("side_effects.c1.effects",), "sweep")
    assert disagreements(probe, {"side_effects.c1.effects": 3}, {}, SWEEP, "fw") == []
    assert disagreements(probe, {"side_effects.c1.effects": 2}, {}, SWEEP, "fw") == ["side_effects.c1.effects: probe 2, sweep 3"]
    other = Probe("fw", "probes/fw/s__before_c1__sweep.py", "s__before_c1", ("side_effects.c1.effects",), "sweep")
    assert disagreements(other, {"side_effects.c1.effects": 2}, {}, SWEEP, "fw") == ["the sweep's rows hold no finding on the run s__before_c1"]
    lost = Probe("fw", "probes/fw/t__turn_1__write_held__sweep.py", "t__turn_1@write_held", ("status",), "sweep")
    assert disagreements(lost, {"status": "error"}, {}, SWEEP, "fw") == []  # SHOWS what it shows: the approval asked again is not its claim
    assert disagreements(lost, {"status": "error", "side_effects.c1.effects": 1}, {}, SWEEP, "fw") == ["side_effects.c1.effects: printed but not in SHOWS"]


def test_every_framework_with_a_crash_finding_in_defaults_has_a_probe_of_its_worst_case() -> None:
    """The worst case per framework: the first finding of a framework's defaults rows (repeated effects before approvals
    asked again before stuck runs) links a sweep probe that reproduces one of its worst runs."""
    import json

    from harness.columns import ROOT
    from harness.runner_side.publish.probes import declared_probes
    from harness.runner_side.publish.sections.sweep import quoting

    sweep = json.loads((ROOT / "evidence" / "sweep.json").read_text(encoding="utf-8"))
    firsts: dict[str, Any] = {}
    for finding in crash_findings(sweep):
        if finding.mode == "defaults":
            firsts.setdefault(finding.column, finding)
    assert firsts, "the committed sweep has no defaults finding"
    probes = declared_probes()
    missing = sorted(column for column, finding in firsts.items() if quoting(probes, finding) is None)
    assert missing == []


def test_the_committed_rows_hold_their_shape_and_the_contracts_columns_take_every_effect_once() -> None:
    """``evidence/sweep.json`` as docs/sweep.md describes it; the engine and the local state graph took no effect beyond
    their uninterrupted runs, asked nothing again, ended stuck nowhere, and every kill of theirs fired."""
    import json

    from harness.columns import ROOT

    sweep = json.loads((ROOT / "evidence" / "sweep.json").read_text(encoding="utf-8"))
    assert set(sweep) == {"columns"}  # every column measured
    kinds = ("duplicates", "approvals_lost", "stuck", "not_reached", "errors")
    for column, modes in sweep["columns"].items():
        for mode, rows in modes.items():
            for sid, row in rows.items():
                assert set(row) == {"uninterrupted", "kill_points", "runs", "exactly_once", "ended", *kinds}, (column, mode, sid)
                assert len(row["kill_points"]) <= row["runs"] == sum(row["ended"].values()) and row["exactly_once"] <= row["runs"]
                assert all({"job", "kill_point"} <= set(e) and e["kill_point"] in row["kill_points"] for k in kinds for e in row[k])
    for column in ("handwritten", "local_state_graph"):
        rows = sweep["columns"][column]["contract"]
        assert all(r["exactly_once"] == r["runs"] and not any(r[k] for k in kinds) for r in rows.values()), column
        assert sum(r["runs"] for r in rows.values()) > 200
