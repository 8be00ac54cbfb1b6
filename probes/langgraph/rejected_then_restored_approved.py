"""LangGraph keeps a rejection as the answered task's pending write on the checkpoint that asked: after time travel to
the paused checkpoint (saved before the rejection), the approval of t1 never reaches the approval task, whose write
(the rejection) is applied again, so t1 is answered with the same rejection and the transfer never runs. The contract
keeps no rejection under the call's key: its restored pause waits again and the approval runs t1.

Documented API only: a run from a checkpoint id (https://docs.langchain.com/oss/python/langgraph/use-time-travel),
``InMemorySaver``; the approval graph (one approval task per call, ``Send``, asking with ``interrupt()``, answered by
interrupt id: https://docs.langchain.com/oss/python/langgraph/interrupts, "Handling multiple interrupts"), the tools
(``list_orders`` taking ``runtime: ToolRuntime[Context]``, reading ``get_runtime()`` before LangGraph 1.0) and the
scripted model are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import APPROVE, Scripted, SessionUser, approval_graph, asking, call, fixture_tools, ledger, results, thread, user
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.column_side.probes.kit import report, world

SCENARIO = "rejected_then_restored_approved"
SHOWS = ("idempotent_replay.t1.effects", "idempotent_replay.t1.equal", "idempotent_replay.t1.results", "side_effects")
PINS = ("1.2.24", "0.6.11")

PROMPT = "Show my orders and Carol's, then send 25.00 from ACC-1 to ACC-2."
model = Scripted(script=[
    [call("o1", "list_orders", {"username": "bob"}), call("o2", "list_orders", {"username": "bob"}), call("o3", "list_orders", {"username": "carol"})],
    [call("t1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})],
    "done",
])
tools = fixture_tools(world().call, "list_orders", "transfer_funds")
app = approval_graph(model, tools, reviewed={"transfer_funds"}, context_schema=SessionUser).compile(checkpointer=InMemorySaver())
config, bob = thread("sess-rejected_then_restored_approved"), SessionUser(user="bob")


def decide(config: dict, answer: dict) -> list[str]:
    """Answer t1's interrupt by its id; the results t1 holds afterwards."""
    return results(app.invoke(Command(resume={asking(app, config)["t1"]: answer}), config, context=bob)["messages"], "t1")


app.invoke(user(PROMPT), config, context=bob)  # driver step 0: the orders, then t1 asks
paused = app.get_state(config).config  # step 1, snapshot: the paused checkpoint
answers = decide(config, {"approve": False, "reason": "not approved"})  # step 2: reject t1
app.invoke(user(PROMPT), config, context=bob)  # step 3: the same event again, a new turn
answers += decide(paused, APPROVE)  # steps 4-5: restore the snapshot, approve t1

found = ledger()
report(SCENARIO, {"side_effects": found, "idempotent_replay.t1.effects": found.get("t1", {}).get("effects", 0),
                  "idempotent_replay.t1.results": answers, "idempotent_replay.t1.equal": len(set(answers)) == 1})
