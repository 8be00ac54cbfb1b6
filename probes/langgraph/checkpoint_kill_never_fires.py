"""LangGraph has no intent checkpoint between deciding to run a tool and running it: the fault point
``engine.kill_after_checkpoint`` has nowhere to fire, so the run is never killed and the resume finds a
finished thread (nothing to continue, the note written once).

Documented API only: ``StateGraph`` with ``MessagesState``, ``ToolNode`` and ``tools_condition``
(https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), ``SqliteSaver`` on a file and
``invoke(None, config)`` to continue a thread (https://docs.langchain.com/oss/python/langgraph/persistence),
a small ``BaseChatModel`` that answers turn N of the script, N the number of assistant messages it is sent.
"""

import sqlite3
from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "kill_after_checkpoint"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts",
    "step_statuses",
)

fixture = world(Fault("engine.kill_after_checkpoint", call_id="c1"))  # armed; nothing in LangGraph meets it
checkpoints, config = str(SCRATCH / "langgraph.sqlite"), {"configurable": {"thread_id": "sess-kill_after_checkpoint"}}


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", call_id, {"key": key, "text": text}))


class Scripted(BaseChatModel):
    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=self.script[turn])])


model = Scripted(script=[
    AIMessage("", tool_calls=[{"id": "c1", "name": "put_note", "args": {"key": "followup", "text": "Call the customer back on Monday."}}]),
    AIMessage("The note is saved."),
])
graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("tools", ToolNode([put_note]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")


def app():  # every process opens the checkpoint file itself
    return graph.compile(checkpointer=SqliteSaver(sqlite3.connect(checkpoints, check_same_thread=False)))


def status() -> str:
    state = app().get_state(config)
    return "completed" if not state.next and not state.values["messages"][-1].tool_calls else "crashed"


killed = in_child(lambda: app().invoke({"messages": [("user", "Save a follow-up note.")]}, config)) == FAULT_EXIT_CODE
statuses = [status()]
app().invoke(None, config)  # resume: LangGraph has nothing left to run
statuses.append(status())

report(SCENARIO, {"step_statuses": statuses, "checkpoint_after_interrupt.interrupts": [{"step": 0}] if killed else [],
                  "checkpoint_after_interrupt.effects_after_resume": {cid: c["effects"] for cid, c in counts().items()},
                  "checkpoint_after_interrupt.final_status": statuses[-1]})
