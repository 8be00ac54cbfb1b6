"""The records a column and the harness exchange: one driver step in (``StepRequest``), one out (``StepOutcome``).

The supervisor builds a ``StepRequest`` for every driver step of a scenario and hands it to a
column in a fresh worker process; the column answers with a ``StepOutcome``. Both are frozen
and plain (they cross a process boundary by pickling), and both are the only shape a column
sees: no column reads the scenario's driver step as a dict.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from harness.records import RunStatus

if TYPE_CHECKING:
    from harness.records import ScenarioRun, StepFacts
    from harness.scenarios import Scenario

Action = Literal["run", "deliver_again", "approve", "misuse_token", "reject", "resume", "reconcile", "snapshot", "restore", "direct_call", "grant"]


@dataclass(frozen=True)
class InboundEvent:
    """A user input as it arrives from outside (a webhook, say): its id and its text."""

    event_id: str
    input: str


@dataclass(frozen=True)
class StepRequest:
    """One driver step, with what the human's side of the harness adds to it.

    ``now`` is the driver's clock (seconds); ``schedule`` names the ordering a column forces on a race
    (a sub-case ``<scenario>@<schedule>``), or None. The other fields belong to some actions only:
    ``event`` to ``run`` and ``deliver_again``; ``call_id`` to the decisions and ``reconcile``;
    ``token`` to ``approve`` and ``misuse_token`` (issued, or misused, by the harness's approver); ``misuse`` (its kind)
    and ``made_for`` (the call the misused approval was made for: the other call of ``other_call``, the call approved
    before of ``reused``, else the named call) to ``misuse_token``, so a column can make its own approval object wrong
    in the same way;
    ``reason`` to ``reject``; ``outcome`` (``confirmed`` | ``not_executed``) to ``reconcile``;
    ``name`` to ``snapshot`` and ``restore``; ``boundary`` (the step's ``tool``, ``arguments``, ``key``, ``session``,
    ``approval_meta``, ``ttl_s``) to ``direct_call`` and ``grant``, the steps at a column's tool boundary.
    ``model_url`` is, in ``wire`` mode only, the OpenAI-compatible base URL of this run and step on the runner's scripted
    server (``harness.runner_side.run.servers.wire``): the column builds its framework's own OpenAI-compatible model with it.
    ``mcp_url`` and ``mcp_token`` are, in ``mcp`` mode only, this run and step's Streamable HTTP endpoint on the runner's MCP
    server (``harness.runner_side.run.servers.mcp``) and the bearer token it wants: the column's framework takes its tools from
    there with its own MCP client (over stdio through ``harness.column_side.mcp.relay``)."""

    index: int
    action: Action
    now: float
    schedule: str | None = None
    event: InboundEvent | None = None
    call_id: str | None = None
    token: str | None = None
    reason: str = "not approved"
    outcome: str | None = None
    name: str | None = None
    boundary: dict[str, Any] | None = None
    misuse: str | None = None
    made_for: str | None = None
    model_url: str | None = None
    mcp_url: str | None = None
    mcp_token: str | None = None

    @property
    def is_decision(self) -> bool:
        return self.action in ("approve", "misuse_token", "reject")


@dataclass(frozen=True)
class Decision:
    """The human's decision on one pending call: approve it, or reject it with a reason the model is told.

    ``misuse`` (a kind of ``harness.column_side.approver.MISUSES``) marks an approval that is wrong in one way, to be
    expressed through the framework's own approval object: made for the call ``made_for`` (``other_call``,
    ``reused``), or for ``call_id`` with edited arguments (``other_args``). The base column hands a session only the
    misuses its approval object can carry (``FrameworkColumn.approval_fields``)."""

    call_id: str
    approve: bool
    reason: str | None = None
    misuse: str | None = None
    made_for: str | None = None


@dataclass(frozen=True)
class PendingCall:
    """A call waiting for the human's decision: its id, tool and parsed arguments."""

    call_id: str
    tool: str
    args: Any

    def to_json(self) -> dict[str, Any]:
        return {"call_id": self.call_id, "tool": self.tool, "args": self.args}


@dataclass(frozen=True)
class StepOutcome:
    """How a driver step ended, as the column's own mechanisms report it.

    ``status``: the step's status (``refused`` when the step was refused, with ``refusal`` saying why);
    ``session_status``: the session's status after the step; ``pending``: the calls awaiting a decision,
    in the framework's order; ``uncertain_call``: the call a reconcile step may settle, if any; ``ran``: whether
    the step handed a run to the framework (False: the session only read its saved state, as when a decision names
    no call the framework waits on, so no run ended there: ``adapters.last_run``)."""

    status: RunStatus
    session_status: RunStatus
    refusal: str | None = None
    pending: tuple[PendingCall, ...] = ()
    uncertain_call: str | None = None
    ran: bool = True

    def refused(self, reason: str) -> StepOutcome:
        """This session state, with the step refused for ``reason`` (nothing was handed to the framework)."""
        return dataclasses.replace(self, status="refused", refusal=reason)


class ColumnAdapter(ABC):
    """A column of the comparison, as the column process drives it: one instance per column process.

    ``name`` and ``modes`` say what it is; ``perform`` plays one driver step in a worker forked from the
    column process; ``facts`` reads what the column's own mechanisms say each step did. Third-party
    frameworks subclass ``adapters.column.FrameworkColumn``, which does everything that does not
    depend on the framework; the hand-written engine and the local state graph keep their own loops."""

    name: ClassVar[str]
    modes: ClassVar[tuple[str, ...]]
    boundary: ClassVar[bool] = False
    """Whether the column has a tool boundary outside its agent's loop (``handwritten.boundary``): only then does it
    play scenarios with ``direct_call`` and ``grant`` steps; other columns leave them out, listed as not applicable."""
    mcp_faults: ClassVar[bool] = False
    """Whether the column meets an MCP server's faults (``harness.scenarios.MCP_POINTS``) outside the ``mcp`` mode: the
    engine over MCP at its server, and the engine in process, whose call just loses its answer
    (``harness.column_side.fixtures.faults.FaultPlan.mcp_answer``)."""
    packages: ClassVar[tuple[str, ...]] = ()
    """Distributions a project column runs on whose versions its evidence records (read with ``importlib.metadata`` in
    the column's own process); an isolated column's versions come from its verified environment instead."""
    mechanisms: ClassVar[dict[str, str]] = {}
    """Where the framework keeps its loop, tool dispatch, message assembly, approval and persistence:
    role -> ``module:qualname`` of the framework's own code (``harness.column_side.trace.mechanisms``); empty for our own columns."""
    constants: ClassVar[dict[str, str]] = {}
    """The framework's constants a reason may quote (``step_limit``: the bound on its loop when none is given):
    role -> ``module:qualname`` or ``module:qualname(parameter)``, read in the pinned environment (``harness.column_side.trace.mechanisms.read_constants``).
    A constant no name holds is read from the built agent instead: ``built_constants``."""

    def built_constants(self, scenario: Scenario, scratch: Path) -> dict[str, dict[str, Any]]:
        """The framework's constants that no name holds (a literal the function that builds the agent sets in the
        agent's own config): role -> ``{"ref", "value"}``, read from an agent built the way ``defaults`` builds it for
        ``scenario`` (its files in ``scratch``), in the pinned environment; ``ref`` says where on the built agent the
        value was read. A role named in ``constants`` too is an error (``harness.column_side.trace.mechanisms.built_constants``)."""
        return {}

    def prepare(self, mode: str) -> None:  # noqa: B027 (an optional hook: doing nothing is the default)
        """Imports and warm-up done once in the column process, so forked workers do not pay them again."""

    def schedules(self, scenario: Scenario, mode: str) -> tuple[str, ...]:
        """The orderings a scenario whose result would race runs under, each forced by the column and
        recorded as its own sub-case ``<scenario>@<schedule>``; empty when nothing races."""
        return ()

    @abstractmethod
    def perform(self, scenario: Scenario, scratch: Path, request: StepRequest, mode: str) -> StepOutcome:
        """Play one driver step in this (worker) process, from what is on disk in ``scratch``."""

    @abstractmethod
    def facts(self, run: ScenarioRun, mode: str) -> list[StepFacts]:
        """What the column's own trace says happened in each step."""

    def detail(self, run: ScenarioRun, mode: str) -> dict[str, Any]:
        """Native state and shape, recorded but never compared."""
        return {}

    def tool_schemas(self, names: list[str], mode: str) -> dict[str, dict[str, Any]] | None:
        """The JSON schema of each named tool's own object in the framework, built as ``mode`` builds it and read from
        the object the documented way (LangChain's ``tool_call_schema``, the Agents SDK's ``params_json_schema``, ...),
        before any model request is made of it: the wire observable's ``schema_diff`` compares the registry with it
        (what declaring the tool so loses) and it with the request (what the framework rewrites). None: not reported."""
        return None

    def check_mode(self, mode: str) -> None:
        if mode not in self.modes:
            raise ValueError(f"{self.name} runs in modes {self.modes}, not {mode!r}")
