"""The ``langgraph`` column: a hand-built LangGraph ``StateGraph`` agent, one driver step per worker.

Every worker rebuilds the graph and opens the SQLite checkpointer file
(``<scratch>/langgraph.sqlite``, ``langgraph.checkpoint.sqlite.SqliteSaver``); the
session id is the ``thread_id``. See ``MAPPING.md`` next to this file for how each driver
step maps onto LangGraph; in short:

- ``run`` / ``deliver_again``: ``graph.stream({"messages": [HumanMessage(input)]}, config)``.
  Defaults runs a repeated event again; contract glue refuses a seen event id (``duplicate_event``).
- ``approve`` / ``misuse_token`` / ``reject``: ``Command(resume={"action", "call_id", "token" | "reason"})``
  answers the approval node's ``interrupt()``. Defaults has no token: any answer with
  ``action: approve`` approves (a misused token too). Contract glue verifies the token
  (``other_args``, ``other_session``, ``expired``, ``forged``, ``reused``) and the node asks
  again; an answer with no question pending is refused ``not_pending`` before LangGraph sees it.
- ``resume``: always ``graph.stream(None, config)``, the way LangGraph continues a saved state:
  it runs the tasks of the latest checkpoint's ``next`` (a task whose writes were saved is not
  run again), an interrupted node again (it asks again, or takes an answer saved before a
  kill), or nothing on a finished thread; the session never decides that nothing needs to
  run. An answer sent with no interrupt pending is run by LangGraph as nothing, silently.
- ``reconcile``: contract only (an ``interrupt()`` in the tool guard); defaults refuses it.
- ``snapshot`` / ``restore``: the checkpoint id of ``get_state()`` is remembered; ``restore``
  makes the next step continue from that checkpoint's config (LangGraph time travel).
- Status: an approval interrupt is ``awaiting_approval``, a reconcile interrupt
  ``reconcile_required``, ``GraphRecursionError`` ``stopped_max_steps``; ``completed`` only
  when LangGraph finished the run itself (no task left, no interrupt, the last message an
  ``AIMessage`` without tool calls); a checkpoint with tasks left (a run that died mid-way) or
  a thread with no final answer and nothing LangGraph will run (a lost run) is ``crashed``.
  Any other exception from the graph is the step's error (in defaults, ``ToolNode``
  re-raises every tool exception that is not an argument-validation error).

Cases LangGraph cannot express (``n/a`` in defaults, glue in contract): an inbound event id,
approval tokens, a policy that denies a tool, an uncertain call and its reconciliation (a
``reconcile`` step is refused ``not supported by langgraph``), an intent checkpoint before
the executor (``engine.kill_after_checkpoint`` never fires in defaults) and any record of
executed tool calls (deduplication in contract mode is always the glue's).

Defaults mode uses LangGraph's default durability (``async``: the checkpoint and task writes of a
finished super-step are written by a background thread while the next one runs, so a kill in
the model or a tool races them). A scenario with such a kill runs once per forced ordering,
each its own sub-case ``<scenario>@<schedule>``: ``write_held`` (the writes of the super-step
before the killed one never land) and ``write_landed`` (every write submitted before the kill
lands); see ``adapters/checkpoint_schedule.py``. Contract mode writes checkpoints
synchronously, so the step that names a call is on disk before its tool runs: nothing races.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.canonical_io import canonical_line
from harness.driver import ScenarioRun, trace_path
from harness.observables import StepFacts
from harness.scenarios import Scenario
from harness.world import FixtureWorld

from . import explain

COLUMN = "langgraph"
MODES = ("defaults", "contract")


def prepare(mode: str) -> None:
    """Import LangGraph once in the column process: forked workers inherit it."""
    from . import session  # noqa: F401  (LangGraph, LangChain core, the checkpointer, the glue)


def schedules(scenario: Scenario, mode: str) -> tuple[str, ...]:
    """The forced orderings a scenario runs under (``adapters/checkpoint_schedule.py``): in defaults a kill inside
    the model or a tool races the asynchronous checkpoint write (``write_held``, ``write_landed``); in both modes a
    kill inside one call of a batch races ToolNode's other threads (``siblings_first``, ``kill_first``)."""
    from adapters.checkpoint_schedule import schedules as forced

    _check(mode)
    return forced(scenario, mode)


def perform(scenario: Scenario, scratch: Path, request: dict[str, Any], mode: str) -> dict[str, Any]:
    """Run one driver step in this (worker) process."""
    from .session import Session

    _check(mode)
    world = FixtureWorld(scratch, list(scenario.faults), may_kill=True)
    session = Session.open(scenario, scratch, request, mode, world)
    try:
        return session.act(request)
    except Exception as exc:  # e.g. ToolNode re-raised a tool's exception: MAPPING.md says which ones are LangGraph's own
        _trace_run_failed(scratch, request, exc)
        raise
    finally:
        session.close()
        world.close()


def _trace_run_failed(scratch: Path, request: dict[str, Any], exc: BaseException) -> None:
    with open(trace_path(scratch), "a", encoding="utf-8") as trace:
        trace.write(canonical_line({"driver_step": request["index"], "kind": "run_failed", "error": f"{type(exc).__name__}: {exc}"}))


def facts(run: ScenarioRun, mode: str) -> list[StepFacts]:
    """What the column's trace says happened in each step."""
    _check(mode)
    out: list[StepFacts] = []
    for step in run.steps:
        f = StepFacts(dedup_by="glue")  # this column deduplicates only through contract glue
        for e in step.trace:
            match e["kind"]:
                case "tool_result":
                    f.results.append({"call_id": e["call_id"], "status": e["status"], "content": e["content"]})
                    f.dedup = f.dedup or e["status"] == "replayed"
                case "approval_granted":
                    f.approvals_granted.append(e["call_id"])
                case "duplicate_event":
                    f.dedup = True
                case "resumed":
                    f.resumed = {k: e[k] for k in ("position", "pending_call", "approved_call_ids")}
                case "paused":
                    f.validated_before_pause = e["validated"]
        out.append(f)
    return out


def detail(run: ScenarioRun, mode: str) -> dict[str, Any]:
    """The graph's shape (nodes, edges, conditional edges, Mermaid), the super-steps this scenario took, the
    final checkpoint's ``next``, and explanations of what LangGraph did, from this run's own trace."""
    from .session import shape

    _check(mode)
    super_steps = sum(1 for step in run.steps for e in step.trace if e["kind"] == "super_step")
    final = [e for step in run.steps for e in step.trace if e["kind"] == "state"]
    return {
        "graph": {**shape(run.scenario, mode), "super_steps": super_steps},
        "final_next": final[-1]["next"] if final else None,
        "explanations": explain.explanations(run, mode),
    }


def _check(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"{COLUMN} runs in modes {MODES}, not {mode!r}")
