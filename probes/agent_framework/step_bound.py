"""Agent Framework's only bound on a run's model turns is its function-invocation loop's ``max_iterations`` (40 by
default, read here from the chat client's ``function_invocation_configuration``): with the defaults a model that keeps
calling a tool is asked for all five scripted turns and once more, every call runs, and the run completes (the
scenario's bound is three model turns, a terminal state with a reason). What the loop does once that bound is spent is
measured on a second agent whose model never stops calling the tool (``constants.at_step_limit``): 41 model calls, the
last with ``tool_choice="none"`` (the tools disabled), each call's options seen by a chat middleware
(https://learn.microsoft.com/en-us/agent-framework/agents/middleware/).

Documented API only, through the kit (``_kit.py``): the chat client's function invocation settings left at their
defaults (``FunctionInvocationConfiguration``, ``agent_framework/_tools.py``: "``max_iterations``: Limits the number of
LLM roundtrips"; ``FunctionInvocationLayer.function_invocation_configuration``), typed ``async`` function tools
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools), the kit's scripted chat client and
pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

import asyncio
from typing import Any

from _kit import call, deliver, executor_entries, model_counts, support_agent
from agent_framework import ChatContext, chat_middleware

from harness.column_side.probes.kit import report, world

SCENARIO = "step_bound"
SHOWS = (
    "model.calls_per_turn",
    "model.missing_turns",
    "model.unused_turns",
    "side_effects.c4.executor_entries",
    "side_effects.c5.executor_entries",
    "status",
    "step_statuses",
    "constants.step_limit",
    "constants.at_step_limit",
)

SCRIPT = [[call(f"c{n}", "get_weather", city="Paris")] for n in range(1, 6)]

agent = support_agent(SCRIPT, world(), "get_weather")
status = deliver(agent, "Keep checking the weather in Paris.")
entered = executor_entries()
asked = model_counts(SCRIPT, "calls_per_turn", "missing_turns", "unused_turns")  # before the second agent's turns join the log

choices: list[Any] = []


@chat_middleware
async def seen(context: ChatContext, call_next: Any) -> None:
    choices.append((context.options or {}).get("tool_choice"))
    await call_next()


looping = support_agent([[call(f"w{n}", "get_weather", city="Paris")] for n in range(100)], world(), "get_weather")
asyncio.run(looping.run("Keep checking the weather in Paris.", middleware=[seen], function_invocation_kwargs={"user": "alice"}))
report(SCENARIO, {"constants.step_limit": agent.client.function_invocation_configuration["max_iterations"],
                  "constants.at_step_limit": f"{len(choices)} model calls, the last with tool_choice={choices[-1]!r}",
                  **asked, "side_effects.c4.executor_entries": entered["c4"],
                  "side_effects.c5.executor_entries": entered["c5"], "status": status, "step_statuses": [status]})
