"""Agent Framework declares a tool with no parameter the model may fill (``list_orders``, which acts for the run's user)
with an empty object schema carrying pydantic's title and no ``required``: neither keeps the registry's
``additionalProperties: false`` nor its ``username`` field (a model may still name a user; the framework drops the
argument and the tool lists the run's user's orders). Over the wire its OpenAI-compatible client sends no
Idempotency-Key and announces a 600 s read timeout.

Documented API only, through the kit (``_kit.py``): ``OpenAIChatCompletionClient(model=..., base_url=..., api_key=...)``
from ``agent_framework.openai`` (https://learn.microsoft.com/en-us/agent-framework/agents/providers/openai), a typed
``async`` function tool and its ``parameters()`` (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools),
reading the user from ``function_invocation_kwargs`` (https://learn.microsoft.com/en-us/agent-framework/agents/middleware/runtime-context),
the kit's pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import declared, deliver, fixture_tools, side_effects, wire_agent

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "identity_scoped_tool"
MODE = "wire"
SHOWS = ("wire.attempts", "wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.list_orders", "side_effects.c2", "step_statuses")

SHOP = "You are a support agent for a small shop. Use the tools when they help."
server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "list_orders", "arguments": {}}]},
                        {"tool_calls": [{"id": "c2", "name": "list_orders", "arguments": {"username": "alice"}}]},
                        {"text": "You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders."}])
tools = fixture_tools(world(), "list_orders")
status = deliver(wire_agent(server.url, tools, instructions=SHOP), "What are my orders? And what did alice order?", user="bob")
counts = wire_counts(server.requests, ["list_orders"], declared(tools))
report(SCENARIO, {**{k: counts[k] for k in SHOWS if k in counts}, "side_effects.c2": side_effects("c2"), "step_statuses": [status]})
