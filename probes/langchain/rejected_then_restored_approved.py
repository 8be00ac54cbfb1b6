"""``HumanInTheLoopMiddleware``'s rejection stays with the checkpoint that asked: after time travel to the paused
checkpoint (saved before the rejection), the approval of t1 never reaches the middleware, whose saved answer (the
rejection) is applied again, so t1 is answered with the same rejection and the transfer never runs. The contract keeps
no rejection under the call's key: its restored pause waits again and the approval runs t1.

Documented API only: ``create_agent`` with ``HumanInTheLoopMiddleware`` and ``Command(resume={"decisions": [...]})``
(https://docs.langchain.com/oss/python/langchain/human-in-the-loop), ``get_state`` and a run from a prior
``checkpoint_id`` (https://docs.langchain.com/oss/python/langgraph/use-time-travel), ``context_schema`` and a tool
taking ``runtime: ToolRuntime[Context]`` (https://docs.langchain.com/oss/python/langchain/runtime); the agent, the tools and
the scripted chat model are the kit's (``probes/langchain/_kit.py``).
"""

from _kit import APPROVE, Scripted, SessionUser, agent, call, decide, fixture_tools, ledger, results, thread, user
from langgraph.checkpoint.memory import InMemorySaver

from harness.column_side.probes.kit import report, world

SCENARIO = "rejected_then_restored_approved"
SHOWS = ("idempotent_replay.t1.effects", "idempotent_replay.t1.equal", "idempotent_replay.t1.results", "side_effects")

PROMPT = "Show my orders and Carol's, then send 25.00 from ACC-1 to ACC-2."
model = Scripted(script=[
    [call("o1", "list_orders", {"username": "bob"}), call("o2", "list_orders", {"username": "bob"}), call("o3", "list_orders", {"username": "carol"})],
    [call("t1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})],
    "done",
])
app = agent(model, fixture_tools(world().call, "list_orders", "transfer_funds"), reviewed=("transfer_funds",), context_schema=SessionUser,
            checkpointer=InMemorySaver())
config, bob = thread("sess-rejected_then_restored_approved"), SessionUser(user="bob")


def answer(config: dict, decision: dict) -> list[str]:
    """The turn's one decision (t1 is its only reviewed call); the results t1 holds afterwards."""
    return results(app.invoke(decide(decision), config, context=bob)["messages"], "t1")


app.invoke(user(PROMPT), config, context=bob)  # driver step 0: the orders, then t1 asks
paused = app.get_state(config).config  # step 1, snapshot: the paused checkpoint
answers = answer(config, {"type": "reject", "message": "not approved"})  # step 2: reject t1
app.invoke(user(PROMPT), config, context=bob)  # step 3: the same event again, a new turn
answers += answer(paused, APPROVE)  # steps 4-5: restore the snapshot, approve t1

found = ledger()
report(SCENARIO, {"side_effects": found, "idempotent_replay.t1.effects": found.get("t1", {}).get("effects", 0),
                  "idempotent_replay.t1.results": answers, "idempotent_replay.t1.equal": len(set(answers)) == 1})
