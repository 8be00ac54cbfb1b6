"""LangGraph takes a human's answer sent to a killed thread that waits on no interrupt as a resume: the thread's
pending work runs again. When the kill came before the model turn's checkpoint landed, that work is the model
turn itself, so the model is asked for turn 0 a second time, and the read-only call runs twice.

Schedule ``write_held``: the kill inside ``get_weather`` comes before LangGraph's background thread wrote the
model turn's checkpoint and task writes (default ``durability="async"``: the write races the next super-step). The
probe forces that ordering with LangGraph's own ``SqliteSaver``, told to drop every write after the input's in the
killed child, which is what the process death leaves on disk. Documented API only: ``Command(resume=...)``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), ``SqliteSaver``
(https://docs.langchain.com/oss/python/langgraph/persistence), durability modes
(https://docs.langchain.com/oss/python/langgraph/durable-execution), a small ``BaseChatModel`` answering turn N of
the script, N the number of assistant messages it is sent, that notes each turn it answers in a file.
"""

import json
import sqlite3
from typing import Annotated

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "decision_after_kill@write_held"
SHOWS = ("model.calls_per_turn.0", "model.calls_per_turn.1", "side_effects.c1.executor_entries", "step_statuses.1")

fixture = world(Fault("tool.kill_before_effect", call_id="c1"))
checkpoints, config = str(SCRATCH / "langgraph.sqlite"), {"configurable": {"thread_id": "sess-decision_after_kill"}}
asked = SCRATCH / "turns.jsonl"


@tool
def get_weather(city: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city. Read-only."""
    return str(fixture.call("get_weather", call_id, {"city": city}))


class Scripted(BaseChatModel):
    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        with open(asked, "a", encoding="utf-8") as noted:  # survives the child's death: a model call is counted when made
            noted.write(json.dumps(turn) + "\n")
        return ChatResult(generations=[ChatGeneration(message=self.script[turn])])


model = Scripted(script=[
    AIMessage("", tool_calls=[{"id": "c1", "name": "get_weather", "args": {"city": "Rome"}}]),
    AIMessage("All set."),
])
graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("tools", ToolNode([get_weather]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)
graph.add_edge("tools", "agent")


class HeldSaver(SqliteSaver):
    """The killed child's saver: the input's checkpoint lands, every later write is still with the background thread."""

    def put(self, config, checkpoint, metadata, new_versions):
        if metadata.get("step", -1) < 0:
            return super().put(config, checkpoint, metadata, new_versions)
        return {**config, "configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}

    def put_writes(self, config, writes, task_id, task_path=""):
        return None


def app(saver=SqliteSaver):  # every process opens the checkpoint file itself: the parent knows only what the child left
    return graph.compile(checkpointer=saver(sqlite3.connect(checkpoints, check_same_thread=False)))


killed = in_child(lambda: app(HeldSaver).invoke({"messages": [("user", "Please take care of my request.")]}, config)) == FAULT_EXIT_CODE
waiting = app().get_state(config)
app().invoke(Command(resume={"approve": True}), config)  # the driver's approval of c1, with no interrupt asking about it
final = app().get_state(config)

turns = [json.loads(line) for line in asked.read_text(encoding="utf-8").splitlines()]
report(SCENARIO, {
    "model.calls_per_turn.0": turns.count(0),
    "model.calls_per_turn.1": turns.count(1),
    "side_effects.c1.executor_entries": counts()["c1"]["executor_entries"],
    # the approval went in where no interrupt waited (the saved thread asked nothing) and the run finished
    "step_statuses.1": "completed" if killed and not waiting.interrupts and not final.next else "not taken",
})
