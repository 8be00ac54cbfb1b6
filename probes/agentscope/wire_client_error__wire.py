"""AgentScope's ``OpenAIChatModel`` at its defaults gets HTTP 400: neither the openai client under it nor AgentScope's
own retries (connection, timeout, rate-limit and >=500 errors only) try again, and ``reply_stream`` raises
``openai.BadRequestError`` (the engine stops ``model_unavailable`` with its checkpoint at the last completed turn, for
a resume).

Documented API only (https://docs.agentscope.io/v2/building-blocks/model, .../agent, .../tool, .../permission-system),
through ``_kit.py`` (``wire_step``): ``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...),
model=...)``, ``Agent``, ``reply_stream``, AgentScope's retryable errors
(https://github.com/agentscope-ai/agentscope/blob/main/src/agentscope/model/_openai_chat/_model.py), the openai client's errors
(https://github.com/openai/openai-python#handling-errors).
"""

from _kit import fixture_tools, wire_step

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ("step_statuses.0",)
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]

server = LoopbackModel(SCRIPT, failures={0: [400]})  # the first request of turn 0: HTTP 400
status = wire_step(server, fixture_tools(world(), "get_weather"), "What is the weather in Paris?")
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["get_weather"]), "step_statuses.0": status}.items() if k in SHOWS})
