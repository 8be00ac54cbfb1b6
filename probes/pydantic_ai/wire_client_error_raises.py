"""Pydantic AI's OpenAI model, at its defaults, gets HTTP 400: the run raises ``ModelRequestRejectedError`` out of
``run_sync`` (the engine stops ``model_unavailable`` with its checkpoint at the last completed turn, for a resume).

Documented API only: ``OpenAIChatModel`` with ``OpenAIProvider(base_url=..., api_key=...)``
(https://ai.pydantic.dev/models/compatible-apis/#other-endpoints), ``ModelHTTPError`` and its subclasses
(https://ai.pydantic.dev/api/exceptions/), a typed function tool (https://pydantic.dev/docs/ai/tools-toolsets/tools/).
"""

import json

from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from harness.column_side.probe_kit import FIXTURE_TOOLS, report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ('wire.attempts', 'step_statuses.0')

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]


async def get_weather(ctx: RunContext[None], city: str) -> str:
    return json.dumps(fixture.call("get_weather", ctx.tool_call_id, {"city": city}))


def run(server: LoopbackModel) -> str:
    """One run as the docs write it; an exception out of it ends the run: the step's status is ``error``."""
    model = OpenAIChatModel("scripted-model", provider=OpenAIProvider(base_url=server.url, api_key="probe-key"))
    agent = Agent(model, tools=[Tool(get_weather, description=FIXTURE_TOOLS["get_weather"].description)],
                  system_prompt="You are a support agent for a small bank. Use the tools when they help.")
    try:
        agent.run_sync("What is the weather in Paris?")
    except ModelAPIError as exc:
        print(f"the run raised {type(exc).__name__}: {exc}")
        return "error"
    return "completed"

server = LoopbackModel(SCRIPT, failures={0: [400]})
status = run(server)
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["get_weather"]), "step_statuses.0": status}.items() if k in SHOWS})
