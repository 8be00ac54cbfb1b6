"""A tool that times out after its effect does not stop the run for reconciliation: ``ToolNode`` re-raises the
``TimeoutError`` out of the approved run (an error step), the model is never asked for its next turn, and the saved
state is left with the tools task still to run and no interrupt naming the uncertain call (nothing records that the
executor was entered, so LangChain has nothing to reconcile against).

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware``, ``get_state`` and
``Command(resume={"decisions": [...]})`` (https://docs.langchain.com/oss/python/langchain/human-in-the-loop),
``ToolNode``'s default ``handle_tool_errors`` (https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode);
the agent, the ``@tool`` and the scripted chat model, which notes the turn it is asked for, are the kit's (``probes/langchain/_kit.py``).
"""

from _kit import APPROVE, Scripted, agent, call, decide, fixture_tools, flat, status, step, thread, user
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("model.calls_per_turn.0", "model.unused_turns", "status", "step_statuses.0", "step_statuses.1")

tools = fixture_tools(world(Fault(point="tool.timeout_after_effect", call_id="c1")).call, "transfer_funds")  # the transfer lands, then the call times out
model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."])
app = agent(model, tools, reviewed=("transfer_funds",), checkpointer=InMemorySaver())
config = thread("sess-uncertain_after_timeout")
statuses = [step(app, payload, config, errors=(TimeoutError,)) for payload in (user("Send 25.00 from ACC-1 to ACC-2."), decide(APPROVE))]  # out of invoke: an error step
state = app.get_state(config)
print("left to run:", state.next, "interrupts:", state.interrupts)

report(SCENARIO, {**flat("model.calls_per_turn", model.calls_per_turn()), "model.unused_turns": model.unused_turns(), **flat("step_statuses", statuses),
                  "status": status(app, config)})  # tasks left: the run died mid-way
