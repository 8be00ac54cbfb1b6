"""The SDK's default model (``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client) at its defaults gets a 200 whose
body is not JSON and does not try again: ``Runner.run`` raises the client's ``json.JSONDecodeError`` after that one
request (the engine retries it as a failed attempt and completes).

Documented API only: ``Agent`` with a ``Model`` built on your own ``AsyncOpenAI(base_url=..., api_key=...)``
(https://openai.github.io/openai-agents-python/models/), ``OpenAIResponsesModel``
(https://openai.github.io/openai-agents-python/ref/models/openai_responses/), ``@function_tool`` with a ``ToolContext``
first (https://openai.github.io/openai-agents-python/tools/), ``Runner.run``
(https://openai.github.io/openai-agents-python/running_agents/), the openai client's errors
(https://github.com/openai/openai-python#handling-errors: none of its classes covers this case).
"""

import asyncio
import json

import openai
from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled
from agents.tool_context import ToolContext
from openai import AsyncOpenAI

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_bad_body"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]


@function_tool
def get_weather(ctx: ToolContext, city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", ctx.tool_call_id, {"city": city}))


def run(server: LoopbackModel) -> str:
    """One run as the docs write it; an exception out of it ends the run: the step's status is ``error``."""
    model = OpenAIResponsesModel(model="scripted-model", openai_client=AsyncOpenAI(base_url=server.url, api_key="probe-key"))
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=model, tools=[get_weather])
    try:
        asyncio.run(Runner.run(agent, "What is the weather in Paris?"))
    except (openai.APIError, json.JSONDecodeError) as exc:  # the body's parse error comes out as it is
        print(f"the run raised {type(exc).__name__}: {exc}")
        return "error"
    return "completed"


set_tracing_disabled(True)
server = LoopbackModel(SCRIPT, failures={0: ["bad_body"]})
status = run(server)
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["get_weather"]), "step_statuses.0": status}.items() if k in SHOWS})
