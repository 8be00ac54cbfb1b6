"""Every fixture tool in every column: each third-party tool factory offers every tool of ``harness.fixture_tools``
with the arguments the model may give, so a tool added to the catalog later cannot be forgotten by a column.

A factory imports its framework, which only its column's environment has: each one runs there (its pinned
interpreter, ``-I``, the repository first on ``sys.path`` as the runner puts it) and prints, per tool it built, the
argument names its framework offers the model. The expected table comes from the catalog: every schema property,
less the one naming the user a tool acts for (the user comes from the session through the framework's run context,
never from the model). The engine's columns (``handwritten``, ``handwritten_mcp``, ``local_state_graph``) take their
tools from the catalog itself (``FixtureWorld.tool_specs``), so they cannot miss one.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from harness.columns import ROOT, known_columns
from harness.fixture_tools import FIXTURE_TOOLS
from harness.runner_side.run.environments import column_environment

# What each factory offers, as its framework describes the tool to the model: one line of code per factory.
OFFERED = {
    "langgraph": "from adapters.langchain_tools import fixture_tools as f; "
                 "offered = {t.name: t.tool_call_schema.model_json_schema().get('properties', {}) for t in f(None, names)}",
    "langchain": "from adapters.langchain_tools import fixture_tools as f; "
                 "offered = {t.name: t.tool_call_schema.model_json_schema().get('properties', {}) for t in f(None, names)}",
    "openai_agents": "from adapters.openai_agents.tools import fixture_tools as f; "
                     "offered = {t.name: t.params_json_schema.get('properties', {}) for t in f(None, names)}",
    "pydantic_ai": "from adapters.pydantic_ai.tools import fixture_tools as f; "
                   "offered = {t.name: t.tool_def.parameters_json_schema.get('properties', {}) for t in f(None, names)}",
    "agentscope": "from adapters.agentscope.tools import fixture_tools as f; "
                  "offered = {t.name: t.input_schema.get('properties', {}) for t in f(None, names, 'alice')}",
    "google_adk": "from adapters.google_adk.tools import fixture_tools as f; "
                  "offered = {t.name: (t._get_declaration().parameters_json_schema or {}).get('properties', {}) for t in f(None, names)}",
    "agent_framework": "from adapters.agent_framework.tools import fixture_tools as f; "
                       "offered = {t.name: t.parameters().get('properties', {}) for t in f(None, names)}",
}
_PROGRAM = (
    "import json, sys; sys.path[:0] = [sys.argv[1]]; names = json.loads(sys.argv[2]); {offered}; "
    "print(json.dumps({{n: sorted(p) for n, p in offered.items()}}))"
)


def expected() -> dict[str, list[str]]:
    """Every catalog tool with the arguments the model may give it."""
    return {t.name: sorted(p for p in t.schema["properties"] if p != t.acts_for) for t in FIXTURE_TOOLS.values()}


def test_the_expected_table_lists_every_catalog_tool_and_hides_only_the_session_user() -> None:
    table = expected()
    assert sorted(table) == sorted(FIXTURE_TOOLS)
    assert table["list_orders"] == []  # acts for the session's user: nothing for the model to name
    assert table["put_note"] == ["key", "priority", "text"]


def test_every_third_party_column_has_a_factory_in_the_table() -> None:
    third_party = {column.adapter for column in known_columns().values() if (column.environment_dir / "requirements.lock").exists()}
    assert third_party == set(OFFERED)


@pytest.mark.slow
@pytest.mark.parametrize("column", sorted(name for name, c in known_columns().items() if c.adapter in OFFERED))  # every pin
def test_the_columns_factory_offers_every_fixture_tool(column: str) -> None:
    python = column_environment(known_columns()[column], log=lambda _: None).python
    program = _PROGRAM.format(offered=OFFERED[known_columns()[column].adapter])
    done = subprocess.run([str(python), "-I", "-c", program, str(ROOT), json.dumps(sorted(FIXTURE_TOOLS))],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == expected()
