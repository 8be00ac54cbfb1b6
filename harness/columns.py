"""The columns of the comparison and the interface every column's adapter module offers.

An adapter module (``harness.handwritten_column``, ``adapters/<name>/adapter.py``) exposes:

- ``COLUMN``: its name; ``MODES``: the modes it runs (``contract``, and ``defaults`` for
  third-party frameworks);
- ``perform(scenario, scratch, request, mode) -> dict``: one driver step, in a worker;
- ``facts(run, mode) -> list[StepFacts]``: what its own mechanisms say each step did;
- optionally ``detail(run, mode) -> dict``: native state, recorded but never compared;
- optionally ``prepare(mode)``: imports and warm-up done once in the column process, so
  workers forked from it do not pay them again;
- optionally ``schedules(scenario, mode) -> tuple[str, ...]``: the orderings under which a
  scenario whose result would race (say, an asynchronous checkpoint write against a
  kill) is run, each forced by the column (every request carries ``schedule``) and
  recorded as its own deterministic sub-case ``<scenario>@<schedule>``; empty when
  nothing races.

``detail`` may hold ``explanations``: observable -> one sentence, computed from the
column's own trace, naming the framework behaviour behind a difference; the comparator
appends it to the measured difference. Contract-only code is counted as glue: files
named ``glue*.py`` in the adapter's folder, and regions between the lines
``# contract glue: start`` and ``# contract glue: end`` anywhere in it.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Literal

from .errors import HarnessError

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = "handwritten"


@dataclass(frozen=True)
class Column:
    """One column: where its adapter lives and which Python runs it."""

    name: str
    module: str
    environment: Literal["project", "isolated"]
    description: str
    lock_dir: Path | None = None  # default: adapters/<name>

    @property
    def adapter_dir(self) -> Path:
        """Where an isolated column keeps its requirements.in and hashed requirements.lock."""
        return self.lock_dir or ROOT / "adapters" / self.name


COLUMNS: tuple[Column, ...] = (
    Column("handwritten", "harness.handwritten_column", "project", "the hand-written reference engine"),
    Column("local_state_graph", "adapters.local_state_graph.adapter", "project", "a dependency-free state graph running the contract"),
    Column("langgraph", "adapters.langgraph.adapter", "isolated", "LangGraph StateGraph + SQLite checkpointer + interrupt()"),
    Column("langchain", "adapters.langchain.adapter", "isolated", "LangChain create_agent + HumanInTheLoopMiddleware"),
    Column("openai_agents", "adapters.openai_agents.adapter", "isolated", "OpenAI Agents SDK Agent + Runner + needs_approval + RunState"),
    Column("agentscope", "adapters.agentscope.adapter", "isolated", "AgentScope 2.x Agent + Toolkit + permission system + AgentState"),
)


def known_columns() -> dict[str, Column]:
    return {c.name: c for c in COLUMNS}


MEASURED_EXCEPTIONS_HEADING = "## Exceptions that end a run"
_ROW = re.compile(r"^\|\s*`([\w.]+)`\s*\|\s*([\w, ]+?)\s*\|.*https?://\S+")


def measured_exceptions(column: Column, mode: str) -> frozenset[str]:
    """Exception types (``module.Name``; builtins bare) that the column's ``MAPPING.md`` lists for ``mode``, each
    with the documentation page that describes the framework raising it, in the table under
    ``## Exceptions that end a run`` (exception | modes | raised when | documentation). A run that ends in one
    of them is a measured outcome (status ``error``); any other exception is an adapter failure."""
    mapping = column.adapter_dir / "MAPPING.md"
    if not mapping.exists():
        return frozenset()
    section = mapping.read_text(encoding="utf-8").partition(MEASURED_EXCEPTIONS_HEADING)[2].split("\n## ", 1)[0]
    rows = [m for line in section.splitlines() if (m := _ROW.match(line.strip()))]
    return frozenset(m.group(1) for m in rows if mode in {w.strip() for w in m.group(2).split(",")})


REQUIRED = ("COLUMN", "MODES", "perform", "facts")


def load_adapter(module_name: str) -> ModuleType:
    """Import an adapter module and check it offers the column interface."""
    module = importlib.import_module(module_name)
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise HarnessError(f"adapter {module_name} lacks {', '.join(missing)}")
    return module
