"""The probe runner reads probes named by what they show (``probes/README.md``): a file whose name is not its
scenario's (and schedule's, and mode's) is refused, and a framework's ``_kit.py`` is not a probe. A probe's ``PINS``
name the framework's versions it runs at, each a column; a version that is no pin is refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from harness.columns import Column
from harness.runner_side.publish.probes import ProbeError, declared_probes, probe_name, probe_runs, probes_of, selected_columns


def _probe(root: Path, name: str, scenario: str, mode: str | None = None) -> None:
    (root / "langgraph").mkdir(parents=True, exist_ok=True)
    declared = f"SCENARIO = {scenario!r}\nSHOWS = ('side_effects.c1.effects',)\n" + (f"MODE = {mode!r}\n" if mode else "")
    (root / "langgraph" / f"{name}.py").write_text(declared, encoding="utf-8")


@pytest.mark.parametrize(("scenario", "mode", "name"), [
    ("always_deny", "defaults", "always_deny"),
    ("kill_before_effect@write_held", "defaults", "kill_before_effect__write_held"),
    ("wire_client_error", "wire", "wire_client_error__wire"),
])  # fmt: skip
def test_a_probe_is_named_by_its_scenario_schedule_and_mode(tmp_path: Path, scenario: str, mode: str, name: str) -> None:
    assert probe_name(scenario, mode) == name
    _probe(tmp_path, name, scenario, None if mode == "defaults" else mode)
    (tmp_path / "langgraph" / "_kit.py").write_text("def model(): ...\n", encoding="utf-8")  # the kit: no declarations, not a probe
    [probe] = declared_probes(tmp_path)
    assert (probe.scenario, probe.mode, Path(probe.file).name) == (scenario, mode, f"{name}.py")


def test_a_probe_named_otherwise_is_refused_with_the_name_it_should_have(tmp_path: Path) -> None:
    _probe(tmp_path, "denied_tool_ran", "always_deny")
    with pytest.raises(ProbeError, match=r"denied_tool_ran\.py: a probe is named by what it shows: .* is always_deny\.py"):
        declared_probes(tmp_path)


def _pinned(tmp_path: Path) -> dict[str, Column]:
    """A framework ``fw`` at its default pin 2.0 (``requirements.in``) and at the extra pin 1.0: its two columns."""
    adapter = tmp_path / "adapters" / "fw"
    adapter.mkdir(parents=True)
    (adapter / "requirements.in").write_text("fw-core==2.0\n", encoding="utf-8")
    default = Column("fw", "adapters.fw.column:FwColumn", "isolated", "fw", lock_dir=adapter)
    return {c.name: c for c in (default, dataclasses.replace(default, name="fw@1.0"))}


def _pins_probe(root: Path, scenario: str, pins: tuple[str, ...] | None) -> None:
    (root / "fw").mkdir(parents=True, exist_ok=True)
    declared = f"SCENARIO = {scenario!r}\nSHOWS = ('side_effects.c1.effects',)\n" + (f"PINS = {pins!r}\n" if pins is not None else "")
    (root / "fw" / f"{scenario}.py").write_text(declared, encoding="utf-8")


def test_a_pins_version_that_is_no_pin_of_the_framework_is_refused(tmp_path: Path) -> None:
    registry = _pinned(tmp_path)
    _pins_probe(tmp_path / "probes", "always_deny", ("2.0", "3.0"))
    with pytest.raises(ProbeError, match=r"fw/always_deny\.py: PINS names '3\.0', which is no pin of fw: .*its pins: 1\.0, 2\.0"):
        declared_probes(tmp_path / "probes", registry)


@pytest.mark.parametrize("pins", [(), ("2.0", "2.0"), ["2.0"]])
def test_pins_must_be_a_tuple_of_distinct_versions(tmp_path: Path, pins: object) -> None:
    _pins_probe(tmp_path / "probes", "always_deny", pins)  # type: ignore[arg-type]
    with pytest.raises(ProbeError, match=r"always_deny\.py: PINS must be"):
        declared_probes(tmp_path / "probes", _pinned(tmp_path))


def test_probes_of_a_column_are_those_that_run_at_its_pin(tmp_path: Path) -> None:
    registry = _pinned(tmp_path)
    for scenario, pins in (("always_deny", None), ("step_bound", ("2.0", "1.0")), ("duplicate_event", ("1.0",))):
        _pins_probe(tmp_path / "probes", scenario, pins)
    probes = declared_probes(tmp_path / "probes", registry)
    assert {p.scenario: p.columns(registry) for p in probes} == {
        "always_deny": ["fw"], "duplicate_event": ["fw@1.0"], "step_bound": ["fw", "fw@1.0"]}
    assert [p.scenario for p in probes_of(probes, "fw", registry)] == ["always_deny", "step_bound"]
    assert [p.scenario for p in probes_of(probes, "fw@1.0", registry)] == ["duplicate_event", "step_bound"]
    # what scripts/check_probes.py runs: a framework, every pin; framework@version, that pin (the default's included)
    assert [(c, p.scenario) for c, p in probe_runs(probes, registry, selected_columns(["fw@1.0"], registry))] == [
        ("fw@1.0", "duplicate_event"), ("fw@1.0", "step_bound")]
    assert selected_columns(["fw@2.0"], registry) == {"fw"} and selected_columns(["fw"], registry) == {"fw", "fw@1.0"}
    assert len(probe_runs(probes, registry, selected_columns([], registry))) == 4
    for wrong in ("fw@3.0", "other"):
        with pytest.raises(ValueError, match=wrong):
            selected_columns([wrong], registry)
