"""Test-only column: the hand-written engine run inside a third-party column's isolated
environment, reporting what that environment holds."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

from adapters.handwritten.column import HandwrittenColumn


class Column(HandwrittenColumn):
    name = "probe_isolated"
    mechanisms = {  # an isolated column must name them; these are LangGraph's, located in its environment
        "loop": "langgraph.pregel.main:Pregel.stream",
        "tool_dispatch": "langgraph.prebuilt.tool_node:ToolNode",
        "message_assembly": "langgraph.graph.message:add_messages",
        "approval": "langgraph.types:interrupt",
        "persistence": "langgraph.checkpoint.sqlite:SqliteSaver.put",
    }

    def detail(self, run: Any, mode: str) -> dict[str, Any]:
        import harness

        return {
            "langgraph_importable": importlib.util.find_spec("langgraph") is not None,
            "interpreter_in_env": sys.prefix != sys.base_prefix,
            "harness_from": harness.__file__,
        }
