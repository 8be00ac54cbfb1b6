"""The runner: starts one sandboxed column process per column and gathers its observations.

Project columns run on this interpreter; isolated columns on the interpreter of their
own virtual environment, built from their hashed lock and cached. Whatever goes wrong
(an environment that cannot be built, an adapter that crashes, a column that hangs) the
column is ``not-measured`` with the reason: never silently equal.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from .columns import ROOT, Column
from .driver import SCENARIO_TIMEOUT_S
from .errors import HarnessError
from .observation import observation
from .sandbox import clean_environment, refused_attempts
from .scenarios import Scenario, load_scenarios

# -I ignores PYTHONPATH and the user site; the bootstrap puts the repository first on sys.path.
BOOTSTRAP = (
    "import sys; sys.path[:0] = sys.argv[1].split(':'); "
    "from harness.column_main import main; sys.exit(main(sys.argv[2:]))"
)
START_MARGIN_S = 120.0


@dataclass
class ColumnResult:
    """What one column process left: its observation records by mode and scenario, or why there are none."""

    column: Column
    status: str  # measured | not-measured
    reason: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    modes: dict[str, dict[str, Any]] = field(default_factory=dict)
    network: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def run_column(
    column: Column,
    modes: list[str],
    scenarios_dir: Path,
    scratch_root: Path,
    *,
    scenario_count: int,
    extra_sys_path: Sequence[Path] = (),
    repeat: Sequence[str] = (),
    scenario_timeout_s: float = SCENARIO_TIMEOUT_S,
    log: Callable[[str], None] = print,
) -> ColumnResult:
    """Run every scenario of ``column`` in ``modes`` in one sandboxed process."""
    scratch = scratch_root / column.name
    scratch.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    versions: dict[str, str] = {}
    python = Path(sys.executable)
    if column.environment == "isolated":
        from .environments import ensure_environment  # only isolated columns need uv

        try:
            env = ensure_environment(column.adapter_dir, log=log)
        except HarnessError as exc:
            return ColumnResult(column, "not-measured", reason=f"environment could not be built: {exc}")
        python, versions = env.python, dict(env.versions)
    out = scratch / "observations.json"
    command = [
        str(python), "-I", "-c", BOOTSTRAP, ":".join(str(p) for p in [ROOT, *extra_sys_path]),
        "--module", column.module, "--scenarios", str(scenarios_dir.resolve()), "--scratch", str(scratch), "--out", str(out),
        "--scenario-timeout", str(scenario_timeout_s),
        *[a for m in modes for a in ("--mode", m)],
        *[a for r in repeat for a in ("--repeat", r)],
    ]  # fmt: skip
    budget = START_MARGIN_S + scenario_timeout_s * scenario_count * len(modes) * 2  # a racing scenario runs twice
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    try:
        done = subprocess.run(command, env=clean_environment(home), cwd=scratch, capture_output=True, text=True, timeout=budget)
    except subprocess.TimeoutExpired:
        return ColumnResult(column, "not-measured", reason=f"the column process did not finish within {budget:.0f} s", versions=versions)
    if done.returncode != 0 or not out.exists():
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        return ColumnResult(column, "not-measured", reason=f"the column process exited with {done.returncode}: {tail}", versions=versions)
    document = json.loads(out.read_text(encoding="utf-8"))
    scenarios = {s.id: s for s in load_scenarios(scenarios_dir)}
    modes_out = {mode: {sid: _observed(scenarios[sid], raw) for sid, raw in raws.items()} for mode, raws in document["modes"].items()}
    timings = {**document["timings"], "total_s": time.perf_counter() - started}
    return ColumnResult(column, "measured", versions=versions, modes=modes_out, network=refused_attempts(scratch / "network.jsonl"), timings=timings)


def _observed(scenario: Scenario, raw: dict[str, Any]) -> dict[str, Any]:
    """The observation record; a scenario run twice whose observables differ is nondeterministic."""
    record = observation(scenario, raw)
    if "again" in raw:
        record["races"] = True
        again = observation(scenario, raw["again"])
        if again["observables"] != record["observables"]:
            record = {**record, "status": "nondeterministic", "observables_again": again["observables"]}
    return record
