"""LangGraph takes an answer sent to a thread that waits on no interrupt as a resume of whatever it has left. At 1.2.24
the first transfer's timeout (after its effect) inside the tools task ends the run in the error, and an approval of the
second transfer, which no interrupt asks about any more, runs the failed tools task again, so t1 moves money a second
time and the run completes. At 0.6.11 ``ToolNode`` hands the timeout to the model as an error ``ToolMessage`` and the run
completes at once; the later approval of t2 finds nothing left to run and changes nothing. The contract stops at the
timeout for a reconcile, and refuses that approval (t2 is not pending) and runs nothing.

Documented API only: the plain ``Command(resume=value)`` (https://docs.langchain.com/oss/python/langgraph/interrupts),
``ToolNode`` (whose default error handling re-raises a tool's ``TimeoutError`` at 1.2.24 and catches it at 0.6.11:
https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode), ``SqliteSaver``
(https://docs.langchain.com/oss/python/langgraph/persistence); the approval graph (one approval task per call, ``Send``,
asking with ``interrupt()``, answered by interrupt id) and the scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

import threading

from _kit import APPROVE, Scripted, approval_graph, asking, call, fixture_tools, ledger, on_disk, step, thread, user
from langgraph.types import Command

from harness.column_side.probes.kit import Fault, counts, report, world

SCENARIO = "uncertain_then_second_transfer"
SHOWS = ("side_effects.t1", "side_effects.t2", "step_statuses.2", "step_statuses.4")
PINS = ("1.2.24", "0.6.11")

fixture = world(Fault("tool.timeout_after_effect", call_id="t1"))
t2_started, t1_done = threading.Event(), threading.Event()


def in_model_order(tool: str, call_id: str, args: dict):
    """ToolNode runs the batch in threads: t2's body goes after t1 has ended, the model's order (as the column pins it);
    t1 waits until t2 has started, so t1's error cannot cancel a t2 not yet running."""
    if call_id != "t1":
        t2_started.set()
        t1_done.wait(10)
        return fixture.call(tool, call_id, args)
    t2_started.wait(10)
    try:
        return fixture.call(tool, call_id, args)
    finally:
        t1_done.set()


model = Scripted(script=[[call("t1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}),
                          call("t2", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 100})], "done"])
app = on_disk(approval_graph(model, fixture_tools(in_model_order, "transfer_funds"), reviewed={"transfer_funds"}))
config = thread("sess-uncertain_then_second_transfer")

statuses = {0: step(app, user("Send 25.00 to ACC-2 and 1.00 to ACC-3 from ACC-1."), config)}  # driver step 0: both ask
statuses[1] = step(app, Command(resume={asking(app, config)["t1"]: APPROVE}), config)  # approve t1 (t2 still asks)
statuses[2] = step(app, Command(resume={asking(app, config)["t2"]: APPROVE}), config, errors=(TimeoutError,))  # the batch runs, t1 times out after its effect
# driver step 3, reconcile t1: LangGraph has no notion of an uncertain call (the column refuses it; nothing runs)
assert not asking(app, config)  # nothing asks about t2 now: only the plain resume value is left
before = counts()["t1"]["executor_entries"]
statuses[4] = step(app, Command(resume={"approve": True, "reason": "not approved"}), config, errors=(TimeoutError,))  # approve t2 again
print("t1 executor entries in driver step 4:", counts()["t1"]["executor_entries"] - before)

found = ledger()
report(SCENARIO, {"side_effects.t1": found["t1"], "side_effects.t2": found["t2"], "step_statuses.2": statuses[2], "step_statuses.4": statuses[4]})
