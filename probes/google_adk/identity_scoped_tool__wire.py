"""ADK declares a tool with no parameter the model may fill (``list_orders``, which acts for the session's user) with
no parameters at all, and its OpenAI-compatible model sends it as an empty object schema (``{"type": "object",
"properties": {}}``): the request carries a schema the tool object does not have, and neither keeps the registry's
``additionalProperties: false`` (a model may still name a user; ADK drops the argument). Neither request carries an
Idempotency-Key, and each announces a 600 s read timeout.

Documented API only, through the kit (``_kit.py``): ``OpenAILlm(model=..., base_url=..., api_key=...)`` from ``google.adk.integrations.openai``
(its class docstring: "any OpenAI-compatible backend"), the declarations read in a ``before_model_callback``
(https://google.github.io/adk-docs/callbacks/types-of-callbacks/#before-model-callback), a typed function tool reading
the user from ``tool_context.state`` (https://google.github.io/adk-docs/tools-custom/function-tools/,
https://google.github.io/adk-docs/sessions/state/).
"""

from _kit import deliver, fixture_tools, wire_app

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "identity_scoped_tool"
MODE = "wire"
SHOWS = ("wire.idempotency_key_sent", "wire.read_timeout", "wire.schema_diff.list_orders", "step_statuses")

SHOP = "You are a support agent for a small shop. Use the tools when they help."
server = LoopbackModel([{"tool_calls": [{"id": "c1", "name": "list_orders", "arguments": {}}]},
                        {"tool_calls": [{"id": "c2", "name": "list_orders", "arguments": {"username": "alice"}}]},
                        {"text": "You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders."}])
declared: dict = {}
status = deliver(wire_app(server.url, fixture_tools(world(), "list_orders"), declared, instruction=SHOP), "What are my orders? And what did alice order?",
                 user="bob")
counts = wire_counts(server.requests, ["list_orders"], declared)
report(SCENARIO, {k: counts[k] for k in SHOWS if k in counts} | {"step_statuses": [status]})
