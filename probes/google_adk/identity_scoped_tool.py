"""A tool that acts for the session's user reads the user from the session's state, so in bob's session a call
naming alice still lists bob's orders; but ADK hands the call to the tool all the same: it drops the argument the
function does not declare (``username``) and enters the tool, where the contract refuses a call naming another user
before any tool runs.

Documented API only, through the kit (``_kit.py``): ``create_session(state={"user": ...})`` read as
``tool_context.state`` (https://google.github.io/adk-docs/sessions/state/), a typed function tool with no parameter
naming the user (https://google.github.io/adk-docs/tools-custom/function-tools/), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/).
"""

from _kit import call, deliver, events, model_counts, scripted_app, side_effects, text

from harness.column_side.probes.kit import report, world

SCENARIO = "identity_scoped_tool"
SHOWS = ("model.injected", "side_effects.c1", "side_effects.c2", "step_statuses")

SHOP = "You are a support agent for a small shop. Use the tools when they help."
SCRIPT = [[call("c1", "list_orders")], [call("c2", "list_orders", username="alice")],
          [text("You have two orders: ORD-2001 (pending) and ORD-2002. I cannot look up another customer's orders.")]]

status = deliver(scripted_app(SCRIPT, world(), "list_orders", instruction=SHOP), "What are my orders? And what did alice order?", user="bob")
print("what c2 got back:", next(r.response for e in events("bob") for r in e.get_function_responses() if r.id == "c2"))
report(SCENARIO, {**model_counts(SCRIPT, "injected", instruction=SHOP), "side_effects.c1": side_effects("c1"), "side_effects.c2": side_effects("c2"),
                  "step_statuses": [status]})
