"""The crash sweep's jobs: a committed scenario plus one kill at one transition its column passed.

A column's uninterrupted run of a scenario records every kill point its steps passed (``faults.record_passes``): each
model turn it asked, each tool call's executor before and after its effect, each intent checkpoint the contract's
glue or the engine wrote. Each transition, taken where the run first passed it, becomes a job: the scenario with one
more fault, a ``kill`` there, and one ``resume`` inserted right after the driver step the kill falls in, the scenario's
remaining steps after it. A job is written as a scenario file (``--scenarios`` plays it, ``explore.shrink`` reduces it
as any scenario); its id is a hash of that file, the column, the mode, the kill point and the column's lock.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from handwritten.tools import RiskClass
from harness.columns import ROOT, Column
from harness.fixture_tools import FIXTURE_TOOLS
from harness.scenarios import FAULT_POINTS, Scenario

SWEPT_MODES = ("defaults", "contract")
"""The modes a sweep tries: the framework as its documentation teaches it, and with the contract's glue."""
DECISIONS = ("approve", "reject", "misuse_token", "grant")
TAGS = {"model.kill_before_turn": "turn", "tool.kill_before_effect": "before", "tool.kill_after_effect": "after", "engine.kill_after_checkpoint": "ckpt",
        "state.kill_after_save": "save"}  # fmt: skip
"""Each kill point's short name in a job's scenario id."""
MAX_ID = 64  # the scenario format's limit on an id


@dataclass(frozen=True, order=True)
class KillPoint:
    """One transition of an uninterrupted run as a kill: the point, its selector, and the driver step it fell in."""

    step: int
    point: str
    call_id: str | None = None
    turn: int | None = None
    save: int | None = None

    @property
    def selector(self) -> str | int:
        """The fault's selector: the call id, the model turn or the column's state save it names."""
        return {"call_id": self.call_id, "turn": self.turn, "save": self.save}[FAULT_POINTS[self.point][1]]  # type: ignore[return-value]

    @property
    def label(self) -> str:
        """``<point> <call id>``, ``<point> turn <n>`` or ``<point> save <n>``: how rows and sentences name the kill point."""
        field = FAULT_POINTS[self.point][1]
        return f"{self.point} {self.call_id}" if field == "call_id" else f"{self.point} {field} {self.selector}"

    def fault(self) -> dict[str, Any]:
        """The kill as a scenario file spells a fault."""
        return {"point": self.point, FAULT_POINTS[self.point][1]: self.selector}

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "step": self.step, **self.fault()}


def swept(scenario: Scenario) -> bool:
    """Whether the sweep tries ``scenario``: one with a side effect (a scripted call of a tool that is not read-only) or
    an approval (a decision among its driver steps)."""
    writes = any(FIXTURE_TOOLS[c["name"]].risk is not RiskClass.READ_ONLY for turn in scenario.model_script for c in turn.get("tool_calls", [])
                 if c.get("name") in FIXTURE_TOOLS)  # fmt: skip
    return writes or any(step["action"] in DECISIONS for step in scenario.driver)


def kill_points(scenario: Scenario, passes: list[list[Any]]) -> list[KillPoint]:
    """The transitions of an uninterrupted run (its record's ``passes``: ``[step, point, call id, turn, save]``), each where the
    run first passed it, without the kills the scenario schedules itself. A call a client made at the tool boundary
    (``direct_call``) is no call of the model's script, which is all a fault may name: no kill goes inside it. Nor does
    one go inside a call of a turn in which the scenario kills another call itself: a framework that runs a turn's calls
    at once would race the two kills, an ordering its schedules force for one kill per turn, not two (measured: in such
    jobs a schedule could be forced in one sweep and not in the next)."""
    scheduled = {(f.point, f.call_id, f.turn, f.save) for f in scenario.faults if f.action == "kill"}
    killed = {f.call_id for f in scenario.faults if f.action == "kill" and f.call_id}
    scripted, racing = set(), set()
    for calls in ({c["id"] for c in turn.get("tool_calls", [])} for turn in scenario.model_script):
        scripted |= calls
        racing |= calls - killed if calls & killed else set()
    first: dict[tuple[str, str | None, int | None, int | None], int] = {}
    for step, point, call_id, turn, save in passes:
        key = (point, call_id, turn, save)
        if point in TAGS and key not in scheduled and (call_id is None or (call_id in scripted and call_id not in racing)):
            first[key] = min(first.get(key, step), step)  # the earliest of the schedules
    return sorted(KillPoint(step, *key) for key, step in first.items())  # one point has one kind of selector: no None compared


def job_scenario(document: dict[str, Any], kill: KillPoint) -> dict[str, Any]:
    """The scenario ``document`` (a committed file's JSON) with ``kill`` added, a ``resume`` right after the driver step it
    falls in, and no ``expected`` block (the sweep compares the column with its own uninterrupted run)."""
    job = {k: copy.deepcopy(v) for k, v in document.items() if k != "expected"}
    job["id"] = job_name(document["id"], kill)
    job["description"] = (f"Crash sweep: {document['id']} with the process killed at {kill.label} (first passed in driver step {kill.step}), "
                          "then one resume in a fresh process and the scenario's remaining steps.")  # fmt: skip
    job["driver"] = [*document["driver"][: kill.step + 1], {"action": "resume"}, *document["driver"][kill.step + 1 :]]
    job["faults"] = [*document["faults"], kill.fault()]
    return job


def job_name(scenario_id: str, kill: KillPoint) -> str:
    """``<scenario>__<tag>_<call id, turn or save>``; a call id the format's names cannot spell as it is (``C1``, ``c-1``) gets a
    short hash of itself, so no two kill points share a name; cut to the format's 64 characters with a hash when longer."""
    given = str(kill.selector)
    selector = re.sub(r"[^a-z0-9_]+", "_", given.lower())
    if selector != given:
        selector += "_" + hashlib.sha256(given.encode()).hexdigest()[:6]
    name = f"{scenario_id}__{TAGS[kill.point]}_{selector}"
    if len(name) <= MAX_ID:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_ID - 9]}_{digest}"


def lock_digest(column: Column) -> str:
    """What pins the column's code outside this repository: its hashed requirements lock (the project's
    ``pyproject.toml`` for a column that runs on the project's interpreter)."""
    lock = column.environment_dir / "requirements.lock" if column.environment == "isolated" else ROOT / "pyproject.toml"
    return hashlib.sha256(lock.read_bytes()).hexdigest()


def job_id(job: dict[str, Any], column: str, mode: str, kill: KillPoint, lock: str) -> str:
    """A job's id: a hash of its scenario, column, mode, kill point and the column's lock."""
    material = json.dumps({"scenario": job, "column": column, "mode": mode, "kill": kill.to_json(), "lock": lock}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(material.encode()).hexdigest()[:16]
