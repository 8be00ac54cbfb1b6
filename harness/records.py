"""The records the two sides of the harness exchange, and the names both sides agree on.

A column process (``harness.column_side``) plays scenarios and reports raw material: the
supervisor's ``StepRecord`` of every driver step and the column's ``StepFacts``. The runner
(``harness.runner_side``) turns them into observations, out of the column's reach. Neither side
imports the other: both import this module (and the other shared definitions at the top of
``harness``: the scenario format, the fixture tools' catalog, the ledger's channel, the column
registry, the canonical JSON writer).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.scenarios import Scenario

RunStatus = Literal["completed", "awaiting_approval", "reconcile_required", "stopped_max_steps", "model_unavailable", "refused", "crashed", "stalled", "error"]
STATUSES: tuple[RunStatus, ...] = ("completed", "awaiting_approval", "reconcile_required", "stopped_max_steps", "model_unavailable", "refused", "crashed", "stalled",
                                   "error")
SCENARIO_TIMEOUT_S = 120.0  # wall clock for all steps of one scenario: a hidden loop must never hang a run
MCP_STEP_BOUND_S = 25.0
"""In ``mcp`` mode, how long one driver step may go without an answer before the supervisor stops its worker and
records the step ``stalled``: a framework's MCP client that waits with no bound for an answer the server will never
send (it died after the effect) is a measured outcome there, not a failure to measure. The slowest answer a fault
gives comes after ``MCP_SLOW_DELAY_S`` (6 s); everything else a step does in this mode takes a second or two."""
PROGRESS_PREFIX = "PROGRESS "
IMPORT_PHASE = "import"  # the network guard's tag for what a column process attempts before its first mode
DEFAULTS_NEVER_REACHES = "defaults_never_reaches"  # a column class attribute for the glue coverage check: {"<file>:<function>": "<why>"}
"""How a column process starts a line to the runner: ``plan <n>`` (the scenario runs it will make, sub-cases aside)
first, then ``<mode>/<key>`` as each scenario finishes."""
MECHANISM_ROLES = ("loop", "tool_dispatch", "message_assembly", "approval", "persistence")
"""What a third-party column names of its framework (``module:qualname``), located in its environment."""


@dataclass
class StepRecord:
    """One driver step as the supervisor saw it. ``ledger`` (the counts after the step) is filled in from
    the ledger's own file by whoever keeps it: the runner, or ``run_scenario`` when it keeps a private one."""

    index: int
    action: str
    status: str  # a run status, or crashed / error
    session_status: str
    refusal: str | None = None
    error: str | None = None
    raised: str | None = None  # the type of the exception that ended the step (``module.Name``, builtins bare)
    raised_bases: list[str] = field(default_factory=list)  # its base classes, so MAPPING.md may declare a family
    killed: bool = False  # the worker died by a kill fault (a column may also report ``crashed`` of a state it finds)
    pending: list[dict[str, Any]] = field(default_factory=list)
    ledger: dict[str, dict[str, Any]] = field(default_factory=dict)
    effects_committed: dict[str, list[Any]] = field(default_factory=dict)  # per call id the effects committed in this step (the runner's ledger)
    trace: list[dict[str, Any]] = field(default_factory=list)
    passes: list[list[Any]] = field(default_factory=list)
    """The kill points the step passed, ``[point, call id, turn, save]`` in order: recorded only for the crash sweep
    (``harness.column_side.fixtures.faults.record_passes``)."""
    fired: list[int] = field(default_factory=list)
    """The indexes of the scenario's faults that fired in the step: recorded only for the crash sweep, as ``passes``."""


@dataclass
class ScenarioRun:
    """Everything a column's run of one scenario left behind."""

    scenario: Scenario
    scratch: Path
    steps: list[StepRecord]


@dataclass
class StepFacts:
    """What a column's own mechanisms report about one driver step.

    ``results``: tool results delivered to the model (call id, status, content);
    ``approvals_granted``: call ids approved; ``resumed``: where a resume continued
    (position, pending call, approvals still held); ``dedup``: the column deduplicated a
    delivery (a replayed result or an ignored duplicate event), ``dedup_by`` says whether
    its framework or its contract glue did; ``validated_before_pause``: the pending calls' arguments were
    validated before the run paused for approval; ``held``: decisions the human's side holds until
    a batched turn's last one; ``approval_object``: how a misused approval reached the framework; ``implicit_decisions``:
    the driver's answers, within the step,
    to pauses on calls the contract would not ask about (``defaults``: ``adapters.column``), each with its
    ``sub_step`` (1, 2, ... in the order given), the ``pause`` it answered (1, 2, ...: at most the scenario's
    ``max_steps`` in a step), ``call_id``, ``tool``, ``args`` as the framework asked,
    ``decision`` (``approve`` | ``reject``) and the calls that were ``pending`` at that pause.
    """

    results: list[dict[str, Any]] = field(default_factory=list)
    approvals_granted: list[str] = field(default_factory=list)
    resumed: dict[str, Any] | None = None
    dedup: bool = False
    dedup_by: str = "framework"  # who deduplicated when ``dedup``: the framework itself, or contract glue
    validated_before_pause: bool | None = None
    held: list[str] = field(default_factory=list)  # decisions held for a batched turn (``adapters.held_decisions``)
    approval_object: dict[str, Any] | None = None  # a misused approval: its kind, the binding it breaks, whether the object carries it
    implicit_decisions: list[dict[str, Any]] = field(default_factory=list)


def run_key(mode: str, key: str, again: bool = False) -> str:
    """How a run's ledger entries are tagged (and where its scratch directory is): ``<mode>/<scenario>``."""
    return f"{mode}/{key}{'.again' if again else ''}"


def missing_roles(mechanisms: dict[str, str]) -> list[str]:
    """The roles a third-party column must name and did not."""
    return [role for role in MECHANISM_ROLES if role not in mechanisms]


def raw_record(run: ScenarioRun, facts: list[StepFacts], model: dict[str, Any], detail: dict[str, Any]) -> dict[str, Any]:
    """What a column process sends back for one scenario (plain JSON)."""
    return {
        "steps": [dataclasses.asdict(s) for s in run.steps],
        "facts": [dataclasses.asdict(f) for f in facts],
        "model": model,
        "detail": detail,
    }
