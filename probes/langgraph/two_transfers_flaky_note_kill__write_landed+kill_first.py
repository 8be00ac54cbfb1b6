"""Where a tool's failure goes decides what a later resume runs again, and that moved between the pins. A turn reads a
balance, writes a note (which fails once before its effect) and asks for two transfers; both are approved, and the
process dies inside t2 after its effect, before any sibling of the batch has started. The resume runs the whole tools
task again: t2 moves money a second time, and the note fails.

- At 1.2.24 ``ToolNode`` re-raises the note's error: the resume ends in it with the tools task still to run, and the
  human's next approval of t2, which no interrupt asks about, is a plain ``Command(resume=...)`` that runs the tools
  task a third time: both transfers move money again and the note is written.
- At 0.6.11 ``ToolNode`` hands the model the note's error as a ``ToolMessage``: the resume completes on the model's
  answer, and the later approval finds nothing left to run.

Schedules ``write_landed`` and ``kill_first``: the approving run passes the documented ``durability="sync"`` (each
checkpoint is written before the next step starts), and the siblings of t2 wait until t2 has returned (``ToolNode``
runs a turn's calls in threads; the kill inside t2 comes first). Documented API only: ``invoke(None, config)``
(https://docs.langchain.com/oss/python/langgraph/persistence), durability modes
(https://docs.langchain.com/oss/python/langgraph/durable-execution), ``ToolNode`` with its default ``handle_tool_errors``
(https://reference.langchain.com/python/langgraph.prebuilt/tool_node/ToolNode); the approval graph (one approval task
per call, ``Send``, asking with ``interrupt()``, answered by interrupt id:
https://docs.langchain.com/oss/python/langgraph/interrupts, "Handling multiple interrupts"), ``SqliteSaver`` on a file
and the scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

import threading

from _kit import APPROVE, Scripted, approval_graph, asking, call, fixture_tools, ledger, on_disk, status, step, thread, user
from langgraph.types import Command

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "two_transfers_flaky_note_kill@write_landed+kill_first"
SHOWS = ("side_effects", "step_statuses")
PINS = ("1.2.24", "0.6.11")

fixture = world(Fault("tool.raise_before_effect", call_id="n1"), Fault("tool.kill_after_effect", call_id="t2"))
t2_returned = threading.Event()


def kill_first(tool: str, call_id: str, args: dict):
    """t2's siblings start once t2 has returned: in the killed process, never."""
    if call_id != "t2":
        t2_returned.wait(timeout=10)
        return fixture.call(tool, call_id, args)
    try:
        return fixture.call(tool, call_id, args)
    finally:
        t2_returned.set()


model = Scripted(script=[[call("b1", "get_balance", {"account": "ACC-1"}), call("n1", "put_note", {"key": "n", "text": "x"}),
                          call("t1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}),
                          call("t2", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 100})], "done"])
graph = approval_graph(model, fixture_tools(kill_first, "get_balance", "put_note", "transfer_funds"), reviewed={"transfer_funds"})
config = thread("sess-two_transfers_flaky_note_kill")


def approve(call_id: str, **options) -> str:
    """The approval keyed by the interrupt that asks about the call; with none pending at all, the plain resume value
    (with other interrupts pending and none about this call, nothing is sent). The thread's status after it."""
    app = on_disk(graph)
    asked = asking(app, config)
    if call_id in asked:
        return step(app, Command(resume={asked[call_id]: APPROVE}), config, errors=(Exception,), **options)
    if not asked:
        return step(app, Command(resume={"approve": True, "reason": "not approved"}), config, errors=(Exception,), **options)
    return status(app, config)


statuses = [step(on_disk(graph), user("Check ACC-1, note it, and send 25.00 to ACC-2 and 1.00 to ACC-3."), config)]  # step 0
statuses.append(approve("t1"))  # step 1
killed = in_child(lambda: approve("t2", durability="sync")) == FAULT_EXIT_CODE  # step 2: the batch runs, dies inside t2
statuses.append("crashed" if killed else status(on_disk(graph), config))
statuses.append(step(on_disk(graph), None, config, errors=(Exception,)))  # step 3: resume (1.2.24: the note's error ends it)
statuses.append(approve("t2"))  # step 4: approve t2 again
report(SCENARIO, {"side_effects": ledger(), "step_statuses": statuses})
