"""LangGraph answers an interrupt by its id (``Command(resume={interrupt_id: value})``): an approval keyed by the
interrupt of the other pending transfer (c2's id, handed over as the decision for c1) answers c2, not c1, so c1
still asks and nothing runs. LangGraph refuses neither that nor the rejection of c2 that follows; the contract
refuses the first (an approval made for another call) outright.

What the thread lists as still asking after c2's interrupt was answered (``get_state().interrupts``, each pause's
``pending``) is where the pins differ: LangGraph 1.2.24 lists c1 alone, so the rejection of c2 finds no question of
c2's and is not sent; 0.6.11 still lists c2's answered interrupt beside c1's, so the rejection is sent to it, and
nothing changes (c2 is listed still). How LangGraph ids the interrupts of one node is measured too (one id per task at
0.6.11, one per interrupt at 1.2.24): the approval graph asks once per task, so its answers do not depend on it.

Documented API only: one approval task per call (``Send``) that asks with ``interrupt()``, answered by interrupt id
(https://docs.langchain.com/oss/python/langgraph/interrupts, "Handling multiple interrupts"), ``InMemorySaver`` and
``get_state`` (https://docs.langchain.com/oss/python/langgraph/persistence); the approval graph, the tools and the
scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import APPROVE, Scripted, approval_graph, asking, call, fixture_tools, interrupt_ids, ledger, status, thread, user
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.column_side.probes.kit import report, world

SCENARIO = "approval_misuse_other_call"
SHOWS = ("pre_approval_state.pauses.0.pending", "pre_approval_state.pauses.1.pending", "pre_approval_state.pauses.2.pending",
         "refusals", "side_effects", "step_statuses", "constants.interrupt_ids")
PINS = ("1.2.24", "0.6.11")

model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}),
                          call("c2", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-3", "amount_cents": 9900})], "Done."])
app = approval_graph(model, fixture_tools(world().call, "transfer_funds"), reviewed={"transfer_funds"}).compile(checkpointer=InMemorySaver())
config, statuses, refusals, pending = thread("sess-approval_misuse_other_call"), [], [], []


def step(payload: object | None) -> None:
    """One driver step (``None``: nothing to send); what LangGraph raised is its refusal."""
    if payload is not None:
        try:
            app.invoke(payload, config)
        except Exception as error:  # the only way LangGraph could say no
            refusals.append(repr(error))
    statuses.append(status(app, config))
    if statuses[-1] == "awaiting_approval":  # a pause: the calls its interrupts ask about, by call id
        pending.append(sorted(({"args": i.value["args"], "call_id": i.value["call_id"], "tool": i.value["tool"]}
                               for i in app.get_state(config).interrupts), key=lambda c: c["call_id"]))


step(user("Send 25.00 from ACC-1 to ACC-2 and 99.00 from ACC-1 to ACC-3."))
step(Command(resume={asking(app, config)["c2"]: APPROVE}))  # the decision for c1, keyed by c2's interrupt
asked = asking(app, config)
step(Command(resume={asked["c2"]: {"approve": False, "reason": "not this one"}}) if "c2" in asked else None)
report(SCENARIO, {"side_effects": ledger(), "step_statuses": statuses, "refusals": refusals,
                  **{f"pre_approval_state.pauses.{n}.pending": calls for n, calls in enumerate(pending)},
                  "constants.interrupt_ids": interrupt_ids()})  # how LangGraph ids a node's interrupts, on a node that asks twice
