"""ADK's own OpenAI-compatible model, at its defaults, against a plain loopback server whose first answer is HTTP
500: the openai client ``OpenAILlm`` builds retries it by itself (``x-stainless-retry-count: 1``), announces a 600 s
read timeout and sends no Idempotency-Key. The tool's declaration as ADK hands it to the model object (a
``FunctionTool`` built from a typed function) has lost the registry's ``minLength`` and ``additionalProperties`` and
gained pydantic's titles (the engine: 5 s, a key per logical call, the registry's schema verbatim).

Documented API only, through the kit (``_kit.py``): ``OpenAILlm(model=..., base_url=..., api_key=...)`` from ``google.adk.integrations.openai``
(its class docstring: "any OpenAI-compatible backend"), the declarations read in a ``before_model_callback``
(https://google.github.io/adk-docs/callbacks/types-of-callbacks/#before-model-callback), a typed function tool
(https://google.github.io/adk-docs/tools-custom/function-tools/).
"""

from _kit import deliver, fixture_tools, wire_app

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_once"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.client_retries", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.get_weather", "step_statuses.0")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [500]})
declared: dict = {}
status = deliver(wire_app(server.url, fixture_tools(world(), "get_weather"), declared), "What is the weather in Paris?")
report(SCENARIO, {**wire_counts(server.requests, ["get_weather"], declared), "step_statuses.0": status})
