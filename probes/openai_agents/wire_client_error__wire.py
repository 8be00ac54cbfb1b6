"""The SDK's default model (``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client) at its defaults gets HTTP 400: the
client does not retry it and ``Runner.run`` raises ``openai.BadRequestError`` after 1 request (the engine stops
``model_unavailable`` with its checkpoint at the last completed turn, for a resume). The scenario's resume (driver
step 1) continues the session's conversation (``Runner.run(agent, [], session=...)``, as the column does) with 2 more
requests, so the scenario makes 3 in all, the count the evidence records.

Documented API only, through ``_kit.py``: ``OpenAIResponsesModel`` on your own
``AsyncOpenAI(base_url=..., api_key=...)`` (https://openai.github.io/openai-agents-python/models/), ``Runner.run`` with a
``SQLiteSession`` (https://openai.github.io/openai-agents-python/sessions/), the openai client's errors
(https://github.com/openai/openai-python#handling-errors).
"""

from _kit import fixture_tools, outcome, session, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [400]})
agent, conversation = wire_agent(server, fixture_tools(world())["get_weather"]), session("sess-wire_client_error")
statuses = [outcome(agent, "What is the weather in Paris?", session=conversation)]
print(f"driver step 0 (run): {len(server.requests)} request(s)")
statuses.append(outcome(agent, [], session=conversation))  # driver step 1, resume: the session's conversation continued
print(f"driver step 1 (resume): status {statuses[1]}; requests per turn over both steps: {[r['turn'] for r in server.requests]}")
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "step_statuses.0": statuses[0]})
