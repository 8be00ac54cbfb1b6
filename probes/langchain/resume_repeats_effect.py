"""A resume after a crash runs the approved transfer again: the process died right after the transfer, LangGraph's
latest checkpoint (written before the tool ran) still has c1's tools task to run, and nothing records that its
executor was entered, so the resume moves the money a second time and completes; nothing stops for reconciliation.
``approval_survives`` asks only about approvals given and not yet used at the kill (one is used once its call's
executor was entered): the probe reports ``None`` when c1's executor was entered in the killed step (as here: the
kill follows the transfer), else whether the resume went on without asking again.

Schedule ``write_landed``: the default ``durability="async"`` writes a checkpoint from a background thread while the
next super-step runs, so the kill races the write that saved the approval.
The approving run passes ``durability="sync"`` (each checkpoint is written before the next step starts) to
pin that side; the other runs use the default.

Documented API only: under https://docs.langchain.com/oss/python/ the pages langchain/human-in-the-loop,
langchain/short-term-memory (``SqliteSaver``), langgraph/durable-execution (a resume is ``invoke(None)``),
langchain/tools, langchain/test/unit-testing (a chat model whose ``bind_tools`` returns itself); the durability
modes: https://reference.langchain.com/python/langgraph/types/Durability.
"""

import sqlite3
from typing import Annotated

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "side_effect_before_checkpoint@write_landed"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
)

fixture = world(Fault(point="tool.kill_after_effect", call_id="c1"))  # the process dies right after the transfer
DB = SCRATCH / "checkpoints.sqlite"
CONFIG = {"configurable": {"thread_id": "sess-side_effect_before_checkpoint"}}
ARGS = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "transfer_funds", "args": ARGS}]), AIMessage("Sent 25.00 from ACC-1 to ACC-2.")]


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
def transfer_funds(from_account: str, to_account: str, amount_cents: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Move money between accounts. High risk: needs a human approval."""
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


def agent():
    """The agent over the checkpoint file, with a connection of this process's own."""
    return create_agent(Scripted(), tools=[transfer_funds], middleware=[HumanInTheLoopMiddleware(interrupt_on={"transfer_funds": True})],
                        checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)))


def status(state) -> str:  # as the framework leaves the thread: a decision asked for, tasks left, or finished
    return "awaiting_approval" if state.interrupts else "crashed" if state.tasks else "completed"


agent().invoke({"messages": [{"role": "user", "content": "Send 25.00 from ACC-1 to ACC-2."}]}, CONFIG)
statuses = [status(agent().get_state(CONFIG))]
granted = counts().get("c1", {}).get("executor_entries", 0)  # c1's executor entries when the approval is given
code = in_child(lambda: agent().invoke(Command(resume={"decisions": [{"type": "approve"}]}), CONFIG, durability="sync"))
statuses.append("crashed" if code == FAULT_EXIT_CODE else status(agent().get_state(CONFIG)))
before = counts()["c1"]  # the ledger when the resume starts
agent().invoke(None, CONFIG)  # the driver's resume
after = agent().get_state(CONFIG)
statuses.append(status(after))

ledger = counts()
# where the resume continued, read from what it did: asked about c1 again, ran c1's executor again, or neither
ran_again = ledger["c1"]["executor_entries"] > before["executor_entries"]
interrupt = {"resume_position": "awaiting_approval" if after.interrupts else "before_execute" if ran_again else "model_turn",
             # an approval used before the kill (c1's executor entered in the killed step) leaves none open: None
             "approval_survives": None if before["executor_entries"] > granted else not after.interrupts,
             "effects_before_resume": {"c1": before["effects"]}}
found = {f"checkpoint_after_interrupt.interrupts.0.{k}": v for k, v in interrupt.items()}
found |= {"checkpoint_after_interrupt.effects_after_resume": {"c1": ledger["c1"]["effects"]}, "checkpoint_after_interrupt.final_status": status(after)}
found |= {f"side_effects.c1.{k}": ledger["c1"][k] for k in ("tool_entries", "executor_entries", "effects")}
report(SCENARIO, found | {f"step_statuses.{i}": s for i, s in enumerate(statuses)})
