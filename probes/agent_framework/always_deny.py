"""Agent Framework has no policy stage of its own: a tool the contract always denies (``drop_database``) runs when the
model calls it, with its effect, and the run completes.

Documented API only, through the kit (``_kit.py``): a typed ``async`` function made a tool with ``tool(...)``
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools), an ``Agent`` run on an
``AgentSession`` (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session), a scripted chat
client (the ``BaseChatClient`` docstring, ``agent_framework/_clients.py``) and the kit's pass-through function
middleware, there only to hand the tool its call id for the ledger
(https://learn.microsoft.com/en-us/agent-framework/agents/middleware).
"""

from _kit import call, deliver, side_effects, support_agent, text

from harness.column_side.probes.kit import report, world

SCENARIO = "always_deny"
SHOWS = ("side_effects.c1", "step_statuses")

SCRIPT = [[call("c1", "drop_database", name="prod")], [text("I am not allowed to drop databases.")]]

status = deliver(support_agent(SCRIPT, world(), "drop_database"), "Drop the prod database.")
report(SCENARIO, {"side_effects.c1": side_effects("c1"), "step_statuses": [status]})
