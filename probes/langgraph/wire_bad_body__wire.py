"""LangGraph's agent graph with LangChain's ``ChatOpenAI`` at its defaults gets a 200 whose body is not JSON and does not
try again: ``invoke`` raises the openai client's ``json.JSONDecodeError`` as is, after that one request (the engine
retries it as a failed attempt and completes).

Documented API only: the openai client's error classes, which do not cover this case
(https://github.com/openai/openai-python#handling-errors); the agent graph with ``ChatOpenAI(model=..., base_url=...,
api_key=...)`` bound to the tools and the ``@tool`` are the kit's (``probes/langgraph/_kit.py``).
"""

import json

import openai
from _kit import fixture_tools, step, user, wire_graph

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_bad_body"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")
PINS = ("1.2.24", "0.6.11")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]
server = LoopbackModel(SCRIPT, failures={0: ["bad_body"]})
app = wire_graph(server, fixture_tools(world().call, "get_weather")).compile()
status = step(app, user("What is the weather in Paris?"), errors=(json.JSONDecodeError, openai.APIError))  # an exception out of the run: ``error``
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "step_statuses.0": status})
