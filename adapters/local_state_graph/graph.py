"""A small state-graph runtime in the spirit of LangGraph, with no dependencies.

``StateGraph`` is the builder: named nodes, edges, conditional edges and an entry
point. ``compile`` validates it and returns a ``CompiledGraph``: immutable, it runs
threads one node at a time (one node execution is one super-step) and saves a
checkpoint after every super-step, so a fresh process continues a thread from what is
on disk. A node is ``fn(values, run) -> update``: it reads the thread's values (and
must not mutate them), returns the keys it changes, and may pause the run with
``run.interrupt(question)`` until ``resume`` brings an answer.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .checkpointer import Checkpoint, Checkpointer

START = "__start__"
END = "__end__"
DEFAULT_RECURSION_LIMIT = 1000

Values = Mapping[str, Any]
Node = Callable[[Values, "RunContext"], Mapping[str, Any] | None]
Router = Callable[[Values], str]
AfterStep = Callable[[str, Checkpoint], None]


class GraphError(Exception):
    """A graph that cannot compile, or a call the thread's state does not allow."""


class GraphInterrupt(Exception):
    """Raised by ``RunContext.interrupt``: the node waits for an answer; the runtime saves the question."""

    def __init__(self, question: Any) -> None:
        super().__init__("the run is waiting for an answer")
        self.question = question


_NO_ANSWER = object()


class RunContext:
    """What a node gets besides the values: its thread, the caller's ``context`` and ``interrupt``."""

    def __init__(self, thread_id: str, context: Any, answer: Any = _NO_ANSWER) -> None:
        self.thread_id = thread_id
        self.context = context
        self._answer = answer

    def interrupt(self, question: Any) -> Any:
        """Pause the run on ``question``; once ``resume`` brings an answer, return it.

        A resumed node runs again from its start and its first ``interrupt`` returns the
        answer; a later one asks again, so a node can refuse an answer and repeat itself.
        """
        if self._answer is _NO_ANSWER:
            raise GraphInterrupt(question)
        answer, self._answer = self._answer, _NO_ANSWER
        return answer


class StateGraph:
    """The builder. ``initial`` are the values a new thread starts from (input is merged into them)."""

    def __init__(self, initial: Values | None = None) -> None:
        self._initial = dict(initial or {})
        self._nodes: dict[str, Node] = {}
        self._edges: dict[str, str] = {}
        self._branches: dict[str, tuple[Router, tuple[str, ...]]] = {}
        self._entry: str | None = None

    def add_node(self, name: str, fn: Node) -> None:
        """Add node ``name``: ``fn(values, run)`` returns the values it changes (or None)."""
        if name in (START, END) or name in self._nodes:
            raise GraphError(f"node name {name!r} is reserved or already used")
        if not callable(fn):
            raise GraphError(f"node {name!r} must be callable")
        self._nodes[name] = fn

    def set_entry_point(self, name: str) -> None:
        """The node every new run starts at."""
        self._entry = name

    def add_edge(self, source: str, target: str) -> None:
        """After ``source``, always run ``target`` (END ends the run)."""
        self._claim_way_out(source)
        self._edges[source] = target

    def add_conditional_edges(self, source: str, router: Router, targets: Sequence[str]) -> None:
        """After ``source``, go where ``router(values)`` says: one of ``targets`` (END included)."""
        if not targets:
            raise GraphError(f"conditional edges of {source!r} need at least one target")
        self._claim_way_out(source)
        self._branches[source] = (router, tuple(targets))

    def _claim_way_out(self, source: str) -> None:
        # One node runs per super-step, so a node leaves by one edge or one router, never both.
        if source in self._edges or source in self._branches:
            raise GraphError(f"node {source!r} already has its way out")

    def compile(self, checkpointer: Checkpointer, *, after_step: AfterStep | None = None, recursion_limit: int = DEFAULT_RECURSION_LIMIT) -> CompiledGraph:
        """Validate the graph and freeze it with its checkpointer. ``after_step(node, checkpoint)``
        observes each super-step once its checkpoint is saved."""
        return CompiledGraph(
            entry=self._validated_entry(),
            nodes=MappingProxyType(dict(self._nodes)),
            edges=MappingProxyType(dict(self._edges)),
            branches=MappingProxyType(dict(self._branches)),
            initial=MappingProxyType(copy.deepcopy(self._initial)),
            checkpointer=checkpointer,
            after_step=after_step or (lambda node, checkpoint: None),
            recursion_limit=recursion_limit,
        )

    def _validated_entry(self) -> str:
        """The entry point of a graph that passed every check; else a ``GraphError`` naming every problem."""
        if self._entry is None:
            raise GraphError("the graph has no entry point: call set_entry_point(node)")
        known = set(self._nodes)
        problems = [] if self._entry in known else [f"entry point {self._entry!r} is not a node"]
        exits = {**{s: (t,) for s, t in self._edges.items()}, **{s: t for s, (_, t) in self._branches.items()}}
        for source, targets in exits.items():
            if source not in known:
                problems.append(f"edges leave {source!r}, which is not a node")
            problems += [f"edge {source} -> {target}: unknown node {target!r}" for target in targets if target not in known and target != END]
        problems += [f"node {name!r} has no outgoing edge (add one, to END if the run ends there)" for name in self._nodes if name not in exits]
        reached: set[str] = set()
        frontier = [self._entry]
        while frontier:
            name = frontier.pop()
            if name in known and name not in reached:
                reached.add(name)
                frontier += exits.get(name, ())
        if known - reached and not problems:
            problems.append(f"unreachable from the entry point: {', '.join(sorted(known - reached))}")
        if problems:
            raise GraphError("invalid graph: " + "; ".join(problems))
        return self._entry


@dataclass(frozen=True)
class CompiledGraph:
    """The immutable runtime: threads, super-steps, checkpoints, interrupts, metadata."""

    entry: str
    nodes: Mapping[str, Node]
    edges: Mapping[str, str]
    branches: Mapping[str, tuple[Router, tuple[str, ...]]]
    initial: Values
    checkpointer: Checkpointer
    after_step: AfterStep
    recursion_limit: int

    def invoke(self, thread_id: str, input: Values | None, *, context: Any = None) -> Checkpoint:
        """Start a run with ``input`` merged into the thread's values, or with ``None`` continue the
        thread from its latest checkpoint (after a crash the interrupted node runs again). New input on
        a thread whose run is unfinished is refused: resume or continue it first."""
        latest = self.checkpointer.latest(thread_id)
        if input is None:
            if latest is None:
                raise GraphError(f"thread {thread_id!r} has no checkpoint to continue from")
            return self._run(latest, context)
        if latest is not None and latest.next != END:
            raise GraphError(f"thread {thread_id!r} has an unfinished run (next: {latest.next}): resume or continue it first")
        values = {**(latest.values if latest else copy.deepcopy(dict(self.initial))), **input}
        start = self._save(thread_id, latest, "input", values, self.entry, stepped=False)  # the input survives a crash too
        return self._run(start, context)

    def resume(self, thread_id: str, answer: Any, *, context: Any = None) -> Checkpoint:
        """Answer the pending interrupt of ``thread_id``: its node runs again and gets ``answer``."""
        latest = self.checkpointer.latest(thread_id)
        if latest is None or latest.interrupt is None:
            raise GraphError(f"thread {thread_id!r} has no pending interrupt to resume")
        return self._run(latest, context, answer)

    def get_state(self, thread_id: str) -> Checkpoint | None:
        """The thread's latest checkpoint: values, next node, pending interrupt, super-steps taken."""
        return self.checkpointer.latest(thread_id)

    def restore(self, thread_id: str, checkpoint_id: int) -> Checkpoint:
        """Time travel: an earlier checkpoint becomes the thread's latest again (history is kept)."""
        earlier, latest = self.checkpointer.get(thread_id, checkpoint_id), self.checkpointer.latest(thread_id)
        if earlier is None or latest is None:
            raise GraphError(f"thread {thread_id!r} has no checkpoint {checkpoint_id}")
        return self._save(thread_id, latest, "restore", earlier.values, earlier.next, earlier.interrupt, stepped=False)

    def _run(self, checkpoint: Checkpoint, context: Any, answer: Any = _NO_ANSWER) -> Checkpoint:
        taken = 0
        while checkpoint.next != END:
            if taken == self.recursion_limit:
                raise GraphError(f"recursion limit: {taken} super-steps in one call without reaching END or an interrupt")
            taken += 1
            node = checkpoint.next
            run = RunContext(checkpoint.thread_id, context, answer)
            answer = _NO_ANSWER  # an answer is for the interrupted node only
            try:
                update = self.nodes[node](checkpoint.values, run) or {}
            except GraphInterrupt as pause:
                checkpoint = self._save(checkpoint.thread_id, checkpoint, node, checkpoint.values, node, pause.question)
                self.after_step(node, checkpoint)
                return checkpoint
            if not isinstance(update, Mapping):
                raise GraphError(f"node {node!r} returned {type(update).__name__}, not a mapping of updates")
            values = {**checkpoint.values, **update}
            checkpoint = self._save(checkpoint.thread_id, checkpoint, node, values, self._route(node, values))
            self.after_step(node, checkpoint)
        return checkpoint

    def _route(self, node: str, values: Values) -> str:
        if node in self.edges:
            return self.edges[node]
        router, targets = self.branches[node]
        target = router(values)
        if target not in targets:
            raise GraphError(f"the router after {node!r} chose {target!r}, which is not one of its targets {list(targets)}")
        return target

    def _save(self, thread_id: str, parent: Checkpoint | None, source: str, values: Values, next_node: str, interrupt: Any = None, *, stepped: bool = True) -> Checkpoint:
        checkpoint_id, step = (parent.checkpoint_id, parent.step) if parent else (0, 0)
        checkpoint = Checkpoint(thread_id, checkpoint_id + 1, step + 1 if stepped else step, source, values, next_node, interrupt)
        self.checkpointer.put(checkpoint)
        return checkpoint

    # -- metadata ---------------------------------------------------------------------

    def describe(self, thread_id: str | None = None) -> dict[str, Any]:
        """Nodes, edges, conditional edges with their targets and, for a thread, its super-steps."""
        shape: dict[str, Any] = {
            "entry": self.entry,
            "nodes": list(self.nodes),
            "edges": [[START, self.entry]] + [[source, target] for source, target in self.edges.items()],
            "conditional_edges": {source: list(targets) for source, (_, targets) in self.branches.items()},
        }
        if thread_id is not None:
            latest = self.get_state(thread_id)
            shape["super_steps"] = latest.step if latest else 0
        return shape

    def mermaid(self) -> str:
        """A Mermaid ``flowchart``: solid arrows for edges, dotted ones for conditional edges."""
        lines = ["flowchart TD", f"    {START}([{START}])"]
        lines += [f"    {name}[{name}]" for name in self.nodes]
        lines += [f"    {END}([{END}])", f"    {START} --> {self.entry}"]
        for source in self.nodes:
            if source in self.edges:
                lines.append(f"    {source} --> {self.edges[source]}")
            else:
                lines += [f"    {source} -.-> {target}" for target in self.branches[source][1]]
        return "\n".join(lines) + "\n"
