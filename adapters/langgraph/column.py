"""The ``langgraph`` column: a hand-built LangGraph ``StateGraph`` agent, one driver step per worker.

Every worker rebuilds the graph and opens the SQLite checkpointer file
(``<scratch>/langgraph.sqlite``, ``langgraph.checkpoint.sqlite.SqliteSaver``); the session id
is the ``thread_id``. ``MAPPING.md`` next to this file says how each driver step maps onto
LangGraph and cites the documentation behind every defaults choice; in short:

- ``run`` / ``deliver_again``: ``graph.stream({"messages": [HumanMessage(input)]}, config)``.
- decisions: ``Command(resume={interrupt_id: {"approve", "reason"}})``, each answer keyed by the id of
  the interrupt that asks about its call (one approval task, one interrupt, per call).
- ``resume``: always ``graph.stream(None, config)``, the way LangGraph continues a saved state.
- ``reconcile``: contract only (the guard's ``interrupt()``, resumed by its id).
- ``snapshot`` / ``restore``: a checkpoint id, and LangGraph's time travel from it.
- ``mcp`` mode: the defaults graph with every tool from the runner's MCP server through ``langchain-mcp-adapters``
  (``mcp.py``), run with ``astream`` (the client's tools are coroutines only).

Defaults uses LangGraph's default durability (``async``): a kill in the model or a tool races the
checkpoint write of the step before, and such a scenario runs once per forced ordering
(``adapters/checkpoint_schedule.py``). Contract writes checkpoints synchronously.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, ClassVar

from adapters.column import FrameworkColumn, SessionContext
from harness.records import ScenarioRun
from harness.scenarios import Scenario


class LangGraphColumn(FrameworkColumn):
    """LangGraph ``StateGraph`` + ``SqliteSaver`` + ``interrupt()``, per call."""

    name = "langgraph"
    modes: ClassVar[tuple[str, ...]] = ("defaults", "contract", "wire", *(("mcp",) if importlib.util.find_spec("langchain_mcp_adapters") else ()))
    """``mcp`` where the environment has the documented MCP client (``mcp.py``): the default pin's; not the extra pin's."""
    mechanisms: ClassVar[dict[str, str]] = {
        "loop": "langgraph.pregel._loop:SyncPregelLoop",
        "tool_dispatch": "langgraph.prebuilt.tool_node:ToolNode",
        "message_assembly": "langgraph.graph.message:add_messages",
        "approval": "langgraph.types:interrupt",
        "persistence": "langgraph.checkpoint.sqlite:SqliteSaver",
    }
    constants: ClassVar[dict[str, str]] = {"step_limit": "langgraph._internal._config:DEFAULT_RECURSION_LIMIT"}
    approval_fields: ClassVar[dict[str, str]] = {"call": "langgraph.types:Interrupt id", "single_use": "langgraph.types:Interrupt id"}

    def built_constants(self, scenario: Scenario, scratch: Path) -> dict[str, dict[str, Any]]:
        """The defaults no name holds, measured on small graphs in this environment (``constants.py``): what the
        prebuilt ``ToolNode`` does with a tool's exception, and how ``interrupt()`` ids are given."""
        from .constants import interrupt_ids, tool_error

        return {"tool_error": tool_error(), "interrupt_ids": interrupt_ids()}

    def prepare(self, mode: str) -> None:
        """Import LangGraph once in the column process (and what a run imports on first use): forked workers inherit it."""
        from adapters.langchain_tools import import_lazy_modules

        from . import session  # noqa: F401  (LangGraph, LangChain core, the checkpointer, the glue)

        if mode == "mcp":
            from . import mcp  # noqa: F401  (the MCP client and the mcp SDK)
        import_lazy_modules()

    def schedules(self, scenario: Scenario, mode: str) -> tuple[str, ...]:
        """The forced orderings a scenario runs under (``adapters/checkpoint_schedule.py``): in defaults a kill inside
        the model or a tool races the asynchronous checkpoint write (``write_held``, ``write_landed``); in both modes a
        kill inside one call of a batch races ToolNode's other threads (``siblings_first``, ``kill_first``)."""
        from adapters.checkpoint_schedule import schedules

        self.check_mode(mode)
        if mode == "mcp":  # the asynchronous stream (session.open_mcp_session): no thread pool of writes to order
            return ()
        return schedules(scenario, mode)

    def open_session(self, context: SessionContext) -> Any:
        from .session import open_session

        return open_session(context)

    def tool_schemas(self, names: list[str], mode: str) -> dict[str, dict[str, Any]]:
        """The ``@tool`` objects' ``tool_call_schema`` (``adapters.langchain_tools``): the same tools in every mode."""
        from adapters.langchain_tools import tool_schemas

        return tool_schemas(names)

    def detail(self, run: ScenarioRun, mode: str) -> dict[str, Any]:
        """The graph's shape (nodes, edges, conditional edges, Mermaid), the super-steps this scenario took, the
        final checkpoint's ``next``."""
        from .session import shape

        self.check_mode(mode)
        super_steps = sum(1 for step in run.steps for e in step.trace if e["kind"] == "super_step")
        final = [e for step in run.steps for e in step.trace if e["kind"] == "state"]
        return {
            "graph": {**shape(run.scenario, mode), "super_steps": super_steps},
            "final_next": final[-1]["next"] if final else None,
        }
