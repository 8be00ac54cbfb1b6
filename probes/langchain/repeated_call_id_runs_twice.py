"""``create_agent`` keeps no record of executed tool call ids: when the model repeats call id c1 in a later turn,
the tool node runs it again and the note is written twice.

Documented API only: ``create_agent`` (https://docs.langchain.com/oss/python/langchain/agents), ``@tool`` with
``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model whose
``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

import json
from typing import Annotated

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "duplicate_call_id"
SHOWS = (
    "idempotent_replay.c1.effects",
    "idempotent_replay.c1.results",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
)

fixture = world()
NOTE = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "put_note", "args": NOTE}]) for _ in range(2)] + [AIMessage("The note is saved.")]


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=SCRIPT[sum(isinstance(m, AIMessage) for m in messages)])])


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return json.dumps(fixture.call("put_note", call_id, {"key": key, "text": text}), sort_keys=True, separators=(",", ":"))


final = create_agent(Scripted(), tools=[put_note]).invoke({"messages": [{"role": "user", "content": "Save a follow-up note."}]})

ledger = counts()
answers = [m for m in final["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == "c1"]
found = {f"side_effects.c1.{k}": ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")}
report(SCENARIO, found | {"idempotent_replay.c1.effects": ledger["c1"]["effects"], "idempotent_replay.c1.results": [m.content for m in answers]})
