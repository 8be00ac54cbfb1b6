"""``create_agent`` resumes a batch killed inside the email by running the email's task again and goes on: the model's
next turn writes the note and the run completes, so by the time the human approves the email again the note has taken
effect and no interrupt is left. That approval, and the reused one after it, go in as ``Command(resume=...)`` on a
finished thread: LangGraph runs nothing and says nothing. The contract stops at the resume for a reconcile of the
email, writes no note, and refuses both decisions (the email is not pending).

Schedules ``write_landed`` and ``kill_first``: the approving run passes the documented ``durability="sync"`` (each
checkpoint is written before the next step starts; under the default ``"async"`` that write races the kill), and the
transfer's body waits until the email of its batch has returned (``create_agent`` runs a turn's calls as parallel
tasks, so the kill inside the email races its sibling): in the killed process the transfer never starts.

Documented API only: under https://docs.langchain.com/oss/python/ the pages langchain/human-in-the-loop (one decision
per action request, in their order) and langgraph/durable-execution (a resume is ``invoke(None)``); the durability modes:
https://reference.langchain.com/python/langgraph/types/Durability; the agent with ``HumanInTheLoopMiddleware`` over a
``SqliteSaver``, the ``@tool`` functions and the scripted chat model are the kit's (``probes/langchain/_kit.py``).
"""

import threading

from _kit import APPROVE, Scripted, agent, call, decide, fixture_tools, ledger, on_disk, status, thread, user

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "misused_approval_kill_resume@write_landed+kill_first"
SHOWS = ("pre_approval_state.decisions.3.effects_before", "side_effects.n1", "step_statuses.3", "step_statuses.4", "step_statuses.5", "step_statuses.6")

fixture = world(Fault(point="tool.kill_before_effect", call_id="m1"))  # the process dies inside the email's executor
email_returned = threading.Event()


def kill_first(tool: str, call_id: str, args: dict):
    """The transfer's body starts once the email of its batch has returned."""
    if tool == "transfer_funds":
        email_returned.wait(timeout=10)
    try:
        return fixture.call(tool, call_id, args)
    finally:
        if tool == "send_email":
            email_returned.set()


model = Scripted(script=[[call("t1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}),
                          call("m1", "send_email", {"to": "a@b.c", "subject": "s", "body": "b"})],
                         [call("n1", "put_note", {"key": "n", "text": "x"})], "done"])
tools = fixture_tools(kill_first, "transfer_funds", "send_email", "put_note")
REVIEWED = {"transfer_funds", "send_email"}  # the high-risk tools
config = thread("sess-misused_approval_kill_resume")


def app():
    """The agent over the checkpoint file, with a connection of this process's own."""
    return agent(model, tools, reviewed=REVIEWED, checkpointer=on_disk())


held: dict[str, dict] = {}  # the reviewer's decisions of the turn, sent once every action request has one


def approve(call_id: str, **options) -> None:
    state = app().get_state(config)  # the interrupt's action requests are the turn's reviewed calls, in the model's order
    asked = [c["id"] for c in state.values["messages"][-1].tool_calls if c["name"] in REVIEWED] if state.interrupts else []
    if call_id in asked:
        held[call_id] = APPROVE
        if set(held) == set(asked):
            app().invoke(decide(*(held.pop(c) for c in asked)), config, **options)
    else:  # nothing asks about the call: the decision goes in as given
        app().invoke(decide(APPROVE), config, **options)


app().invoke(user("Send 25.00 from ACC-1 to ACC-2, email the receipt and note it."), config)
approve("t1")  # step 1: an approval made for another session: a HITL decision carries no session, so a plain approve
approve("t1")  # step 2: the reviewer's decision on t1 again (the turn's decisions are still incomplete)
killed = in_child(lambda: approve("m1", durability="sync")) == FAULT_EXIT_CODE  # step 3: the turn is decided, the batch runs
held.clear()  # the killed child sent the turn's decisions
statuses = {3: "crashed" if killed else status(app(), config)}
app().invoke(None, config)  # step 4: the driver's resume
statuses[4] = status(app(), config)
effects_before = {c: n["effects"] for c, n in counts().items()}  # the ledger when the human's next decision comes
entered_before = sum(n["executor_entries"] for n in counts().values())
approve("m1")  # step 5: approve the email again
statuses[5] = status(app(), config)
approve("m1")  # step 6: the email's approval used before, handed over again (a HITL decision carries no single use)
statuses[6] = status(app(), config)
print("executor entries in driver steps 5-6:", sum(n["executor_entries"] for n in counts().values()) - entered_before)

report(SCENARIO, {"pre_approval_state.decisions.3.effects_before": effects_before, "side_effects.n1": ledger()["n1"],
                  **{f"step_statuses.{i}": s for i, s in statuses.items()}})
