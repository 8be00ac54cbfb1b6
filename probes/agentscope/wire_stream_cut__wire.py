"""AgentScope's ``OpenAIChatModel`` streams by default; when the stream is cut after its first event, the openai client
raises ``openai.APIConnectionError`` while it is read, neither it (stream consumption is not retried) nor AgentScope's
own retries send the request again, and ``reply_stream`` raises after that one request (the engine retries the same
logical call and completes).

Documented API only (https://docs.agentscope.io/v2/building-blocks/model, .../agent, .../tool, .../permission-system),
through ``_kit.py`` (``wire_step``): ``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...),
model=...)``, ``Agent``, ``reply_stream``, the openai client's errors and streaming
(https://github.com/openai/openai-python#handling-errors).
"""

from _kit import fixture_tools, wire_step

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_stream_cut"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]

server = LoopbackModel(SCRIPT, failures={0: ["cut"]})  # the first answer of turn 0: the stream cut after its first event
status = wire_step(server, fixture_tools(world(), "get_weather"), "What is the weather in Paris?")
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["get_weather"]), "step_statuses.0": status}.items() if k in SHOWS})
