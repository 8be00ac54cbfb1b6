"""The race of LangGraph's asynchronous checkpoint write against a kill, forced by schedule
(``adapters/checkpoint_schedule.py``), on real SqliteSaver files in the column's own environment."""

from __future__ import annotations

import json
import textwrap

import lg_env

python, run_in_column = lg_env.python, lg_env.run_in_column  # the column's interpreter (pytest fixtures)


def _run(run_in_column, code: str, tmp: str) -> dict:  # type: ignore[no-untyped-def]
    """Run ``code`` on the column's interpreter; it prints one JSON document as its last line."""
    return json.loads(run_in_column(code, tmp).strip().splitlines()[-1])


SCENARIO_RUNS = textwrap.dedent("""
    import json
    from pathlib import Path
    from adapters.langgraph.column import LangGraphColumn
    from harness.column_side.column_main import run_raw
    from harness.scenarios import load_scenarios

    column = LangGraphColumn()
    column.prepare("defaults")
    scenarios = {s.id: s for s in load_scenarios()}
    out = {}
    for sid in SCENARIOS:
        for schedule in column.schedules(scenarios[sid], "defaults"):
            record = run_raw(column, scenarios[sid], "defaults", Path(TMP) / f"{sid}@{schedule}", schedule=schedule)
            out[f"{sid}@{schedule}"] = {
                "statuses": [s["session_status"] for s in record["steps"]],
                "effects": {c: n["effects"] for c, n in record["steps"][-1]["ledger"].items()},
                "resumed": [{k: e[k] for k in ("position", "next")} for s in record["steps"] for e in s["trace"] if e["kind"] == "resumed"],
                "turns": record["model"]["calls_per_turn"],
            }
    print(json.dumps(out))
""")


def test_schedules_only_where_a_kill_inside_the_framework_races_the_async_write(run_in_column, tmp_path) -> None:
    schedules = _run(run_in_column, """
        import json
        from adapters.langgraph.column import LangGraphColumn
        from harness.scenarios import load_scenarios
        column = LangGraphColumn()
        print(json.dumps({m: {s.id: list(column.schedules(s, m)) for s in load_scenarios() if column.schedules(s, m)} for m in column.modes}))
    """, str(tmp_path))
    both = ["write_held", "write_landed"]
    # engine.kill_after_checkpoint never fires in LangGraph; contract writes with durability="sync"
    assert schedules == {"defaults": {"crash_resume": both, "kill_before_effect": both, "side_effect_before_checkpoint": both}, "contract": {}}


def test_each_ordering_of_the_kill_scenarios_resumes_the_way_langgraph_does(run_in_column, tmp_path) -> None:
    runs = _run(run_in_column, "SCENARIOS = ['crash_resume', 'side_effect_before_checkpoint', 'kill_before_effect']\n" + SCENARIO_RUNS, str(tmp_path))
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
    # the approval survives either way: the approval tasks' step is two super-steps before the tools step the kill
    # is in, and its writes landed; held loses the dispatch step, landed keeps it; both run the tools task again
    for sid, effects in (("side_effect_before_checkpoint", 2), ("kill_before_effect", 1)):
        for schedule, resumed_at in (("write_held", "dispatch"), ("write_landed", "tools")):
            run = runs[f"{sid}@{schedule}"]
            assert run["statuses"] == ["awaiting_approval", "crashed", "completed", "completed"], (sid, schedule)
            assert run["effects"] == {"c1": effects}, (sid, schedule)
            assert run["resumed"] == [{"position": "before_execute", "next": [resumed_at]}], (sid, schedule)


def test_the_saver_lands_what_the_schedule_says_on_a_real_sqlite_file(run_in_column, tmp_path) -> None:
    """A three-node graph killed inside node ``c`` (super-step 3): held keeps the newest checkpoint at step 1,
    landed at step 2; a run that ends normally lands every write, exactly like a plain SqliteSaver."""
    result = _run(run_in_column, """
        import json, os, sqlite3, multiprocessing
        from langchain_core.messages import AIMessage, HumanMessage
        from langgraph.graph import END, START, MessagesState, StateGraph
        from adapters import checkpoint_schedule

        class Faults:
            hooks = []

            @classmethod
            def on_kill(cls, hook):
                cls.hooks.append(hook)

        def graph(saver, kill):
            def node(name):
                def run(state):
                    if name == "c" and kill:
                        for hook in Faults.hooks:
                            hook(None)
                        os._exit(86)
                    return {"messages": [AIMessage(name)]}
                return run
            g = StateGraph(MessagesState)
            for name in "abc":
                g.add_node(name, node(name))
            g.add_edge(START, "a"); g.add_edge("a", "b"); g.add_edge("b", "c"); g.add_edge("c", END)
            return g.compile(checkpointer=saver)

        def run(path, schedule, kill):
            saver = checkpoint_schedule.checkpointer(sqlite3.connect(path, check_same_thread=False), schedule, Faults)
            try:
                list(graph(saver, kill).stream({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}}))
            finally:
                getattr(saver, "flush", lambda: None)()

        def on_disk(path):
            saver = checkpoint_schedule.checkpointer(sqlite3.connect(path), None, None)
            latest = saver.get_tuple({"configurable": {"thread_id": "t"}})
            steps = sorted(c.metadata["step"] for c in saver.list({"configurable": {"thread_id": "t"}}))
            writes = sqlite3.connect(path).execute("SELECT count(*) FROM writes").fetchone()[0]
            return {"latest": latest.metadata["step"], "steps": steps, "writes": writes}

        out = {}
        for schedule in ("write_held", "write_landed"):
            path = f"{TMP}/{schedule}.sqlite"
            child = multiprocessing.get_context("fork").Process(target=run, args=(path, schedule, True))
            child.start(); child.join()
            assert child.exitcode == 86, child.exitcode
            out[schedule] = on_disk(path)
        for schedule in (None, "write_held"):
            path = f"{TMP}/{schedule}-ends.sqlite"
            run(path, schedule, False)
            out[f"ends-{schedule}"] = on_disk(path)
        try:
            checkpoint_schedule._before_kill(checkpoint_schedule.ScheduledSaver(sqlite3.connect(":memory:"), "write_held"), False)
        except checkpoint_schedule.ScheduleError as exc:
            out["outside_a_task"] = str(exc)
        print(json.dumps(out))
    """, str(tmp_path))
    # steps: -1 the input, 0 START's task, 1 a, 2 b, 3 c (killed); a task's writes are saved against the step before
    assert result["write_held"]["latest"] == 1 and result["write_held"]["steps"] == [-1, 0, 1]
    assert result["write_landed"]["latest"] == 2 and result["write_landed"]["steps"] == [-1, 0, 1, 2]
    assert result["write_held"]["writes"] < result["write_landed"]["writes"]  # b's writes never landed
    assert result["ends-None"] == result["ends-write_held"] == {"latest": 3, "steps": [-1, 0, 1, 2, 3], "writes": result["ends-None"]["writes"]}
    assert "cannot force the schedule" in result["outside_a_task"] and "outside of a runnable context" in result["outside_a_task"]
