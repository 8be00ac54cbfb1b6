"""AgentScope's ``OpenAIChatModel`` at its defaults gets HTTP 503 with ``Retry-After: 2.5``: the openai client under it
waits and retries, and the run completes (the contract gives up at once on a Retry-After over 2 s: the engine's step
ends ``model_unavailable``). The lookup asks for confirmation (default mode) and is confirmed as the driver answers a
question the contract would not have asked. The scenario's resume (driver step 1) finds the run completed.

Documented API only (https://docs.agentscope.io/v2/building-blocks/model, .../agent, .../tool, .../permission-system),
through ``_kit.py`` (``wire_step``): ``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...),
model=...)``, ``Agent``, ``reply_stream``, a ``UserConfirmResultEvent`` confirming the asking ``ToolCallBlock``, the
openai client's retries (https://github.com/openai/openai-python#retries).
"""

from _kit import fixture_tools, wire_step

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_retry_after_too_long"
MODE = "wire"
SHOWS = ("step_statuses.0",)
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]

server = LoopbackModel(SCRIPT, failures={0: [(503, 2.5)]})  # the first request of turn 0: HTTP 503, Retry-After 2.5 s
status = wire_step(server, fixture_tools(world(), "get_weather"), "What is the weather in Paris?")
print("requests (turn, x-stainless-retry-count):", [(r["turn"], r["retry_count"]) for r in server.requests])
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["get_weather"]), "step_statuses.0": status}.items() if k in SHOWS})
