"""The race of LangGraph's asynchronous checkpoint write against a kill, forced by schedule
(``adapters/checkpoint_schedule.py``), on real SqliteSaver files."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph

from adapters import checkpoint_schedule
from adapters.langgraph.column import LangGraphColumn
from harness.column_side.column_main import run_raw
from harness.scenarios import load_scenarios

BOTH = ["write_held", "write_landed"]
SIBLINGS = ["siblings_first", "kill_first"]


def test_schedules_only_where_a_kill_inside_the_framework_races_the_async_write() -> None:
    column = LangGraphColumn()
    schedules = {m: {s.id: list(column.schedules(s, m)) for s in load_scenarios() if column.schedules(s, m)} for m in column.modes}
    # engine.kill_after_checkpoint never fires in LangGraph; contract writes with durability="sync"
    killed = ("crash_resume", "decision_after_kill", "kill_before_effect", "misused_args_kill_restore", "side_effect_before_checkpoint",
              "snapshot_after_kill_before_first_turn", "snapshot_after_kill_between_turns", "snapshot_of_crashed_run", "wire_faults_around_pause")
    # a kill inside one call of a batch the framework runs in threads races the batch's other calls too, in every mode
    in_batch = ("kill_in_batch_after_approved", "misused_approval_kill_resume", "two_transfers_flaky_note_kill")
    both_races = [f"{w}+{s}" for w in BOTH for s in SIBLINGS]
    expected = dict.fromkeys(killed, BOTH) | dict.fromkeys(in_batch, both_races)
    mcp = {"mcp": {}} if "mcp" in column.modes else {}  # mcp (the default pin only): the tools run in the server, nothing to order here
    assert schedules == {"defaults": expected, "wire": expected, "contract": dict.fromkeys(in_batch, SIBLINGS)} | mcp


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each kill scenario of defaults run once per forced ordering: what each run shows, by ``<id>@<schedule>``."""
    scratch = tmp_path_factory.mktemp("schedules")
    column = LangGraphColumn()
    column.prepare("defaults")
    scenarios = {s.id: s for s in load_scenarios()}
    out = {}
    for sid in ("crash_resume", "side_effect_before_checkpoint", "kill_before_effect"):
        for schedule in column.schedules(scenarios[sid], "defaults"):
            record = run_raw(column, scenarios[sid], "defaults", scratch / f"{sid}@{schedule}", schedule=schedule)
            out[f"{sid}@{schedule}"] = {
                "statuses": [s["session_status"] for s in record["steps"]],
                "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items()},
                "resumed": [{k: e[k] for k in ("position", "next")} for s in record["steps"] for e in s["trace"] if e["kind"] == "resumed"],
                "turns": record["model"]["calls_per_turn"],
            }
    return out


def test_crash_resume_runs_the_tools_task_again_or_continues_at_the_model_turn(runs: dict[str, dict[str, Any]]) -> None:
    # held: the checkpoint after put_note never landed, so LangGraph runs the tools task again
    assert runs["crash_resume@write_held"] == {
        "statuses": ["crashed", "completed"], "effects": {"c1": 2, "c2": 0}, "resumed": [{"position": "before_execute", "next": ["tools"]}],
        "turns": {"0": 1, "1": 2, "2": 1},
    }
    # landed: the resume continues at the model turn the kill interrupted (c2 runs, the script is used up)
    assert runs["crash_resume@write_landed"] == {
        "statuses": ["crashed", "completed"], "effects": {"c1": 1, "c2": 0}, "resumed": [{"position": "model_turn", "next": ["agent"]}],
        "turns": {"0": 1, "1": 2, "2": 1},
    }


@pytest.mark.parametrize(("sid", "effects"), [("side_effect_before_checkpoint", 2), ("kill_before_effect", 1)])
@pytest.mark.parametrize(("schedule", "resumed_at"), [("write_held", "dispatch"), ("write_landed", "tools")])
def test_the_approval_survives_the_kill_in_either_ordering(runs: dict[str, dict[str, Any]], sid: str, effects: int, schedule: str, resumed_at: str) -> None:
    """The approval tasks' step is two super-steps before the tools step the kill is in, and its writes landed;
    held loses the dispatch step, landed keeps it; both run the tools task again."""
    run = runs[f"{sid}@{schedule}"]
    assert run["statuses"] == ["awaiting_approval", "crashed", "completed", "completed"]
    assert run["effects"] == {"c1": effects}
    assert run["resumed"] == [{"position": "before_execute", "next": [resumed_at]}]


class Faults:
    """The fault injector's ``on_kill`` hook registry, all ``checkpoint_schedule.checkpointer`` asks of it."""

    hooks: list[Callable[[Any], None]] = []

    @classmethod
    def on_kill(cls, hook: Callable[[Any], None]) -> None:
        cls.hooks.append(hook)


def three_nodes(saver: Any, kill: bool) -> Any:
    """START -> a -> b -> c -> END; with ``kill``, node ``c`` runs the kill hooks and exits the process (86)."""

    def node(name: str) -> Callable[[Any], dict[str, Any]]:
        def run(state: Any) -> dict[str, Any]:
            if name == "c" and kill:
                for hook in Faults.hooks:
                    hook(None)
                os._exit(86)
            return {"messages": [AIMessage(name)]}

        return run

    graph = StateGraph(MessagesState)
    for name in "abc":
        graph.add_node(name, node(name))
    graph.add_edge(START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", "c")
    graph.add_edge("c", END)
    return graph.compile(checkpointer=saver)


def run_graph(path: str, schedule: str | None, kill: bool) -> None:
    saver = checkpoint_schedule.checkpointer(sqlite3.connect(path, check_same_thread=False), schedule, Faults)
    try:
        list(three_nodes(saver, kill).stream({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}}))
    finally:
        getattr(saver, "flush", lambda: None)()


def on_disk(path: str) -> dict[str, Any]:
    """The newest checkpoint's step, every saved step and the count of saved writes, read back from the file."""
    saver = checkpoint_schedule.checkpointer(sqlite3.connect(path), None, None)
    latest = saver.get_tuple({"configurable": {"thread_id": "t"}})
    steps = sorted(c.metadata["step"] for c in saver.list({"configurable": {"thread_id": "t"}}))
    writes = sqlite3.connect(path).execute("SELECT count(*) FROM writes").fetchone()[0]
    return {"latest": latest.metadata["step"], "steps": steps, "writes": writes}


def test_the_saver_lands_what_the_schedule_says_on_a_real_sqlite_file(tmp_path: Path) -> None:
    """A three-node graph killed inside node ``c`` (super-step 3): held keeps the newest checkpoint at step 1,
    landed at step 2; a run that ends normally lands every write, exactly like a plain SqliteSaver."""
    result = {}
    for schedule in ("write_held", "write_landed"):
        path = str(tmp_path / f"{schedule}.sqlite")
        child = multiprocessing.get_context("fork").Process(target=run_graph, args=(path, schedule, True))
        child.start()
        child.join()
        assert child.exitcode == 86, child.exitcode
        result[schedule] = on_disk(path)
    for ends in (None, "write_held"):
        path = str(tmp_path / f"{ends}-ends.sqlite")
        run_graph(path, ends, False)
        result[f"ends-{ends}"] = on_disk(path)
    # steps: -1 the input, 0 START's task, 1 a, 2 b, 3 c (killed); a task's writes are saved against the step before
    assert result["write_held"]["latest"] == 1 and result["write_held"]["steps"] == [-1, 0, 1]
    assert result["write_landed"]["latest"] == 2 and result["write_landed"]["steps"] == [-1, 0, 1, 2]
    assert result["write_held"]["writes"] < result["write_landed"]["writes"]  # b's writes never landed
    assert result["ends-None"] == result["ends-write_held"] == {"latest": 3, "steps": [-1, 0, 1, 2, 3], "writes": result["ends-None"]["writes"]}


def test_forcing_a_schedule_outside_a_task_is_refused() -> None:
    with pytest.raises(checkpoint_schedule.ScheduleError) as refused:
        checkpoint_schedule._before_kill(checkpoint_schedule.ScheduledSaver(sqlite3.connect(":memory:"), "write_held"), False)
    assert "cannot force the schedule" in str(refused.value) and "outside of a runnable context" in str(refused.value)
