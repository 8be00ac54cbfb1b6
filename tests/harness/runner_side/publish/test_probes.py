"""The probe runner reads probes named by what they show (``probes/README.md``): a file whose name is not its
scenario's (and schedule's, and mode's) is refused, and a framework's ``_kit.py`` is not a probe."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.runner_side.publish.probes import ProbeError, declared_probes, probe_name


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
