"""A model turn that calls a tool the agent was not given ends the run: the runner raises ``ModelBehaviorError``
("Tool get_balance not found in agent support"), so ``Runner.run`` raises it, where the contract answers the call as an
error result the model reads and goes on (the model would have finished). Nothing runs; the model is asked once.

Documented API only, through ``_kit.py``: ``Runner.run``
(https://openai.github.io/openai-agents-python/running_agents/) and ``ModelBehaviorError``
(https://openai.github.io/openai-agents-python/ref/exceptions/: "calling a tool that doesn't exist"), the
``@function_tool`` fixture tools, the scripted ``Model``.
"""

from _kit import calls_per_turn, fixture_tools, outcome, support_agent
from agents import ModelBehaviorError

from harness.column_side.probes.kit import counts, report, world

SCENARIO = "unknown_tool_called"
SHOWS = ("model.calls_per_turn", "status", "step_statuses")

SCRIPT = [{"tool_calls": [{"id": "c1", "name": "get_balance", "arguments": {"account": "ACC-2"}}]}, {"text": "Done."}]

agent = support_agent(SCRIPT, fixture_tools(world())["put_note"])  # the scenario offers put_note only
status = outcome(agent, "Please take care of my request.", (ModelBehaviorError,))  # out of Runner.run: the run is over
assert counts() == {}, counts()  # nothing entered any tool
report(SCENARIO, {"status": status, "step_statuses": [status], "model.calls_per_turn": calls_per_turn()})
