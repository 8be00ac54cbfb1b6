"""The SDK's default model (``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client) at its defaults gets a 200 whose
body is not JSON and does not try again: ``Runner.run`` raises the client's ``json.JSONDecodeError`` after that one
request (the engine retries it as a failed attempt and completes).

Documented API only, through ``_kit.py``: ``OpenAIResponsesModel`` on your own
``AsyncOpenAI(base_url=..., api_key=...)`` (https://openai.github.io/openai-agents-python/models/), ``Runner.run``, the
openai client's errors (https://github.com/openai/openai-python#handling-errors: none of its classes covers this case).
"""

import json

import openai
from _kit import fixture_tools, outcome, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_bad_body"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: ["bad_body"]})
agent = wire_agent(server, fixture_tools(world())["get_weather"])
status = outcome(agent, "What is the weather in Paris?", (openai.APIError, json.JSONDecodeError))  # the body's parse error comes out as it is
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "step_statuses.0": status})
