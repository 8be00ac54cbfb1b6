"""AgentScope's ``OpenAIChatModel`` (an ``OpenAICredential`` with a ``base_url``) at its defaults, against a plain
loopback server whose first answer is HTTP 500: the openai client under it retries it by itself
(``x-stainless-retry-count: 1``), announces a 600 s read timeout and sends no Idempotency-Key. The ``FunctionTool``'s
``input_schema`` lacks the registry's ``additionalProperties`` and ``minLength`` and is sent as it is (the engine: no
client retries, 5 s, a key per logical call, the registry's schema verbatim). The lookup asks for confirmation (default mode) and is confirmed as the driver
answers a question the contract would not have asked.

Documented API only (https://docs.agentscope.io/v2/building-blocks/model, .../agent, .../tool, .../permission-system),
through ``_kit.py`` (``wire_step``): ``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...),
model=...)``, ``Agent`` over its default ``AgentState``, a ``UserConfirmResultEvent`` confirming the asking
``ToolCallBlock``; here the ``FunctionTool``'s ``input_schema``.
"""

from _kit import fixture_tools, wire_step

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})
tools = fixture_tools(world(), "get_weather")
status = wire_step(server, tools, "What is the weather in Paris?")
report(SCENARIO, {**wire_counts(server.requests, ["get_weather"], {t.name: t.input_schema for t in tools}), "step_statuses.0": status})
