"""A tool call whose arguments are not JSON is dropped: ``ChatOpenAI`` (whose parsing the scripted model repeats with
``parse_tool_call`` / ``make_invalid_tool_call``) turns the model's ``{"city": `` into an ``invalid_tool_calls`` entry, and
``tools_condition`` routes on ``tool_calls`` alone, so the graph ends after that turn as if the model had answered: no tool
result (``ToolNode`` never sees the call), nothing for the model to correct, and the next turn never asked for.

Documented API only, through the kit (``probes/langgraph/_kit.py``): the tool-calling graph (``ToolNode`` and
``tools_condition``: https://langchain-ai.github.io/langgraph/how-tos/tool-calling/), ``@tool`` with ``InjectedToolCallId``,
a scripted chat model whose raw tool calls are parsed with ``parse_tool_call`` / ``make_invalid_tool_call``
(https://reference.langchain.com/python/langchain-core/output_parsers/openai_tools).
"""

from _kit import Scripted, agent_graph, fixture_tools, ledger, user

from harness.column_side.probes.kit import report, world

SCENARIO = "malformed_args_not_json"
SHOWS = ("model.calls_per_turn", "side_effects", "status", "step_statuses")
PINS = ("1.2.24", "0.6.11")

model = Scripted(script=[[{"id": "c1", "name": "get_weather", "arguments": '{"city": '}],  # the raw argument text of a chat completion, cut short
                         [{"id": "c2", "name": "get_weather", "arguments": '{"city": "Paris"}'}], "It is sunny in Paris."])
messages = agent_graph(model, fixture_tools(world().call, "get_weather")).compile().invoke(user("What is the weather in Paris?"))["messages"]
answered = [m for m in messages if getattr(m, "tool_call_id", None) == "c1"]
status = "completed" if not answered and not messages[-1].tool_calls else "not dropped"  # ended with c1 unanswered

# every call the tool was entered for
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": model.calls_per_turn(), "side_effects": ledger()})
