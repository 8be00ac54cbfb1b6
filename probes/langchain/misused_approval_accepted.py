"""A ``HumanInTheLoopMiddleware`` decision carries no token and names no call: each misused approval token goes in
as the only thing the docs let a human send, an approve decision, and answers whichever interrupt is pending (the
first moves c1, the second moves c2, asked right after); with nothing pending LangGraph accepts a decision silently.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, a checkpointer, ``get_state`` and
``Command(resume={"decisions": [...]})`` (https://docs.langchain.com/oss/python/langchain/human-in-the-loop),
``@tool`` with ``InjectedToolCallId`` (https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model
whose ``bind_tools`` returns itself (https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

from typing import Annotated

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "approval_token_misuse"
SHOWS = (
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.decisions.1.effects_before",
    "pre_approval_state.decisions.2.effects_before",
    "pre_approval_state.decisions.3.effects_before",
    "pre_approval_state.decisions.4.effects_before",
    "pre_approval_state.decisions.5.effects_before",
    "pre_approval_state.decisions.6.effects_before",
    "pre_approval_state.pauses.1.step",
    "refusals",
    "side_effects.c1.effects",
    "side_effects.c1.executor_entries",
    "side_effects.c1.tool_entries",
    "side_effects.c2.effects",
    "side_effects.c2.executor_entries",
    "side_effects.c2.tool_entries",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
    "step_statuses.3",
    "step_statuses.4",
    "step_statuses.5",
    "step_statuses.6",
    "step_statuses.7",
)

fixture = world()
ARGS = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [AIMessage("", tool_calls=[{"id": cid, "name": "transfer_funds", "args": ARGS}]) for cid in ("c1", "c2")]
SCRIPT.append(AIMessage("Sent once; the second transfer was not approved."))


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


agent = create_agent(Scripted(), tools=[transfer_funds], middleware=[HumanInTheLoopMiddleware(interrupt_on={"transfer_funds": True})],
                     checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "sess-approval_token_misuse"}}
APPROVE, REJECT = {"type": "approve"}, {"type": "reject", "message": "duplicate transfer"}
# the driver: run, four misused tokens for c1, approve c1, the reused token for c2, reject c2
steps = [{"messages": [{"role": "user", "content": "Send 25.00 from ACC-1 to ACC-2."}]}] + [Command(resume={"decisions": [d]}) for d in [APPROVE] * 6 + [REJECT]]
statuses, refused, effects_before = [], [], []
for payload in steps:
    effects_before.append({c: n["effects"] for c, n in counts().items()})
    try:
        agent.invoke(payload, config)
    except Exception as error:  # a framework that refuses a decision raises; none is refused here
        refused.append(type(error).__name__)
    state = agent.get_state(config)
    statuses.append("awaiting_approval" if state.interrupts else "completed" if not state.tasks else "crashed")

ledger = counts()
found = {f"side_effects.{c}.{k}": ledger[c][k] for c in ledger for k in ("tool_entries", "executor_entries", "effects")}
found |= {f"step_statuses.{i}": s for i, s in enumerate(statuses)} | {"refusals": refused}
found |= {f"pre_approval_state.decisions.{i - 1}.effects_before": effects_before[i] for i in range(1, len(steps))}
found["pre_approval_state.pauses.1.step"] = [i for i, s in enumerate(statuses) if s == "awaiting_approval"][1]
report(SCENARIO, found)
