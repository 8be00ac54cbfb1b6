"""A tool that fails before its effect is not retried: LangGraph's ``ToolNode`` (which ``create_agent`` runs every
call through) turns only argument errors into messages by default and re-raises any other exception, so the run
ends in that error, the note is never written and the model is not asked again.

Documented API only: ``create_agent`` (https://docs.langchain.com/oss/python/langchain/agents), ``ToolNode``'s default
``handle_tool_errors`` (https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode), ``@tool`` with
``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model whose
``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

from typing import Annotated

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool

from harness.column_side.probe_kit import Fault, counts, report, world

SCENARIO = "retry_before_effect"
SHOWS = (
    "model.calls_per_turn.0",
    "model.unused_turns",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "status",
    "step_statuses.0",
)

fixture = world(Fault(point="tool.raise_before_effect", call_id="c1"))  # the scenario's fault: fails once, before the effect
NOTE = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "put_note", "args": NOTE}]), AIMessage("The note is saved.")]
asked: list[int] = []  # the script turn of every model call


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        asked.append(sum(isinstance(m, AIMessage) for m in messages))
        return ChatResult(generations=[ChatGeneration(message=SCRIPT[asked[-1]])])


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", call_id, {"key": key, "text": text}))


try:
    create_agent(Scripted(), tools=[put_note]).invoke({"messages": [{"role": "user", "content": "Save a follow-up note."}]})
    status = "completed"
except Exception as error:  # the injected failure comes out of invoke: the run is over
    print("invoke raised", type(error).__name__)
    status = "error"

ledger = counts()
found = {f"side_effects.c1.{k}": ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")}
found |= {f"model.calls_per_turn.{t}": asked.count(t) for t in sorted(set(asked))}
found["model.unused_turns"] = sorted(set(range(len(SCRIPT))) - set(asked))
report(SCENARIO, found | {"status": status, "step_statuses.0": status})
