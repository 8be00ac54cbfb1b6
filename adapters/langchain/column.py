"""The ``langchain`` column: ``langchain.agents.create_agent`` + ``HumanInTheLoopMiddleware`` + ``SqliteSaver``.

Every driver step runs in a worker forked from the column process and rebuilds the
agent from the files in the scratch directory: LangGraph checkpoints in
``checkpoints.sqlite`` and, in ``contract`` mode, the glue's records in ``contract.sqlite``
and ``intents.jsonl`` (the ledger is the runner's). The base column (``adapters/column.py``)
does what needs no framework (in ``contract``: an event id claimed once, approval tokens,
the reconcile gate); the session (``session.py``) maps the driver's actions onto LangChain:

- ``run`` / ``deliver_again``: ``agent.stream({"messages": [user input]}, {"configurable":
  {"thread_id": session}})``; ``defaults`` has no inbound event id, so a second delivery is
  a new user turn.
- decisions: ``HumanInTheLoopMiddleware`` (default ``interrupt_mode="batched"``) takes a
  turn's decisions as one list matched by position to its action requests, so the column
  sets ``batched_decisions``: the base holds the driver's per-call decisions until the turn
  is decided and the session answers ``Command(resume={"decisions": [...]})`` in the order
  of the action requests. ``defaults`` has no token: a misused token goes in as an approval.
- ``resume``: always ``stream(None)`` from the latest checkpoint (the head after a restore);
  LangGraph decides what runs. With its default asynchronous durability (``defaults``) a
  kill in the model or a tool races the checkpoint write: such a scenario runs once per
  forced ordering (``schedules``; ``adapters/checkpoint_schedule.py``); ``contract`` writes
  with ``durability="sync"``. In both modes a kill inside one call of a batch races the
  other calls' tasks (``@siblings_first`` / ``@kill_first``).
- ``reconcile`` (``contract`` only): answers the glue's reconcile interrupt.
- ``snapshot`` / ``restore``: the latest checkpoint id; a restore makes the next step continue
  from that checkpoint (time travel), which forks the thread.

``mcp`` is ``defaults`` with every tool from the runner's MCP server through LangChain's documented MCP
client (``langchain.mcp.MCPAdapter``, ``mcp.py``): the same model, approval middleware and checkpoint file, every
run through ``astream`` (the client's tools are coroutines only).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, ClassVar

from adapters import checkpoint_schedule
from adapters.column import FrameworkColumn, SessionContext
from adapters.mcp_endpoint import endpoint
from harness.column_side.fixtures.world import FixtureWorld
from harness.records import ScenarioRun
from harness.scenarios import Scenario

from .agent import CHECKPOINTS, build_agent, checkpointer, gated_tools, run_context
from .session import AgentSession


class LangChainColumn(FrameworkColumn):
    """``create_agent`` with human-in-the-loop on a SQLite checkpointer; the contract as middleware around it."""

    name = "langchain"
    modes: ClassVar[tuple[str, ...]] = ("defaults", "contract", "wire", "mcp")
    batched_decisions = True
    approval_fields: ClassVar[dict[str, str]] = {"arguments": "langchain.agents.middleware.human_in_the_loop:EditDecision edited_action"}
    mechanisms: ClassVar[dict[str, str]] = {
        "loop": "langchain.agents.factory:create_agent",  # builds the model -> tools -> model graph and its routing edges
        "tool_dispatch": "langgraph.prebuilt.tool_node:ToolNode",  # create_agent runs every tool call through it
        "message_assembly": "langchain.agents.middleware.types:ModelRequest",  # system prompt + saved messages for each model call
        "approval": "langchain.agents.middleware.human_in_the_loop:HumanInTheLoopMiddleware",
        "persistence": "langgraph.checkpoint.sqlite:SqliteSaver",
    }

    def built_constants(self, scenario: Scenario, scratch: Path) -> dict[str, dict[str, Any]]:
        """``create_agent`` bounds its graph with a ``recursion_limit`` it writes in a literal config and binds with
        ``with_config`` (no name holds it): read it from the config of the agent ``defaults`` builds."""
        world, saver = FixtureWorld(scratch, [], may_kill=False), checkpointer(scratch)
        try:
            limit = build_agent(scenario, world, scratch, saver).config["recursion_limit"]
        finally:
            saver.conn.close()
            world.close()
        return {"step_limit": {"ref": "langchain.agents.factory:create_agent(...).config['recursion_limit']", "value": limit}}

    def prepare(self, mode: str) -> None:
        """Import LangChain and LangGraph once in the column process (and what a run imports on first use): forked
        workers inherit them."""
        import langchain.agents  # noqa: F401
        import langgraph.checkpoint.sqlite  # noqa: F401

        from adapters.langchain_tools import import_lazy_modules

        import_lazy_modules()
        if mode == "mcp":
            import adapters.langchain.mcp  # noqa: F401  (langchain.mcp, FastMCP and the MCP SDK)

    def schedules(self, scenario: Scenario, mode: str) -> tuple[str, ...]:
        """The forced orderings a scenario runs under (``adapters/checkpoint_schedule.py``): in ``defaults``
        (asynchronous durability) a kill inside the model or a tool races the checkpoint write (``write_held``,
        ``write_landed``); in both modes a kill inside one call of a batch races the turn's other call tasks
        (``siblings_first``, ``kill_first``)."""
        self.check_mode(mode)
        if mode == "mcp":  # the tools run in the runner's server: nothing here to order (``_open_mcp_session``)
            return ()
        return checkpoint_schedule.schedules(scenario, mode)

    def open_session(self, context: SessionContext) -> AgentSession | Awaitable[AgentSession]:
        if context.mode == "mcp":  # every tool from the runner's MCP server, through LangChain's MCP client
            return self._open_mcp_session(context)
        # a schedule pins the async write against a kill, and orders a kill's siblings among the calls dispatched
        saver = checkpointer(context.scratch, context.request.schedule, context.world.faults, context.scenario)
        context.world.know_dispatch(checkpoint_schedule.dispatched_calls, checkpoint_schedule.siblings_committed)
        callbacks = checkpoint_schedule.order_batches(context.world, context.scenario, context.request.schedule)  # a batch's calls: one order
        glue, options = None, run_context(context.scenario)
        if context.contract is not None:
            # contract glue: start
            from .glue import SYNC_WRITES, ContractMiddleware  # the glue is imported in contract mode only

            glue, options = ContractMiddleware(context.contract), options | SYNC_WRITES
            # contract glue: end
        agent = build_agent(context.scenario, context.world, context.scratch, saver, glue, context.request.model_url)
        scenario = context.scenario
        return AgentSession(
            agent, scenario.session_id, gated_tools(scenario), context.trace.emit, context.scratch / "head.json", options, context.contract, callbacks
        )

    async def _open_mcp_session(self, context: SessionContext) -> AgentSession:
        """``defaults`` with ``await adapter.list_tools()`` as the agent's tools (``mcp.py``): the same model, approval
        middleware and checkpoint file, the runs driven with ``astream``, the adapter's client closed with the session.
        No schedule: the calls run in the server, where nothing of this process orders them; LangGraph's checkpoint writes are tasks on the run's own event loop
        that the saver completes at once (``mcp.SqliteSaverAsync``), each before the next super-step's tasks start."""
        from .mcp import SqliteSaverAsync, close_adapter, mcp_tools  # the MCP client is imported in mcp mode only

        scenario = context.scenario
        adapter, tools = await mcp_tools(endpoint(scenario.id, context.request), context.trace.emit)
        saver = SqliteSaverAsync(sqlite3.connect(str(context.scratch / CHECKPOINTS), check_same_thread=False))
        agent = build_agent(scenario, context.world, context.scratch, saver, tools=tools)
        return AgentSession(
            agent, scenario.session_id, gated_tools(scenario), context.trace.emit, context.scratch / "head.json", run_context(scenario), None,
            asynchronous=True, release=lambda: close_adapter(adapter),
        )

    def tool_schemas(self, names: list[str], mode: str) -> dict[str, dict[str, Any]]:
        """The ``@tool`` objects' ``tool_call_schema`` (``adapters.langchain_tools``): the same tools in every mode."""
        from adapters.langchain_tools import tool_schemas

        return tool_schemas(names)

    def detail(self, run: ScenarioRun, mode: str) -> dict[str, Any]:
        """The agent graph's shape, the super-steps this scenario took, and the reasons behind its differences."""
        self.check_mode(mode)
        scratch = run.scratch
        world = FixtureWorld(scratch, [], may_kill=False)
        saver = checkpointer(scratch)
        glue = None
        if mode == "contract":  # the graph's shape only: no hook of the glue runs here, so it needs no state
            # contract glue: start
            from .glue import ContractMiddleware

            glue = ContractMiddleware(None)  # type: ignore[arg-type]
            # contract glue: end
        agent = build_agent(run.scenario, world, scratch, saver, glue)
        try:
            graph = agent.get_graph()
            history = list(agent.get_state_history({"configurable": {"thread_id": run.scenario.session_id}}))
        finally:
            saver.conn.close()
            world.close()
        edges = [e for e in graph.edges if not e.conditional]
        conditional = [e for e in graph.edges if e.conditional]
        updates: dict[str, int] = {}
        for step in run.steps:
            for e in step.trace:
                if e["kind"] == "node":
                    updates[e["node"]] = updates.get(e["node"], 0) + 1
        return {
            "graph": {
                "nodes": sorted(graph.nodes),
                "edges": sorted([e.source, e.target] for e in edges),
                "conditional_edges": sorted([e.source, e.target] for e in conditional),
                "super_steps": len(history),  # LangGraph saves one checkpoint per super-step (and one for the input)
                "node_updates": dict(sorted(updates.items())),
                "mermaid": graph.draw_mermaid(),
            },
            "checkpoint": _final_state(history),
        }


def _final_state(history: list[Any]) -> dict[str, Any] | None:
    if not history:
        return None
    latest = history[0]
    return {"next": list(latest.next), "messages": len(latest.values.get("messages", [])), "interrupts": len(latest.interrupts)}
