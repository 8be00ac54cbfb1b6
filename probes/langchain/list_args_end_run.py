"""Arguments that are JSON but not an object end the run: the model's ``["Paris"]`` is parsed as ``ChatOpenAI`` parses a
tool call (``parse_tool_call``), the parsed list is no ``args`` dict, and ``AIMessage`` raises pydantic's
``ValidationError`` inside ``create_agent``'s model node. ``invoke`` raises it: the tool is never entered (as the contract
wants), but the model never gets the error as a tool result to correct, so the corrected call never comes.

Documented API only: ``create_agent`` (https://docs.langchain.com/oss/python/langchain/agents), ``@tool``
(https://docs.langchain.com/oss/python/langchain/tools), a scripted chat model whose ``bind_tools`` returns itself
(https://docs.langchain.com/oss/python/langchain/test/unit-testing), its raw tool calls parsed with ``parse_tool_call`` /
``make_invalid_tool_call`` (https://reference.langchain.com/python/langchain-core/output_parsers/openai_tools).
"""

from collections import Counter
from typing import Annotated

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from pydantic import ValidationError

from harness.column_side.probe_kit import counts, report, world

SCENARIO = "args_not_an_object"
SHOWS = (
    "model.calls_per_turn",
    "schema_failure_side_effects.c1.effects",
    "schema_failure_side_effects.c1.executor_entries",
    "schema_failure_side_effects.c1.tool_entered",
    "side_effects",
    "status",
    "step_statuses",
)

fixture = world()
SCRIPT = [[{"id": "c1", "name": "get_weather", "arguments": '["Paris"]'}],  # the raw argument text of a chat completion
          [{"id": "c2", "name": "get_weather", "arguments": '{"city": "Paris"}'}], "It is sunny in Paris."]
asked: Counter = Counter()  # model calls per script turn


class Scripted(BaseChatModel):
    """The script's turn numbered by the AI messages already in the conversation; tool calls parsed as ChatOpenAI does."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        turn = sum(isinstance(m, AIMessage) for m in messages)
        asked[str(turn)] += 1
        if isinstance(step := SCRIPT[turn], str):
            return ChatResult(generations=[ChatGeneration(message=AIMessage(step))])
        calls, invalid = [], []
        for c in step:
            wire = {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            try:
                calls.append(parse_tool_call(wire, return_id=True))
            except Exception as exc:  # noqa: BLE001 - ChatOpenAI turns every parse failure into an invalid tool call
                invalid.append(make_invalid_tool_call(wire, str(exc)))
        return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=calls, invalid_tool_calls=invalid))])


@tool
def get_weather(city: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Current weather for a city."""
    return str(fixture.call("get_weather", call_id, {"city": city}))


try:
    create_agent(Scripted(), tools=[get_weather]).invoke({"messages": [{"role": "user", "content": "What is the weather in Paris?"}]})
    status = "completed"
except ValidationError as error:  # raised by AIMessage in the model node, out of invoke: the run is over
    print(f"invoke raised {type(error).__module__}.{type(error).__name__}: {str(error).splitlines()[0]}")
    status = "error"

KEYS = ("tool_entries", "executor_entries", "effects")
ledger = {cid: {k: row[k] for k in KEYS} for cid, row in counts().items()}  # every call the tool was entered for
c1 = ledger.get("c1", dict.fromkeys(KEYS, 0))
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": dict(asked), "side_effects": ledger,
                  "schema_failure_side_effects.c1.tool_entered": c1["tool_entries"] > 0,
                  "schema_failure_side_effects.c1.executor_entries": c1["executor_entries"],
                  "schema_failure_side_effects.c1.effects": c1["effects"]})
