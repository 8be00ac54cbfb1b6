"""``create_agent`` has no inbound event id: the same user input delivered again is a new user turn on the thread,
so the model is asked again (a third turn the script does not have) and nothing refuses the duplicate.

Documented API only: ``create_agent`` with a checkpointer and a ``thread_id``
(https://docs.langchain.com/oss/python/langchain/short-term-memory), ``@tool`` with ``InjectedToolCallId``
(https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model whose ``bind_tools`` returns itself
(https://docs.langchain.com/oss/python/langchain/test/unit-testing).
"""

from typing import Annotated

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probe_kit import report, world

SCENARIO = "duplicate_event"
SHOWS = (
    "model.calls_per_turn.0",
    "model.calls_per_turn.1",
    "model.calls_per_turn.2",
    "model.missing_turns",
    "refusals",
    "step_statuses.0",
    "step_statuses.1",
)

fixture = world()
NOTE = {"key": "followup", "text": "Call the customer back on Monday."}
SCRIPT = [AIMessage("", tool_calls=[{"id": "c1", "name": "put_note", "args": NOTE}]), AIMessage("The note is saved.")]
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
def put_note(key: str, text: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Store a note under a key (overwrites: reversible and idempotent)."""
    return str(fixture.call("put_note", call_id, {"key": key, "text": text}))


agent = create_agent(Scripted(), tools=[put_note], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "sess-duplicate_event"}}
event = {"messages": [{"role": "user", "content": "Save a follow-up note."}]}
statuses, refused = [], []
for _ in ("run", "deliver_again"):  # the same event twice: there is no event id to pass
    try:
        agent.invoke(event, config)
    except Exception as error:  # a framework that refuses a duplicate raises; nothing is refused here
        refused.append(type(error).__name__)
    state = agent.get_state(config)
    statuses.append("awaiting_approval" if state.interrupts else "completed" if not state.tasks else "crashed")

found = {f"model.calls_per_turn.{t}": asked.count(t) for t in sorted(set(asked))}
found["model.missing_turns"] = sorted(t for t in set(asked) if t >= len(SCRIPT))
report(SCENARIO, found | {f"step_statuses.{i}": s for i, s in enumerate(statuses)} | {"refusals": refused})
