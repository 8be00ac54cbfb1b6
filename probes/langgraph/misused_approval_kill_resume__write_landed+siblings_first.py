"""LangGraph resumes a batch killed inside one of its calls by running the whole tools task again, and goes on: the
approved transfer moves money a second time, the email runs, the model's next turn writes the note, and the run
completes before the human's next approval of the email arrives. That approval finds no interrupt and is a plain
``Command(resume=...)``: LangGraph runs nothing and says nothing (the contract stops at the resume for a reconcile of
the email and refuses the approval: the email is not pending).

Schedules ``write_landed`` and ``siblings_first``: the approving run passes the documented ``durability="sync"`` (each
checkpoint is written before the next step starts; under the default ``"async"`` that write races the kill), and the
email waits until the transfer of its batch has returned (``ToolNode`` runs a turn's calls in threads, so the kill
inside the email races its sibling). Documented API only: ``invoke(None, config)``
(https://docs.langchain.com/oss/python/langgraph/persistence), durability modes
(https://docs.langchain.com/oss/python/langgraph/durable-execution); the approval graph (one approval task per call,
``Send``, asking with ``interrupt()``, answered by interrupt id: https://docs.langchain.com/oss/python/langgraph/interrupts,
"Handling multiple interrupts"), ``SqliteSaver`` on a file and the scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

import threading

from _kit import APPROVE, Scripted, approval_graph, asking, call, fixture_tools, ledger, on_disk, status, thread, user
from langgraph.types import Command

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "misused_approval_kill_resume@write_landed+siblings_first"
SHOWS = ("pre_approval_state.decisions.3.effects_before", "side_effects.t1", "step_statuses.3", "step_statuses.4", "step_statuses.5")
PINS = ("1.2.24", "0.6.11")

fixture = world(Fault("tool.kill_before_effect", call_id="m1"))
transfer_returned = threading.Event()


def siblings_first(tool: str, call_id: str, args: dict):
    """The email's body starts once the transfer of its batch has returned."""
    if tool == "send_email":
        transfer_returned.wait(timeout=10)
    try:
        return fixture.call(tool, call_id, args)
    finally:
        if tool == "transfer_funds":
            transfer_returned.set()


model = Scripted(script=[[call("t1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}),
                          call("m1", "send_email", {"to": "a@b.c", "subject": "s", "body": "b"})],
                         [call("n1", "put_note", {"key": "n", "text": "x"})], "done"])
tools = fixture_tools(siblings_first, "transfer_funds", "send_email", "put_note")
graph = approval_graph(model, tools, reviewed={"transfer_funds", "send_email"})  # the graph author's choice: the high-risk tools
config = thread("sess-misused_approval_kill_resume")


def approve(call_id: str, **options) -> None:
    """The approval keyed by the interrupt that asks about the call; with other interrupts pending and none about this
    call there is no id to pair it with (nothing is sent); with none pending at all, the plain resume value."""
    asked = asking(on_disk(graph), config)
    if call_id in asked:
        on_disk(graph).invoke(Command(resume={asked[call_id]: APPROVE}), config, **options)
    elif not asked:
        on_disk(graph).invoke(Command(resume={"approve": True, "reason": "not approved"}), config, **options)


on_disk(graph).invoke(user("Send 25.00 from ACC-1 to ACC-2, email the receipt and note it."), config)  # step 0
approve("t1")  # step 1: an approval made for another session: LangGraph's answer carries no session, so a plain one
approve("t1")  # step 2: 1.2.24 lists only m1 as asking (nothing is sent); 0.6.11 still lists t1's answered interrupt and takes the answer again
killed = in_child(lambda: approve("m1", durability="sync")) == FAULT_EXIT_CODE  # step 3: the batch runs, dies inside m1
statuses = {3: "crashed" if killed else status(on_disk(graph), config)}
on_disk(graph).invoke(None, config)  # step 4: resume, the way LangGraph continues a thread
statuses[4] = status(on_disk(graph), config)
effects_before = {c: n["effects"] for c, n in counts().items()}  # the ledger when the human's next decision comes
entered_before = sum(n["executor_entries"] for n in counts().values())
approve("m1")  # step 5: approve the email again
statuses[5] = status(on_disk(graph), config)
print("executor entries in driver step 5:", sum(n["executor_entries"] for n in counts().values()) - entered_before)

report(SCENARIO, {"pre_approval_state.decisions.3.effects_before": effects_before, "side_effects.t1": ledger()["t1"],
                  **{f"step_statuses.{i}": s for i, s in statuses.items()}})
