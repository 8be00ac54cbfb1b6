"""``create_agent`` has no checkpoint between a tool call's intent and its executor, so the scenario's kill point
(``engine.kill_after_checkpoint``, right after such a checkpoint) is never met: the run completes in the process
meant to be killed, and the resume finds a finished thread and runs nothing.

Documented API only: ``create_agent`` with a ``SqliteSaver`` checkpointer and a ``thread_id``
(https://docs.langchain.com/oss/python/langchain/short-term-memory), a resume as ``invoke(None)`` on the thread
(https://docs.langchain.com/oss/python/langgraph/durable-execution), ``@tool`` with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model whose ``bind_tools`` returns itself
(https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

import sqlite3
from typing import Annotated

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.sqlite import SqliteSaver

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = ("checkpoint_after_interrupt.interrupts", "step_statuses.0", "step_statuses.1")

fixture = world(Fault(point="engine.kill_after_checkpoint", call_id="c1"))
DB = SCRATCH / "checkpoints.sqlite"
CONFIG = {"configurable": {"thread_id": "sess-kill_after_checkpoint"}}
NOTE = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "put_note", "args": NOTE}]), AIMessage("The note is saved.")]


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
    return str(fixture.call("put_note", call_id, {"key": key, "text": text}))


def agent():
    """The agent over the checkpoint file, with a connection of this process's own."""
    return create_agent(Scripted(), tools=[put_note], checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)))


def status() -> str:
    state = agent().get_state(CONFIG)
    return "awaiting_approval" if state.interrupts else "crashed" if state.tasks else "completed"


codes = [in_child(lambda: agent().invoke({"messages": [{"role": "user", "content": "Save a follow-up note."}]}, CONFIG))]
statuses = ["crashed" if codes[0] == FAULT_EXIT_CODE else status()]
agent().invoke(None, CONFIG)  # the driver's resume
statuses.append(status())
report(SCENARIO, {"checkpoint_after_interrupt.interrupts": [i for i, c in enumerate(codes) if c == FAULT_EXIT_CODE],
                  **{f"step_statuses.{i}": s for i, s in enumerate(statuses)}})
