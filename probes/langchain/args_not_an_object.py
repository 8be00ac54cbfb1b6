"""Arguments that are JSON but not an object end the run: the model's ``["Paris"]`` is parsed as ``ChatOpenAI`` parses a
tool call (``parse_tool_call``), the parsed list is no ``args`` dict, and ``AIMessage`` raises pydantic's
``ValidationError`` inside ``create_agent``'s model node. ``invoke`` raises it: the tool is never entered (as the contract
wants), but the model never gets the error as a tool result to correct, so the corrected call never comes.

Documented API only, through the kit (``probes/langchain/_kit.py``): ``create_agent``
(https://docs.langchain.com/oss/python/langchain/agents), the ``@tool``, a scripted chat model whose raw tool calls are
parsed with ``parse_tool_call`` / ``make_invalid_tool_call`` (https://reference.langchain.com/python/langchain-core/output_parsers/openai_tools).
"""

from _kit import KEYS, Scripted, agent, fixture_tools, ledger, schema_failure, step, user
from pydantic import ValidationError

from harness.column_side.probes.kit import report, world

SCENARIO = "args_not_an_object"
SHOWS = ("model.calls_per_turn", "schema_failure_side_effects.c1.effects", "schema_failure_side_effects.c1.executor_entries",
         "schema_failure_side_effects.c1.tool_entered", "side_effects", "status", "step_statuses")

model = Scripted(script=[[{"id": "c1", "name": "get_weather", "arguments": '["Paris"]'}],  # the raw argument text of a chat completion
                         [{"id": "c2", "name": "get_weather", "arguments": '{"city": "Paris"}'}], "It is sunny in Paris."])
app = agent(model, fixture_tools(world().call, "get_weather"))
status = step(app, user("What is the weather in Paris?"), errors=(ValidationError,))  # raised by AIMessage in the model node, out of invoke

found = ledger()  # every call the tool was entered for
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": model.calls_per_turn(), "side_effects": found,
                  **schema_failure("c1", found.get("c1", dict.fromkeys(KEYS, 0)))})
