"""The SDK's default model (``OpenAIResponsesModel`` on an ``AsyncOpenAI`` client) at its defaults gets HTTP 400: the
client does not retry it and ``Runner.run`` raises ``openai.BadRequestError`` after 1 request (the engine stops
``model_unavailable`` with its checkpoint at the last completed turn, for a resume). The scenario's resume (driver
step 1) continues the session's conversation (``Runner.run(agent, [], session=...)``, as the column does) with 2 more
requests, so the scenario makes 3 in all, the count the evidence records.

Documented API only: ``Agent`` with a ``Model`` built on your own ``AsyncOpenAI(base_url=..., api_key=...)``
(https://openai.github.io/openai-agents-python/models/), ``OpenAIResponsesModel``
(https://openai.github.io/openai-agents-python/ref/models/openai_responses/), ``@function_tool`` with a ``ToolContext``
first (https://openai.github.io/openai-agents-python/tools/), ``Runner.run`` with a ``SQLiteSession``
(https://openai.github.io/openai-agents-python/running_agents/, https://openai.github.io/openai-agents-python/sessions/),
the openai client's errors (https://github.com/openai/openai-python#handling-errors).
"""

import asyncio
import json

import openai
from agents import Agent, OpenAIResponsesModel, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.tool_context import ToolContext
from openai import AsyncOpenAI

from harness.column_side.probe_kit import report, world
from harness.column_side.probe_wire import LoopbackModel, wire_counts

SCENARIO = "wire_client_error"
MODE = "wire"
SHOWS = ("wire.attempts", "step_statuses.0")

fixture = world()
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "It is sunny in Paris."}]


@function_tool
def get_weather(ctx: ToolContext, city: str) -> str:
    """Current weather for a city."""
    return json.dumps(fixture.call("get_weather", ctx.tool_call_id, {"city": city}))


async def step(agent: Agent, payload: str | list, session: SQLiteSession) -> str:
    """One driver step as the docs write a run; an exception out of it ends the run: the step's status is ``error``."""
    try:
        await Runner.run(agent, payload, session=session)
    except openai.APIError as exc:
        print(f"the run raised {type(exc).__name__}: {exc}")
        return "error"
    return "completed"


async def scenario(server: LoopbackModel) -> list[str]:
    model = OpenAIResponsesModel(model="scripted-model", openai_client=AsyncOpenAI(base_url=server.url, api_key="probe-key"))
    agent = Agent(name="support", instructions="You are a support agent for a small bank. Use the tools when they help.",
                  model=model, tools=[get_weather])
    session = SQLiteSession("sess-wire_client_error")
    statuses = [await step(agent, "What is the weather in Paris?", session)]
    print(f"driver step 0 (run): {len(server.requests)} request(s)")
    statuses.append(await step(agent, [], session))  # driver step 1, resume: the session's conversation continued
    print(f"driver step 1 (resume): status {statuses[1]}; requests per turn over both steps: {[r['turn'] for r in server.requests]}")
    return statuses


set_tracing_disabled(True)
server = LoopbackModel(SCRIPT, failures={0: [400]})
statuses = asyncio.run(scenario(server))
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["get_weather"]), "step_statuses.0": statuses[0]}.items() if k in SHOWS})
