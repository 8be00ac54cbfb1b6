"""``create_agent`` bounds no model turns by default: the agent the docs build sets no limit (a model-call limit
is an extra middleware the agent examples do not add; the graph's only bound is LangGraph's ``recursion_limit``,
which ``create_agent`` sets in its own config), so against the scenario's bound of 3 steps the model is called until the
script runs out, c4 and c5 run, and the run ends ``completed``.

Documented API only: ``create_agent`` with nothing set but model and tools (https://docs.langchain.com/oss/python/langchain/agents),
``@tool`` with ``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model
whose ``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

from typing import Annotated

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn.0",
    "model.calls_per_turn.1",
    "model.calls_per_turn.2",
    "model.calls_per_turn.3",
    "model.calls_per_turn.4",
    "model.calls_per_turn.5",
    "model.missing_turns",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "side_effects.c2.effects",
    "side_effects.c2.executor_entries",
    "side_effects.c2.tool_entries",
    "side_effects.c3.effects",
    "side_effects.c3.executor_entries",
    "side_effects.c3.tool_entries",
    "side_effects.c4.effects",
    "side_effects.c4.executor_entries",
    "side_effects.c4.tool_entries",
    "side_effects.c5.effects",
    "side_effects.c5.executor_entries",
    "side_effects.c5.tool_entries",
    "status",
    "step_statuses.0",
)

fixture = world()
SCRIPT = [AIMessage("", tool_calls=[{"id": f"c{i}", "name": "get_weather", "args": {"city": "Paris"}}]) for i in range(1, 6)]
asked: list[int] = []  # the script turn of every model call


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation (past the script: a filler)."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        asked.append(sum(isinstance(m, AIMessage) for m in messages))
        reply = SCRIPT[asked[-1]] if asked[-1] < len(SCRIPT) else AIMessage("[no scripted turn left]")
        return ChatResult(generations=[ChatGeneration(message=reply)])


@tool
def get_weather(city: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city."""
    return str(fixture.call("get_weather", call_id, {"city": city}))


final = create_agent(Scripted(), tools=[get_weather]).invoke({"messages": [{"role": "user", "content": "Keep checking the weather in Paris."}]})
last = final["messages"][-1]
status = "completed" if isinstance(last, AIMessage) and not last.tool_calls else "crashed"  # it finished by itself

ledger = counts()
found = {f"side_effects.{c}.{k}": ledger[c][k] for c in ledger for k in ("tool_entries", "executor_entries", "effects")}
found |= {f"model.calls_per_turn.{t}": asked.count(t) for t in sorted(set(asked))}
found["model.missing_turns"] = sorted(t for t in set(asked) if t >= len(SCRIPT))
report(SCENARIO, found | {"status": status, "step_statuses.0": status})
