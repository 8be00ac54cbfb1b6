"""ADK's own OpenAI-compatible model, at its defaults, gets HTTP 400: the run raises the openai client's
``BadRequestError`` out of ``run_async`` (the engine stops ``model_unavailable`` with its checkpoint at the last
completed turn, for a resume). The scenario's resume then continues the invocation and completes.

Documented API only, through the kit (``_kit.py``): ``OpenAILlm(model=..., base_url=..., api_key=...)`` from ``google.adk.integrations.openai``
(its class docstring: "any OpenAI-compatible backend"), the openai client's errors
(https://github.com/openai/openai-python#handling-errors), a resumable ``App`` resumed with
``run_async(invocation_id=..., new_message=None)`` (https://google.github.io/adk-docs/runtime/resume/), a typed function
tool (https://google.github.io/adk-docs/tools-custom/function-tools/). Each driver step builds its app afresh.
"""

from _kit import deliver, fixture_tools, model_errors, resume, wire_app

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses")

server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}],
                       failures={0: [400]})
fixture = world()
statuses = [deliver(wire_app(server.url, fixture_tools(fixture, "get_weather"), {}), "What is the weather in Paris?", errors=model_errors())]  # step 0
statuses.append(resume(wire_app(server.url, fixture_tools(fixture, "get_weather"), {}), errors=model_errors()))  # step 1: the resume
report(SCENARIO, {"wire.attempts": wire_counts(server.requests, ["get_weather"])["wire.attempts"], "step_statuses": statuses})
