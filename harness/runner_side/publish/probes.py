"""The probes behind the findings: ``probes/<framework>/<scenario>.py``, run in the framework's pinned environment,
their printed counts compared with the column's ``defaults`` evidence (``wire`` for a probe that declares
``MODE = "wire"``: the framework's OpenAI-compatible model against a plain loopback server; ``mcp`` for ``MODE = "mcp"``:
its MCP client against a small MCP server of the probe's own). ``probes/README.md``
states the contract.

A probe is named by what it shows: its file is its scenario (``<scenario>.py``; a sub-case ``<scenario>__<schedule>.py``;
a mode other than defaults ``<scenario>__<mode>.py``), and a file whose name is not the one its declarations give is
refused. A file whose name starts with ``_`` is not a probe: ``probes/<framework>/_kit.py`` is that framework's kit.

A probe declares ``SCENARIO`` and ``SHOWS`` (and ``PINS``, the versions of its framework it runs at, when not the
default pin alone: ``PINS = ("1.2.24", "0.6.11")``; each names a column, ``harness.runner_side.run.environments.column_at``, and a version
that is no pin of the framework is refused) as literals (read here with ``ast``: the framework is not
importable from the project's environment) and prints ``{"scenario", "counts"}`` as its last line (``harness/column_side/probes/kit.py``).
A probe that runs at several pins is run in each pin's column and compared with that column's evidence (``Probe.columns``,
``probes_of``).
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

from harness.columns import PIN_SEPARATOR, ROOT, Column, known_columns
from harness.runner_side.observe.observables import OBSERVABLES
from harness.runner_side.run.environments import column_at
from harness.runner_side.run.sandbox import clean_environment

PROBES_DIR = ROOT / "probes"
CONSTANTS = "constants"
"""The first part of a printed path that names a framework constant (``constants.step_limit``), compared with the value
the column read in its environment (the evidence's ``constants``), not with a cell."""
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
    pins: tuple[str, ...] = ()  # the versions it runs at (``PINS``); empty: the framework's default pin alone

    def columns(self, registry: dict[str, Column]) -> list[str]:
        """The columns this probe runs in: its framework's column at each of its pins (the default column when none)."""
        if not self.pins:
            return [self.framework]
        return [column_at(registry, self.framework, pin).name for pin in self.pins]


def probes_of(probes: list[Probe], column: str, registry: dict[str, Column]) -> list[Probe]:
    """The probes that run in ``column`` (``langgraph@0.6.11``: the probes of ``probes/langgraph/`` whose ``PINS`` name 0.6.11)."""
    return [p for p in probes if p.framework == registry[column].adapter and column in p.columns(registry)]


def selected_columns(arguments: list[str], registry: dict[str, Column]) -> set[str] | None:
    """The columns ``scripts/check_probes.py``'s arguments name (None: no argument, every column): a framework
    (``langgraph``), each of its columns; ``framework@version`` (``langgraph@0.6.11``, or ``langgraph@1.2.24``, the
    default pin), its column at that version. ValueError naming an argument that is neither."""
    if not arguments:
        return None
    chosen = set()
    for argument in arguments:
        framework, _, version = argument.partition(PIN_SEPARATOR)
        if version:
            try:
                chosen.add(column_at(registry, framework, version).name)
            except KeyError as error:
                raise ValueError(f"{argument}: {error.args[0]}") from None
        elif found := [name for name, column in registry.items() if column.adapter == framework]:
            chosen.update(found)
        else:
            raise ValueError(f"{argument}: no such framework (known: {', '.join(sorted({c.adapter for c in registry.values()}))})")
    return chosen


def probe_runs(probes: list[Probe], registry: dict[str, Column], chosen: set[str] | None = None) -> list[tuple[str, Probe]]:
    """One run per probe and column it runs at (among ``chosen``; None: all), ordered by column, then file."""
    runs = [(column, probe) for probe in probes for column in probe.columns(registry) if chosen is None or column in chosen]
    return sorted(runs, key=lambda run: (run[0], run[1].file))


class ProbeError(ValueError):
    """A probe file that does not declare what it shows."""


def declared_probes(root: Path = PROBES_DIR, registry: dict[str, Column] | None = None) -> list[Probe]:
    """Every probe under ``root``, sorted by file; each ``PINS`` version must be a pin of its framework among the
    columns of ``registry`` (default: ``known_columns()``)."""
    registry = known_columns() if registry is None else registry
    probes = []
    for path in sorted(p for p in root.glob("*/*.py") if not p.name.startswith("_")):  # ``_kit.py``: a framework's kit
        names = _literals(path)
        scenario, shows, mode, pins = names.get("SCENARIO"), names.get("SHOWS"), names.get("MODE", "defaults"), names.get("PINS", ())
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        if not isinstance(scenario, str) or not isinstance(shows, tuple) or not shows or any(
            not isinstance(path, str) or path.split(".")[0] not in (*OBSERVABLES, CONSTANTS) for path in shows
        ):
            raise ProbeError(f"{where}: SCENARIO must be a string and SHOWS a non-empty tuple of the paths it prints, each starting with an "
                             f"observable (or '{CONSTANTS}.', a framework constant measured with the framework alone)")
        if not isinstance(pins, tuple) or ("PINS" in names and not pins) or not all(isinstance(p, str) for p in pins) or len(set(pins)) < len(pins):
            raise ProbeError(f"{where}: PINS must be a non-empty tuple of the distinct versions it runs at (its framework's default pin when absent)")
        for pin in pins:
            try:
                column_at(registry, path.parent.name, pin)
            except KeyError as error:
                raise ProbeError(f"{where}: PINS names {pin!r}, which is no pin of {path.parent.name}: {error.args[0]}") from None
        if mode not in ("defaults", "wire", "mcp", "sweep"):
            raise ProbeError(f"{where}: MODE must be 'defaults' (the default), 'wire', 'mcp' or 'sweep'")
        if path.stem != (named := probe_name(scenario, mode)):
            raise ProbeError(f"{where}: a probe is named by what it shows: SCENARIO {scenario!r} in mode {mode} is {named}.py")
        probes.append(Probe(path.parent.name, where, scenario, shows, mode, pins))
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


def disagreements(probe: Probe, measured: dict[str, Any], evidence: dict[str, Any], sweep: dict[str, Any] | None = None, column: str = "") -> list[str]:
    """Where the probe's counts differ from the column's evidence in the probe's mode (empty when they all agree); a
    sweep probe's, from what the crash sweep's rows (``sweep``) say of that job run in ``column``'s defaults."""
    if probe.mode == "sweep":
        return _sweep_disagreements(probe, measured, sweep_counts(sweep or {}, column or probe.framework, probe.scenario))
    record = evidence["modes"].get(probe.mode, {}).get("scenarios", {}).get(probe.scenario)
    if record is None:
        return [f"no {probe.mode} record for {probe.scenario} in the evidence"]
    found = []
    for path, value in sorted(measured.items()):
        observable, *keys = path.split(".")
        if path not in probe.shows:
            found.append(f"{path}: printed but not in SHOWS")
            continue
        if observable == CONSTANTS:  # a constant the column read in its environment: compared with the value it recorded
            recorded = evidence.get("constants", {}).get(".".join(keys), {}).get("value", "<absent>")
        else:
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


def sweep_counts(sweep: dict[str, Any], column: str, key: str) -> dict[str, Any]:
    """What the crash sweep's ``defaults`` rows of ``column`` say of one job run (``<job>`` or ``<job>@<schedule>``): per
    call it took effect more often than uninterrupted, ``side_effects.<call>.effects``; per call approved before the kill
    and asked about again, ``pre_approval_state.asked_again.<call>`` (true); a run stuck, ``status``."""
    job, _, schedule = key.partition("@")
    counts: dict[str, Any] = {}
    for row in sweep.get("columns", {}).get(column, {}).get("defaults", {}).values():
        for kind in ("duplicates", "approvals_lost", "stuck"):
            for entry in row[kind]:
                if entry["job"] != job or entry.get("schedule", "") != schedule:
                    continue
                if kind == "duplicates":
                    counts[f"side_effects.{entry['call_id']}.effects"] = entry["effects"]
                elif kind == "approvals_lost":
                    counts[f"pre_approval_state.asked_again.{entry['call_id']}"] = True
                else:
                    counts["status"] = entry["status"]
    return counts


def _sweep_disagreements(probe: Probe, measured: dict[str, Any], swept: dict[str, Any]) -> list[str]:
    """A sweep probe's printed paths against what the rows say of its run: each path of ``SHOWS``, and nothing else."""
    if not swept:
        return [f"the sweep's rows hold no finding on the run {probe.scenario}"]
    found = [f"{path}: printed but not in SHOWS" for path in sorted(set(measured) - set(probe.shows))]
    for path in probe.shows:
        if path not in measured:
            found.append(f"{path}: in SHOWS but no count printed")
        elif path not in swept:
            found.append(f"{path}: the sweep has no finding there (probe {json.dumps(measured[path])})")
        elif measured[path] != swept[path]:
            found.append(f"{path}: probe {json.dumps(measured[path])}, sweep {json.dumps(swept[path])}")
    return found
