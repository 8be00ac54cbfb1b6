"""The state-graph runtime on toy graphs: builder validation, routing, checkpoints, interrupts, metadata."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from adapters.local_state_graph.checkpointer import Checkpoint, MemorySaver, SqliteSaver
from adapters.local_state_graph.graph import (
    END,
    CompiledGraph,
    GraphError,
    RunContext,
    StateGraph,
)


def append(name: str):  # type: ignore[no-untyped-def]
    """A node that appends its name to the ``path`` value."""
    return lambda values, run: {"path": values["path"] + [name]}


def line(*names: str) -> StateGraph:
    """a -> b -> ... -> END."""
    graph = StateGraph({"path": []})
    for name in names:
        graph.add_node(name, append(name))
    graph.set_entry_point(names[0])
    for source, target in zip(names, [*names[1:], END], strict=True):
        graph.add_edge(source, target)
    return graph


# -- builder validation ---------------------------------------------------------------------


def test_a_graph_without_entry_point_does_not_compile() -> None:
    graph = StateGraph()
    graph.add_node("a", append("a"))
    graph.add_edge("a", END)
    with pytest.raises(GraphError, match="no entry point"):
        graph.compile(MemorySaver())


def test_unknown_nodes_are_named() -> None:
    graph = line("a")
    graph.add_node("b", append("b"))
    graph.add_conditional_edges("b", lambda values: "nowhere", ["nowhere", END])
    graph.add_edge("ghost", "a")
    with pytest.raises(GraphError) as error:
        graph.compile(MemorySaver())
    assert "edge b -> nowhere: unknown node 'nowhere'" in str(error.value)
    assert "edges leave 'ghost', which is not a node" in str(error.value)


def test_unreachable_nodes_are_named() -> None:
    graph = line("a", "b")
    graph.add_node("orphan", append("orphan"))
    graph.add_edge("orphan", "a")
    with pytest.raises(GraphError, match="unreachable from the entry point: orphan"):
        graph.compile(MemorySaver())


def test_an_entry_point_that_is_not_a_node_and_a_node_without_way_out_are_named() -> None:
    graph = StateGraph()
    graph.add_node("a", append("a"))
    graph.set_entry_point("start_here")
    with pytest.raises(GraphError) as error:
        graph.compile(MemorySaver())
    assert "entry point 'start_here' is not a node" in str(error.value)
    assert "node 'a' has no outgoing edge" in str(error.value)


def test_builder_refuses_reserved_or_duplicate_names_and_a_second_way_out() -> None:
    graph = line("a")
    for name in ("a", END, "__start__"):
        with pytest.raises(GraphError, match="reserved or already used"):
            graph.add_node(name, append(name))
    with pytest.raises(GraphError, match="already has its way out"):
        graph.add_conditional_edges("a", lambda values: END, [END])
    with pytest.raises(GraphError, match="at least one target"):
        graph.add_conditional_edges("b", lambda values: END, [])


# -- running --------------------------------------------------------------------------------


def branching() -> StateGraph:
    graph = StateGraph({"path": [], "n": 0})
    for name in ("start", "small", "large"):
        graph.add_node(name, append(name))
    graph.set_entry_point("start")
    graph.add_conditional_edges("start", lambda values: "large" if values["n"] > 10 else "small", ["small", "large"])
    graph.add_edge("small", END)
    graph.add_edge("large", END)
    return graph


def test_conditional_edges_route_on_the_values() -> None:
    graph = branching().compile(MemorySaver())
    assert graph.invoke("t1", {"n": 3}).values["path"] == ["start", "small"]
    assert graph.invoke("t2", {"n": 30}).values["path"] == ["start", "large"]


def test_a_router_choosing_an_undeclared_target_is_an_error() -> None:
    graph = StateGraph()
    graph.add_node("a", append("a"))
    graph.set_entry_point("a")
    graph.add_conditional_edges("a", lambda values: "b", [END])
    with pytest.raises(GraphError, match="chose 'b', which is not one of its targets"):
        graph.compile(MemorySaver()).invoke("t", {"path": []})


def test_a_checkpoint_follows_every_super_step() -> None:
    saver, observed = MemorySaver(), []
    graph = line("a", "b", "c").compile(saver, after_step=lambda node, checkpoint: observed.append((node, checkpoint.checkpoint_id)))
    final = graph.invoke("t", {})
    assert (final.checkpoint_id, final.step, final.next, final.values["path"]) == (4, 3, END, ["a", "b", "c"])
    history = [saver.get("t", i) for i in range(1, 5)]
    assert [(c.source, c.step, c.next, c.values["path"]) for c in history if c] == [
        ("input", 0, "a", []),
        ("a", 1, "b", ["a"]),
        ("b", 2, "c", ["a", "b"]),
        ("c", 3, END, ["a", "b", "c"]),
    ]
    assert observed == [("a", 2), ("b", 3), ("c", 4)]  # each super-step observed once its checkpoint is saved


def test_a_finished_thread_takes_new_input_on_top_of_its_values() -> None:
    graph = line("a").compile(MemorySaver())
    graph.invoke("t", {"path": ["x"]})
    assert graph.invoke("t", {"extra": 1}).values == {"path": ["x", "a", "a"], "extra": 1}


def test_after_a_crash_the_thread_continues_from_its_latest_checkpoint() -> None:
    crashes = iter([True])

    def fragile(values: Any, run: RunContext) -> dict[str, Any]:
        if next(crashes, False):
            raise RuntimeError("process died")
        return {"path": values["path"] + ["fragile"]}

    graph = StateGraph({"path": []})
    graph.add_node("a", append("a"))
    graph.add_node("fragile", fragile)
    graph.set_entry_point("a")
    graph.add_edge("a", "fragile")
    graph.add_edge("fragile", END)
    compiled = graph.compile(MemorySaver())
    with pytest.raises(RuntimeError):
        compiled.invoke("t", {})
    state = compiled.get_state("t")
    assert state is not None and (state.next, state.values["path"]) == ("fragile", ["a"])
    with pytest.raises(GraphError, match="unfinished run"):
        compiled.invoke("t", {"path": []})
    assert compiled.invoke("t", None).values["path"] == ["a", "fragile"]  # "a" did not run again


def test_a_node_must_return_a_mapping_and_loops_meet_the_recursion_limit() -> None:
    graph = StateGraph({"n": 0})
    graph.add_node("spin", lambda values, run: {"n": values["n"] + 1})
    graph.set_entry_point("spin")
    graph.add_conditional_edges("spin", lambda values: "spin", ["spin", END])
    saver = MemorySaver()
    with pytest.raises(GraphError, match="recursion limit: 5 super-steps"):
        graph.compile(saver, recursion_limit=5).invoke("t", {})
    latest = saver.latest("t")
    assert latest is not None and latest.values["n"] == 5  # what ran is checkpointed

    bad = StateGraph()
    bad.add_node("a", lambda values, run: ["not", "a", "mapping"])  # type: ignore[arg-type, return-value]
    bad.set_entry_point("a")
    bad.add_edge("a", END)
    with pytest.raises(GraphError, match="returned list, not a mapping"):
        bad.compile(MemorySaver()).invoke("t", {})


# -- interrupts -----------------------------------------------------------------------------


def approval_graph() -> StateGraph:
    """ask interrupts until it gets a "yes" or "no"; any other answer is refused and asked again."""

    def ask(values: Any, run: RunContext) -> dict[str, Any]:
        question: dict[str, Any] = {"question": f"may I {values['plan']}?"}
        while True:
            answer = run.interrupt(question)
            if answer in ("yes", "no"):
                return {"decision": answer, "asked": values["asked"] + 1}
            question = {**question, "refused": f"{answer!r} is not yes or no"}

    graph = StateGraph({"plan": "", "decision": None, "asked": 0, "path": []})
    graph.add_node("plan", lambda values, run: {"plan": "send the email"})
    graph.add_node("ask", ask)
    graph.add_node("act", append("act"))
    graph.set_entry_point("plan")
    graph.add_edge("plan", "ask")
    graph.add_conditional_edges("ask", lambda values: "act" if values["decision"] == "yes" else END, ["act", END])
    graph.add_edge("act", END)
    return graph


def test_interrupt_and_resume_across_fresh_compiled_graphs_on_one_sqlite_file(tmp_path: Path) -> None:
    path = str(tmp_path / "graph.sqlite")
    first_saver = SqliteSaver(path)
    paused = approval_graph().compile(first_saver).invoke("t", {})
    first_saver.close()
    assert (paused.next, paused.interrupt) == ("ask", {"question": "may I send the email?"})

    # A fresh process: a new saver on the same file and a newly compiled graph.
    fresh = approval_graph().compile(SqliteSaver(path))
    state = fresh.get_state("t")
    assert state == paused
    refused = fresh.resume("t", "maybe")
    assert (refused.next, refused.interrupt["refused"], refused.values["asked"]) == ("ask", "'maybe' is not yes or no", 0)
    done = approval_graph().compile(SqliteSaver(path)).resume("t", "yes")
    assert (done.next, done.interrupt, done.values["decision"], done.values["path"]) == (END, None, "yes", ["act"])
    assert done.step == 5  # plan, ask (interrupted), ask (refused, asks again), ask, act


def test_continuing_an_interrupted_thread_asks_again_and_resume_needs_a_pending_question() -> None:
    graph = approval_graph().compile(MemorySaver())
    with pytest.raises(GraphError, match="no checkpoint to continue from"):
        graph.invoke("t", None)
    graph.invoke("t", {})
    again = graph.invoke("t", None)
    assert (again.next, again.interrupt) == ("ask", {"question": "may I send the email?"})
    graph.resume("t", "no")
    with pytest.raises(GraphError, match="no pending interrupt"):
        graph.resume("t", "yes")


def test_restore_makes_an_earlier_checkpoint_the_latest_again() -> None:
    graph = approval_graph().compile(MemorySaver())
    paused = graph.invoke("t", {})
    graph.resume("t", "yes")
    restored = graph.restore("t", paused.checkpoint_id)
    assert (restored.checkpoint_id, restored.source, restored.next, restored.interrupt) == (6, "restore", "ask", paused.interrupt)
    again = graph.resume("t", "yes")
    assert (again.values["path"], again.checkpoint_id) == (["act"], 8)  # the earlier values, and the history goes on
    with pytest.raises(GraphError, match="no checkpoint 99"):
        graph.restore("t", 99)


# -- the compiled graph ---------------------------------------------------------------------


def test_the_compiled_graph_is_immutable_and_independent_of_its_builder() -> None:
    builder = line("a")
    graph = builder.compile(MemorySaver())
    builder.add_node("b", append("b"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        graph.entry = "b"  # type: ignore[misc]
    with pytest.raises(TypeError):
        graph.nodes["b"] = append("b")  # type: ignore[index]
    assert list(graph.nodes) == ["a"]
    assert isinstance(graph, CompiledGraph)


def test_metadata_names_nodes_edges_conditional_targets_and_super_steps() -> None:
    graph = branching().compile(MemorySaver())
    graph.invoke("t", {"n": 1})
    assert graph.describe("t") == {
        "entry": "start",
        "nodes": ["start", "small", "large"],
        "edges": [["__start__", "start"], ["small", END], ["large", END]],
        "conditional_edges": {"start": ["small", "large"]},
        "super_steps": 2,
    }
    assert "super_steps" not in graph.describe()


def test_mermaid_export_is_a_deterministic_flowchart() -> None:
    assert branching().compile(MemorySaver()).mermaid() == (
        "flowchart TD\n"
        "    __start__([__start__])\n"
        "    start[start]\n"
        "    small[small]\n"
        "    large[large]\n"
        "    __end__([__end__])\n"
        "    __start__ --> start\n"
        "    start -.-> small\n"
        "    start -.-> large\n"
        "    small --> __end__\n"
        "    large --> __end__\n"
    )


def test_get_state_is_the_latest_checkpoint() -> None:
    graph = line("a").compile(MemorySaver())
    assert graph.get_state("t") is None
    final = graph.invoke("t", {})
    assert graph.get_state("t") == final == Checkpoint("t", 2, 1, "a", {"path": ["a"]}, END)
