"""LangGraph resumes a run killed after a tool's effect by running the tool's task again: the resume does not ask
again (the checkpoint after the approval names ``tools`` as next) and the transfer happens twice. ``approval_survives``
asks only about approvals given and not yet used at the kill (one is used once its call's executor was entered): the
probe reports ``None`` when c1's executor was entered in the killed step (as here: the kill follows the transfer),
else whether the resume went on without asking again.

Schedule ``write_landed`` (every checkpoint written before the kill is on disk): the approving run uses the
documented ``durability="sync"``, which saves each step's checkpoint before the next step starts; under the
default ``"async"`` that write races the kill. Documented API only: ``interrupt()`` / ``Command(resume=...)``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), ``SqliteSaver`` and
``invoke(None, config)`` (https://docs.langchain.com/oss/python/langgraph/persistence), durability modes
(https://docs.langchain.com/oss/python/langgraph/durable-execution), a small ``BaseChatModel`` answering turn N of
the script, N the number of assistant messages it is sent (a task run again gets the same answer).
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
from langgraph.types import Command, interrupt

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "side_effect_before_checkpoint@write_landed"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "step_statuses.1",
)

fixture = world(Fault("tool.kill_after_effect", call_id="c1"))
checkpoints, config = str(SCRATCH / "langgraph.sqlite"), {"configurable": {"thread_id": "sess-side_effect_before_checkpoint"}}


@tool
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


class Scripted(BaseChatModel):
    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=self.script[turn])])


model = Scripted(script=[
    AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}}]),
    AIMessage("Sent 25.00 from ACC-1 to ACC-2."),
])


def review(state: MessagesState) -> dict:
    call = state["messages"][-1].tool_calls[0]
    interrupt({"call_id": call["id"], "tool": call["name"], "args": call["args"]})  # approved when it returns
    return {}


graph = StateGraph(MessagesState)
graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
graph.add_node("review", review)
graph.add_node("tools", ToolNode([transfer_funds]))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition, {"tools": "review", "__end__": "__end__"})
graph.add_edge("review", "tools")
graph.add_edge("tools", "agent")


def app():  # every process opens the checkpoint file itself: the parent knows only what the child left on disk
    return graph.compile(checkpointer=SqliteSaver(sqlite3.connect(checkpoints, check_same_thread=False)))


app().invoke({"messages": [("user", "Send 25.00 from ACC-1 to ACC-2.")]}, config)
granted = counts().get("c1", {}).get("executor_entries", 0)  # c1's executor entries when the approval is given
killed = in_child(lambda: app().invoke(Command(resume={"approve": True}), config, durability="sync")) == FAULT_EXIT_CODE
after_kill, effects_before = app().get_state(config), {cid: c["effects"] for cid, c in counts().items()}
used = counts().get("c1", {}).get("executor_entries", 0) > granted  # c1's executor entered before the kill used its approval
resumed = app().invoke(None, config)  # continue the thread the way LangGraph does
final = app().get_state(config)

ledger = counts()["c1"]
report(SCENARIO, {
    "step_statuses.1": "crashed" if killed and after_kill.next else "not killed",  # died with tasks left
    "checkpoint_after_interrupt.interrupts.0.resume_position": "before_execute" if after_kill.next == ("tools",) else list(after_kill.next),
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id": after_kill.values["messages"][-1].tool_calls[0]["id"],
    "checkpoint_after_interrupt.interrupts.0.approval_survives": None if used else "__interrupt__" not in resumed,  # none open, or not asked again
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume": effects_before,
    "checkpoint_after_interrupt.effects_after_resume": {cid: c["effects"] for cid, c in counts().items()},
    "checkpoint_after_interrupt.final_status": "completed" if not final.next and not final.values["messages"][-1].tool_calls else "not finished",
    **{f"side_effects.c1.{k}": ledger[k] for k in ("tool_entries", "executor_entries", "effects")},
})
