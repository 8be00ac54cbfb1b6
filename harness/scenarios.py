"""Scenario files: loaded, validated against ``scenarios/scenario.schema.json`` and checked for
consistency. A malformed file raises ``ScenarioError`` naming the file and the field.

``load_scenarios`` returns scenarios *without* their ``expected`` block: only the
hand-written check reads expectations, through ``load_expectations``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from harness.errors import ScenarioError
from harness.fixture_tools import FIXTURE_TOOLS

SCENARIO_DIR = Path(__file__).resolve().parent.parent / "scenarios"
SCHEMA_PATH = SCENARIO_DIR / "scenario.schema.json"


# point -> (what it does, the field that selects where it fires)
FAULT_POINTS: dict[str, tuple[str, str]] = {
    "model.kill_before_turn": ("kill", "turn"),  # before the scripted model answers turn N (0-based)
    "tool.raise_before_effect": ("raise", "call_id"),  # the executor raises after entry, before any effect
    "tool.kill_before_effect": ("kill", "call_id"),  # process death after executor entry, before the effect
    "tool.kill_after_effect": ("kill", "call_id"),  # process death after the effect committed, before returning
    "tool.timeout_after_effect": ("timeout", "call_id"),  # TimeoutError after the effect committed
    "engine.kill_after_checkpoint": ("kill", "call_id"),  # engine-only: after the intent checkpoint, before the executor
}


@dataclass(frozen=True)
class Fault:
    """One scheduled fault: a point and its selector (a call id or a model turn)."""

    point: str
    call_id: str | None = None
    turn: int | None = None

    @property
    def action(self) -> str:
        return FAULT_POINTS[self.point][0]

    @staticmethod
    def from_json(data: dict[str, Any]) -> Fault:
        return Fault(point=data["point"], call_id=data.get("call_id"), turn=data.get("turn"))


@dataclass(frozen=True)
class Scenario:
    """A scenario as every column receives it (no ``expected``)."""

    id: str
    file: str  # the file name only: evidence never holds absolute paths
    description: str
    covers: tuple[str, ...]
    tools: tuple[str, ...]
    session_id: str
    user_input: str
    system_prompt: str | None
    max_steps: int
    model_script: tuple[dict[str, Any], ...]
    driver: tuple[dict[str, Any], ...]
    faults: tuple[Fault, ...]

    @property
    def user_inputs(self) -> tuple[str, ...]:
        return (self.user_input,) + tuple(s["input"] for s in self.driver if "input" in s)

    def scripted_call(self, call_id: str) -> dict[str, Any]:
        """The first scripted call with this id (the one a human would be asked about)."""
        for turn in self.model_script:
            call: dict[str, Any]
            for call in turn.get("tool_calls", ()):
                if call["id"] == call_id:
                    return call
        raise KeyError(call_id)


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _read(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path.name}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    error = best_match(_validator().iter_errors(data))
    if error is not None:
        field = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ScenarioError(f"{path.name}: field '{field}': {error.message}")
    _check_consistency(path, data)
    return data


def _check_consistency(path: Path, data: dict[str, Any]) -> None:
    def fail(field: str, message: str) -> None:
        raise ScenarioError(f"{path.name}: field '{field}': {message}")

    if path.stem != data["id"]:
        fail("id", f"must equal the file name {path.stem!r}")
    for i, tool in enumerate(data["tools"]):
        if tool not in FIXTURE_TOOLS:
            fail(f"tools/{i}", f"unknown fixture tool {tool!r} (known: {', '.join(sorted(FIXTURE_TOOLS))})")
    call_ids = {c["id"] for turn in data["model_script"] for c in turn.get("tool_calls", ())}
    for i, step in enumerate(data["driver"]):
        if "call_id" in step and step["call_id"] not in call_ids:
            fail(f"driver/{i}/call_id", f"no scripted tool call has id {step['call_id']!r}")
    for i, fault in enumerate(data["faults"]):
        if "call_id" in fault and fault["call_id"] not in call_ids:
            fail(f"faults/{i}/call_id", f"no scripted tool call has id {fault['call_id']!r}")
    if data["driver"][0]["action"] != "run":
        fail("driver/0/action", "the first driver step must be 'run'")


def load_scenario(path: Path) -> Scenario:
    """One scenario file, validated; its ``expected`` block is left out."""
    data = _read(path)
    return Scenario(
        id=data["id"],
        file=path.name,
        description=data["description"],
        covers=tuple(data["covers"]),
        tools=tuple(data["tools"]),
        session_id=data["session_id"],
        user_input=data["user_input"],
        system_prompt=data.get("system_prompt"),
        max_steps=data["max_steps"],
        model_script=tuple(data["model_script"]),
        driver=tuple(data["driver"]),
        faults=tuple(Fault.from_json(f) for f in data["faults"]),
    )


def scenario_files(directory: Path) -> list[Path]:
    """The scenario files of a directory, sorted; an empty directory is an error."""
    if not directory.is_dir():
        raise ScenarioError(f"{directory}: not a directory of scenario files")
    files = sorted(p for p in directory.glob("*.json") if p.name != SCHEMA_PATH.name)
    if not files:
        raise ScenarioError(f"{directory}: holds no scenario files (*.json)")
    return files


def load_scenarios(directory: Path = SCENARIO_DIR) -> list[Scenario]:
    """Every scenario of a directory, sorted by id; duplicate ids are an error."""
    scenarios = [load_scenario(p) for p in scenario_files(directory)]
    seen: set[str] = set()
    for s in scenarios:
        if s.id in seen:
            raise ScenarioError(f"{s.file}: field 'id': duplicate scenario id {s.id!r}")
        seen.add(s.id)
    return sorted(scenarios, key=lambda s: s.id)


def load_expectations(directory: Path = SCENARIO_DIR) -> dict[str, dict[str, Any]]:
    """The ``expected`` blocks by scenario id: for the hand-written check only."""
    return {(data := _read(p))["id"]: data["expected"] for p in scenario_files(directory)}
