"""Scenario files: loaded, validated against ``scenarios/scenario.schema.json`` and checked for
consistency. A malformed file raises ``ScenarioError``: one line naming the file, the field where there is
one, and the problem.

A scenario file is read with bounds (``harness/json_input.py`` says why each is there): at most ``MAX_BYTES``
(1 MiB), refused by its size before it is read; a regular file (not a directory, FIFO or device; a symbolic
link counts as what it points to); UTF-8, a leading byte order mark allowed; strict JSON, nested at most
``json_input.MAX_DEPTH`` (32) levels, at most ``json_input.MAX_ITEMS`` (4,096) elements in one array or
object, with no repeated key, no ``NaN`` or infinity, no integer outside ±(2**53 - 1), no lone surrogate.

``load_scenarios`` returns scenarios *without* their ``expected`` block: only the
hand-written check reads expectations, through ``load_expectations``.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator

from harness.errors import ScenarioError
from harness.fixture_tools import FIXTURE_TOOLS
from harness.json_input import MAX_DEPTH, JsonInputError, kind, loads, read_bytes, text_nested_too_deeply, why
from harness.scenario_messages import json_type, locate, not_utf8, short

SCENARIO_DIR = Path(__file__).resolve().parent.parent / "scenarios"
SCHEMA_PATH = SCENARIO_DIR / "scenario.schema.json"
DEFAULT_USER = "alice"  # the session's user when a scenario names none
BOUNDARY_ACTIONS = ("direct_call", "grant")  # steps at the tool boundary, outside the agent's loop
MAX_BYTES = 1 << 20  # a scenario file's size limit (the committed ones are under 15 KB)


# point -> (what it does, the field that selects where it fires)
FAULT_POINTS: dict[str, tuple[str, str]] = {
    "model.kill_before_turn": ("kill", "turn"),  # before the scripted model answers turn N (0-based)
    "tool.raise_before_effect": ("raise", "call_id"),  # the executor raises after entry, before any effect
    "tool.kill_before_effect": ("kill", "call_id"),  # process death after executor entry, before the effect
    "tool.kill_after_effect": ("kill", "call_id"),  # process death after the effect committed, before returning
    "tool.timeout_after_effect": ("timeout", "call_id"),  # TimeoutError after the effect committed
    "engine.kill_after_checkpoint": ("kill", "call_id"),  # engine-only: after the intent checkpoint, before the executor
    "state.kill_after_save": ("kill", "save"),  # after the column's own Nth state save of the run (1-based, every process counted)
    # Wire faults: the runner's scripted OpenAI-compatible server answers a request for turn N this way (``wire`` mode
    # only; a scenario with one is not applicable in process). ``repeat``: the turn's first request only, or every one.
    "model.http_status": ("wire", "turn"),  # an HTTP error status (``status``, optional ``retry_after`` seconds)
    "model.http_reset": ("wire", "turn"),  # the connection is dropped before any byte of the answer
    "model.stream_cut": ("wire", "turn"),  # the answer starts (200, part of the body or stream) and the connection drops
    "model.http_slow": ("wire", "turn"),  # the answer comes after ``SLOW_DELAY_S`` seconds
    "model.bad_body": ("wire", "turn"),  # 200 with a body that is not JSON
    # MCP faults: the MCP server a call reaches meets them after the call's effect, before its answer (an MCP column,
    # or the ``mcp`` mode; in process the engine's call just loses its answer: ``harness.column_side.fixtures.faults``).
    "mcp.kill_after_effect": ("mcp", "call_id"),  # the server process dies
    "mcp.reset_mid_call": ("mcp", "call_id"),  # the server drops the connection (over stdio: ends its output)
    "mcp.slow_answer": ("mcp", "call_id"),  # the answer comes after ``MCP_SLOW_DELAY_S`` seconds
}
WIRE_POINTS = tuple(p for p, (action, _) in FAULT_POINTS.items() if action == "wire")
MCP_POINTS = tuple(p for p, (action, _) in FAULT_POINTS.items() if action == "mcp")
SLOW_DELAY_S = 3.0  # how long model.http_slow waits before it answers: a client without a timeout waits it whole
MCP_SLOW_DELAY_S = 6.0  # how long mcp.slow_answer waits: past the 5 s read timeout two MCP clients default to


BINDINGS = {"other_call": "call", "other_args": "arguments", "other_session": "session", "expired": "expiry",
            "reused": "single_use", "forged": "authenticity"}
"""The binding each ``misuse_token`` kind breaks: what an approval must be bound to for that misuse to be refused."""

@dataclass(frozen=True)
class Fault:
    """One scheduled fault: a point and its selector (a call id, a model turn, or the column's Nth state save)."""

    point: str
    call_id: str | None = None
    turn: int | None = None
    save: int | None = None
    status: int | None = None  # model.http_status: the status answered
    retry_after: float | None = None  # model.http_status: the Retry-After header (seconds), when given
    repeat: str | None = None  # wire faults: "once" (the turn's first request; the default) or "always"

    @property
    def action(self) -> str:
        return FAULT_POINTS[self.point][0]

    @property
    def selector_text(self) -> str:
        """The selector as sentences name it: the call id, ``turn N`` or ``save N``."""
        field = FAULT_POINTS[self.point][1]
        return str(self.call_id) if field == "call_id" else f"{field} {self.turn if field == 'turn' else self.save}"

    @staticmethod
    def from_json(data: dict[str, Any]) -> Fault:
        return Fault(point=data["point"], call_id=data.get("call_id"), turn=data.get("turn"), save=data.get("save"), status=data.get("status"),
                     retry_after=data.get("retry_after"), repeat=data.get("repeat"))

    def to_json(self) -> dict[str, Any]:
        """The fault as a scenario file spells it (``from_json`` reads it back)."""
        fields = {"call_id": self.call_id, "turn": self.turn, "save": self.save, "status": self.status, "retry_after": self.retry_after, "repeat": self.repeat}
        return {"point": self.point} | {k: v for k, v in fields.items() if v is not None}


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
    user: str = DEFAULT_USER
    failure_rate: dict[str, Any] | None = None  # faults drawn per attempt at ``percent`` from ``seed``: the report's failure-rate control

    @property
    def uses_boundary(self) -> bool:
        """Whether a step calls the tool boundary directly (a client other than the agent, or the human granting
        there): only a column with a tool boundary outside its agent's loop can play it."""
        return any(step["action"] in BOUNDARY_ACTIONS for step in self.driver)

    @property
    def uses_wire(self) -> bool:
        """Whether a fault is the model endpoint's (``WIRE_POINTS``): only a column in ``wire`` mode can meet it."""
        return any(f.action == "wire" for f in self.faults)

    @property
    def uses_mcp(self) -> bool:
        """Whether a fault is an MCP server's (``MCP_POINTS``): only a column whose tools are behind an MCP server (or
        the engine, for which in process the answer is just lost) can meet it."""
        return any(f.action == "mcp" for f in self.faults)

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


def _unique_strings(validator: Any, unique: bool, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    """``uniqueItems`` in linear time. jsonschema's own compares every pair once an item is not a string (an array
    of a thousand objects takes seconds, of four thousand minutes); the scenario schema asks for unique items only
    in arrays of strings, whose ``items`` rule reports any other item, so such an array is left to that rule."""
    if not (unique and isinstance(instance, list) and all(isinstance(i, str) for i in instance)):
        return
    seen: set[str] = set()
    for item in instance:
        if item in seen:
            yield ValidationError(f"{short(item)} appears more than once (each item at most once)")
            return
        seen.add(item)


@lru_cache(maxsize=1)
def _validator() -> Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    linear: Any = validators.extend(Draft202012Validator, {"uniqueItems": _unique_strings})  # type: ignore[no-untyped-call]
    validator: Validator = linear(schema)
    return validator


def shown(path: Path) -> str:
    """A path as the user should see it: relative to the working directory when it lies under it
    (or was given relative), else absolute; never the bare file name."""
    if not path.is_absolute():
        return str(path)
    # os.path.realpath, unlike Path.resolve on Python 3.11, returns a symbolic link loop unresolved instead of raising
    for candidate, cwd in ((path, Path.cwd()), (Path(os.path.realpath(path)), Path(os.path.realpath(Path.cwd())))):
        if candidate.is_relative_to(cwd):
            return str(candidate.relative_to(cwd))
    return str(path)


def _read(path: Path) -> dict[str, Any]:
    """A scenario file's JSON object, schema-valid and consistent; every failure is one ``ScenarioError`` line."""
    where = shown(path)
    try:
        raw = read_bytes(path, MAX_BYTES)
    except JsonInputError as exc:
        raise ScenarioError(f"{where}: {exc}") from None
    try:
        text = raw.decode("utf-8-sig")  # a leading BOM (Windows editors) is harmless
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{where}: {not_utf8(raw, exc)}") from None
    try:
        data = loads(text)
    except JsonInputError as exc:
        raise ScenarioError(f"{where}: {exc}") from None
    if not isinstance(data, dict):  # before the schema, whose message would quote the whole document
        raise ScenarioError(f"{where}: field '(top level)': must be an object (one scenario per file), not {json_type(data)}")
    error = best_match(_validator().iter_errors(data))
    if error is not None:
        field, message = locate(error)
        raise ScenarioError(f"{where}: field '{field}': {message}")
    _check_consistency(where, path.stem, data)
    _check_arguments_text(where, data)
    return data


def _check_consistency(where: str, stem: str, data: dict[str, Any]) -> None:
    def fail(field: str, message: str) -> None:
        raise ScenarioError(f"{where}: field '{field}': {message}")

    if stem != data["id"]:
        fail("id", f"must equal the file name {stem!r}")
    for i, tool in enumerate(data["tools"]):
        if tool not in FIXTURE_TOOLS:
            fail(f"tools/{i}", f"unknown fixture tool {tool!r} (known: {', '.join(sorted(FIXTURE_TOOLS))})")
    call_ids = {c["id"] for turn in data["model_script"] for c in turn.get("tool_calls", ())}
    for i, step in enumerate(data["driver"]):
        if "call_id" in step and step["call_id"] not in call_ids:
            fail(f"driver/{i}/call_id", f"no scripted tool call has id {step['call_id']!r}")
        if "other_call_id" in step and step["other_call_id"] not in call_ids:
            fail(f"driver/{i}/other_call_id", f"no scripted tool call has id {step['other_call_id']!r}")
        if "other_call_id" in step and step["other_call_id"] == step.get("call_id"):
            fail(f"driver/{i}/other_call_id", "must name another call than call_id (an approval made for that other call)")
    for i, fault in enumerate(data["faults"]):
        if "call_id" in fault and fault["call_id"] not in call_ids:
            fail(f"faults/{i}/call_id", f"no scripted tool call has id {fault['call_id']!r}")
    if data["driver"][0]["action"] != "run":
        fail("driver/0/action", "the first driver step must be 'run'")


def _check_arguments_text(where: str, data: dict[str, Any]) -> None:
    """A scripted call's raw arguments text is JSON every column parses at run time: nested past the loader's own bound
    it is refused here, measured without parsing it (``"[" * 100000`` is a short string Python's parser dies on)."""
    for t, turn in enumerate(data["model_script"]):
        for c, call in enumerate(turn.get("tool_calls", ())):
            if isinstance(call["arguments"], str) and text_nested_too_deeply(call["arguments"]):
                field = f"model_script/{t}/tool_calls/{c}/arguments"
                raise ScenarioError(f"{where}: field '{field}': arguments text nested too deeply (at most {MAX_DEPTH} levels of arrays and objects)")


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
        user=data.get("user", DEFAULT_USER),
        failure_rate=data.get("failure_rate"),
    )


def scenario_files(directory: Path) -> list[Path]:
    """The scenario files of a directory, sorted; an empty directory is an error."""
    try:
        mode = directory.stat().st_mode
        if not stat.S_ISDIR(mode):
            raise ScenarioError(f"{shown(directory)}: {kind(mode)}, not a directory of scenario files")
        files = sorted(p for p in directory.glob("*.json") if p.name != SCHEMA_PATH.name)
    except OSError as exc:
        raise ScenarioError(f"{shown(directory)}: not a directory of scenario files: {why(directory, exc)}") from None
    if not files:
        raise ScenarioError(f"{shown(directory)}: holds no scenario files (*.json)")
    return files


def load_scenarios(directory: Path = SCENARIO_DIR) -> list[Scenario]:
    """Every scenario of a directory, sorted by id; duplicate ids are an error."""
    seen: dict[str, Path] = {}
    scenarios = []
    for path in scenario_files(directory):
        scenario = load_scenario(path)
        if scenario.id in seen:  # unreachable while the id must equal the file name; kept as a guard
            raise ScenarioError(f"{shown(path)}: field 'id': duplicate scenario id {scenario.id!r} (also in {shown(seen[scenario.id])})")
        seen[scenario.id] = path
        scenarios.append(scenario)
    return sorted(scenarios, key=lambda s: s.id)


def load_expectations(directory: Path = SCENARIO_DIR) -> dict[str, dict[str, Any]]:
    """The ``expected`` blocks by scenario id, for the hand-written check only. A scenario without
    one (allowed outside the committed set, see scenarios/README.md) has no entry."""
    return {data["id"]: data["expected"] for data in map(_read, scenario_files(directory)) if "expected" in data}
