"""``create_agent`` resumes a batch killed inside the email by running the email's task again and goes on: the model's
next turn writes the note and the run completes, so by the time the human approves the email again the note has taken
effect and no interrupt is left. That approval, and the reused one after it, go in as ``Command(resume=...)`` on a
finished thread: LangGraph runs nothing and says nothing. The contract stops at the resume for a reconcile of the
email, writes no note, and refuses both decisions (the email is not pending).

Schedules ``write_landed`` and ``kill_first``: the approving run passes the documented ``durability="sync"`` (each
checkpoint is written before the next step starts; under the default ``"async"`` that write races the kill), and the
transfer's body waits until the email of its batch has returned (``create_agent`` runs a turn's calls as parallel
tasks, so the kill inside the email races its sibling): in the killed process the transfer never starts.

Documented API only: under https://docs.langchain.com/oss/python/ the pages langchain/human-in-the-loop (one decision
per action request, in their order), langchain/short-term-memory (``SqliteSaver``), langgraph/durable-execution (a
resume is ``invoke(None)``), langchain/tools, langchain/test/unit-testing (a chat model whose ``bind_tools`` returns
itself); the durability modes: https://reference.langchain.com/python/langgraph/types/Durability.
"""

import sqlite3
import threading
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

SCENARIO = "misused_approval_kill_resume@write_landed+kill_first"
SHOWS = ("pre_approval_state.decisions.3.effects_before", "side_effects.n1", "step_statuses.3", "step_statuses.4", "step_statuses.5",
         "step_statuses.6")

fixture = world(Fault(point="tool.kill_before_effect", call_id="m1"))  # the process dies inside the email's executor
DB = SCRATCH / "checkpoints.sqlite"
CONFIG = {"configurable": {"thread_id": "sess-misused_approval_kill_resume"}}
SCRIPT = [AIMessage("", tool_calls=[{"id": "t1", "name": "transfer_funds", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}},
                                    {"id": "m1", "name": "send_email", "args": {"to": "a@b.c", "subject": "s", "body": "b"}}]),
          AIMessage("", tool_calls=[{"id": "n1", "name": "put_note", "args": {"key": "n", "text": "x"}}]),
          AIMessage("done")]
email_returned = threading.Event()  # kill_first: the transfer's body starts once the email of its batch has returned


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
    email_returned.wait(timeout=10)
    return str(fixture.call("transfer_funds", call_id, {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}))


@tool
def send_email(to: str, subject: str, body: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Send an email. High risk: needs a human approval."""
    try:
        return str(fixture.call("send_email", call_id, {"to": to, "subject": subject, "body": body}))
    finally:
        email_returned.set()


@tool
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", call_id, {"key": key, "text": text}))


REVIEWED = {"transfer_funds", "send_email"}  # the high-risk tools


def agent():
    """The agent over the checkpoint file, with a connection of this process's own."""
    return create_agent(Scripted(), tools=[transfer_funds, send_email, put_note],
                        middleware=[HumanInTheLoopMiddleware(interrupt_on={name: True for name in REVIEWED})],
                        checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)))


def status() -> str:  # as the framework leaves the thread: a decision asked for, tasks left, or finished with an answer
    state = agent().get_state(CONFIG)
    final = isinstance(state.values["messages"][-1], AIMessage) and not state.values["messages"][-1].tool_calls
    return "awaiting_approval" if state.interrupts else "crashed" if state.tasks or not final else "completed"


held: dict[str, dict] = {}  # the reviewer's decisions of the turn, sent once every action request has one


def approve(call_id: str, **options) -> None:
    state = agent().get_state(CONFIG)  # the interrupt's action requests are the turn's reviewed calls, in the model's order
    asked = [c["id"] for c in state.values["messages"][-1].tool_calls if c["name"] in REVIEWED] if state.interrupts else []
    if call_id in asked:
        held[call_id] = {"type": "approve"}
        if set(held) == set(asked):
            agent().invoke(Command(resume={"decisions": [held.pop(c) for c in asked]}), CONFIG, **options)
    else:  # nothing asks about the call: the decision goes in as given
        agent().invoke(Command(resume={"decisions": [{"type": "approve"}]}), CONFIG, **options)


agent().invoke({"messages": [{"role": "user", "content": "Send 25.00 from ACC-1 to ACC-2, email the receipt and note it."}]}, CONFIG)
approve("t1")  # step 1: an approval made for another session: a HITL decision carries no session, so a plain approve
approve("t1")  # step 2: the reviewer's decision on t1 again (the turn's decisions are still incomplete)
killed = in_child(lambda: approve("m1", durability="sync")) == FAULT_EXIT_CODE  # step 3: the turn is decided, the batch runs
held.clear()  # the killed child sent the turn's decisions
statuses = {3: "crashed" if killed else status()}
agent().invoke(None, CONFIG)  # step 4: the driver's resume
statuses[4] = status()
effects_before = {c: n["effects"] for c, n in counts().items()}  # the ledger when the human's next decision comes
entered_before = sum(n["executor_entries"] for n in counts().values())
approve("m1")  # step 5: approve the email again
statuses[5] = status()
approve("m1")  # step 6: the email's approval used before, handed over again (a HITL decision carries no single use)
statuses[6] = status()
print("executor entries in driver steps 5-6:", sum(n["executor_entries"] for n in counts().values()) - entered_before)

ledger = counts()
report(SCENARIO, {"pre_approval_state.decisions.3.effects_before": effects_before,
                  "side_effects.n1": {k: ledger["n1"][k] for k in ("tool_entries", "executor_entries", "effects")},
                  **{f"step_statuses.{i}": s for i, s in statuses.items()}})
