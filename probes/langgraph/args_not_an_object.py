"""Arguments that are JSON but not an object end the run: the model's ``["Paris"]`` is parsed as ``ChatOpenAI`` parses a
tool call (``parse_tool_call``), the parsed list is no ``args`` dict, and ``AIMessage`` raises pydantic's
``ValidationError`` in the model node, before ``ToolNode`` (which would answer an argument error) sees the call. The
graph's ``invoke`` raises it: the tool is never entered, but the model never gets an error to correct.

Documented API only, through the kit (``probes/langgraph/_kit.py``): the tool-calling graph (``ToolNode`` and
``tools_condition``: https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), ``@tool`` with ``InjectedToolCallId``,
a scripted chat model whose raw tool calls are parsed with ``parse_tool_call`` / ``make_invalid_tool_call``
(https://reference.langchain.com/python/langchain-core/output_parsers/openai_tools).
"""

from _kit import KEYS, Scripted, agent_graph, fixture_tools, ledger, schema_failure, step, user
from pydantic import ValidationError

from harness.column_side.probes.kit import report, world

SCENARIO = "args_not_an_object"
SHOWS = ("model.calls_per_turn", "schema_failure_side_effects.c1.effects", "schema_failure_side_effects.c1.executor_entries",
         "schema_failure_side_effects.c1.tool_entered", "side_effects", "status", "step_statuses")
PINS = ("1.2.24", "0.6.11")

model = Scripted(script=[[{"id": "c1", "name": "get_weather", "arguments": '["Paris"]'}],  # the raw argument text of a chat completion
                         [{"id": "c2", "name": "get_weather", "arguments": '{"city": "Paris"}'}], "It is sunny in Paris."])
app = agent_graph(model, fixture_tools(world().call, "get_weather")).compile()
status = step(app, user("What is the weather in Paris?"), errors=(ValidationError,))  # raised by AIMessage in the agent node, out of the graph

found = ledger()  # every call the tool was entered for
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": model.calls_per_turn(), "side_effects": found,
                  **schema_failure("c1", found.get("c1", dict.fromkeys(KEYS, 0)))})
