"""LangGraph has no uncertain state for a call that timed out after its effect. At 1.2.24 ``ToolNode`` re-raises the
``TimeoutError``: the approved run ends in that error with the ``tools`` task still to run and no question pending, and
the model never hears of the transfer that did happen. At 0.6.11 ``ToolNode`` hands the model the error as a
``ToolMessage`` and the run completes: the model's next turn answers as if nothing were uncertain. Neither stops for a
reconcile.

Documented API only: ``interrupt()`` / ``Command(resume=...)``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), ``InMemorySaver`` and ``get_state``
(https://docs.langchain.com/oss/python/langgraph/persistence), ``ToolNode`` with its default ``handle_tool_errors``
(https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode); the graph with its review node and the
scripted model, which notes the turn it is asked for, are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import APPROVE, Scripted, agent_graph, call, fixture_tools, status, step, thread, user
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.column_side.probes.kit import Fault, counts, report, world

SCENARIO = "uncertain_after_timeout"
SHOWS = ("model.calls_per_turn", "model.unused_turns", "status", "step_statuses.0", "step_statuses.1")
PINS = ("1.2.24", "0.6.11")

tools = fixture_tools(world(Fault("tool.timeout_after_effect", call_id="c1")).call, "transfer_funds")
model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."])
app, config = agent_graph(model, tools, review=True).compile(checkpointer=InMemorySaver()), thread("sess-uncertain_after_timeout")

statuses = [step(app, user("Send 25.00 from ACC-1 to ACC-2."), config)]
statuses.append(step(app, Command(resume=APPROVE), config, errors=(TimeoutError,)))  # 1.2.24: re-raised by ToolNode, the run ends here, after the effect
print(f"after the timeout: next={app.get_state(config).next}, effects={counts()['c1']['effects']}", flush=True)

report(SCENARIO, {"step_statuses.0": statuses[0], "step_statuses.1": statuses[1], "status": status(app, config),  # tasks left, nothing asked
                  "model.calls_per_turn": model.calls_per_turn(), "model.unused_turns": model.unused_turns()})
