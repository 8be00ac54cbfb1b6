"""The probes behind the findings: ``probes/<framework>/<scenario>.py``, run in the framework's pinned environment,
their printed counts compared with the column's ``defaults`` evidence (``wire`` for a probe that declares
``MODE = "wire"``: the framework's OpenAI-compatible model against a plain loopback server). ``probes/README.md``
states the contract.

A probe is named by what it shows: its file is its scenario (``<scenario>.py``; a sub-case ``<scenario>__<schedule>.py``;
a mode other than defaults ``<scenario>__<mode>.py``), and a file whose name is not the one its declarations give is
refused. A file whose name starts with ``_`` is not a probe: ``probes/<framework>/_kit.py`` is that framework's kit.

A probe declares ``SCENARIO`` and ``SHOWS`` as literals (read here with ``ast``: the framework is not
importable from the project's environment) and prints ``{"scenario", "counts"}`` as its last line (``harness/column_side/probes/kit.py``).
``SHOWS`` lists exactly the paths it prints (``side_effects.c1.effects``), so what a probe measures is known
without running it: ``evidence/FINDINGS.md`` links a probe to a finding only when a path it prints is one the
finding's reason accounts for.
"""

from __future__ import annotations

import ast
import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.columns import ROOT
from harness.runner_side.observe.observables import OBSERVABLES
from harness.runner_side.run.sandbox import clean_environment

PROBES_DIR = ROOT / "probes"
PROBE_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Probe:
    """One probe: its framework, its file (relative to the repository), the scenario key it reproduces and
    the dotted paths of the counts it prints (each into the framework's value of an observable)."""

    framework: str
    file: str
    scenario: str
    shows: tuple[str, ...]
    mode: str = "defaults"  # ``wire``: a probe of the framework's model client against a plain loopback server

class ProbeError(ValueError):
    """A probe file that does not declare what it shows."""


def declared_probes(root: Path = PROBES_DIR) -> list[Probe]:
    """Every probe under ``root``, sorted by file."""
    probes = []
    for path in sorted(p for p in root.glob("*/*.py") if not p.name.startswith("_")):  # ``_kit.py``: a framework's kit
        names = _literals(path)
        scenario, shows, mode = names.get("SCENARIO"), names.get("SHOWS"), names.get("MODE", "defaults")
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        if not isinstance(scenario, str) or not isinstance(shows, tuple) or not shows or any(
            not isinstance(path, str) or path.split(".")[0] not in OBSERVABLES for path in shows
        ):
            raise ProbeError(f"{where}: SCENARIO must be a string and SHOWS a non-empty tuple of the paths it prints, each starting with an observable")
        if mode not in ("defaults", "wire"):
            raise ProbeError(f"{where}: MODE must be 'defaults' (the default) or 'wire'")
        if path.stem != (named := probe_name(scenario, mode)):
            raise ProbeError(f"{where}: a probe is named by what it shows: SCENARIO {scenario!r} in mode {mode} is {named}.py")
        probes.append(Probe(path.parent.name, where, scenario, shows, mode))
    return probes


def probe_name(scenario: str, mode: str = "defaults") -> str:
    """The file name (without ``.py``) of the probe of ``scenario`` (a key: ``<scenario>`` or ``<scenario>@<schedule>``)
    in ``mode``: ``<scenario>``, ``<scenario>__<schedule>``, ``<scenario>__<mode>`` for a mode other than defaults."""
    return scenario.replace("@", "__") + ("" if mode == "defaults" else f"__{mode}")


def _literals(path: Path) -> dict[str, Any]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return found


def run_probe(probe: Probe, python: Path) -> dict[str, Any]:
    """Run one probe in its framework's interpreter and return its counts: as ``python probes/<framework>/<scenario>.py``
    runs it (its own folder first on ``sys.path``, where its ``_kit.py`` is), in a cleaned environment with neither
    ``PYTHON*`` variables nor the user's site packages (``-E -s``: ``-I`` but for the script's folder)."""
    with tempfile.TemporaryDirectory(prefix="probe-home-") as home:
        environment = {**clean_environment(Path(home)), "TMPDIR": home}  # whatever the probe leaves goes with ``home``
        done = subprocess.run([str(python), "-E", "-s", str(ROOT / probe.file)], cwd=ROOT, env=environment,
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise ProbeError(f"{probe.file} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    printed = json.loads(lines[-1])
    if printed.get("scenario") != probe.scenario or not printed.get("counts"):
        raise ProbeError(f"{probe.file} printed no counts for {probe.scenario}: {lines[-1]}")
    return dict(printed["counts"])


def disagreements(probe: Probe, measured: dict[str, Any], evidence: dict[str, Any]) -> list[str]:
    """Where the probe's counts differ from the column's evidence in the probe's mode (empty when they all agree)."""
    record = evidence["modes"].get(probe.mode, {}).get("scenarios", {}).get(probe.scenario)
    if record is None:
        return [f"no {probe.mode} record for {probe.scenario} in the evidence"]
    found = []
    for path, value in sorted(measured.items()):
        observable, *keys = path.split(".")
        if path not in probe.shows:
            found.append(f"{path}: printed but not in SHOWS")
            continue
        recorded = _at(record["columns"][observable]["framework"], keys)
        if recorded != value:
            found.append(f"{path}: probe {json.dumps(value)}, evidence {json.dumps(recorded)}")
    found += [f"{path}: in SHOWS but no count printed" for path in probe.shows if path not in measured]
    return found


def _at(value: Any, keys: list[str]) -> Any:
    for key in keys:
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return "<absent>"
    return value
