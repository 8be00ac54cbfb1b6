"""Unit tests of the LangChain column's contract glue (``adapters/langchain/glue.py``), on the column's interpreter."""

from __future__ import annotations

import lc_env

python, run_in_column = lc_env.python, lc_env.run_in_column  # the column's interpreter (pytest fixtures)

GLUE = """
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from adapters.glue_blocks import Contract
from adapters.langchain.calls import unanswered
from adapters.langchain.glue import ContractMiddleware, stopped_by_bound
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.tools import ToolRegistry
from harness.column_side.world import FixtureWorld

world = FixtureWorld(TMP, [], may_kill=False)
events = []
contract = Contract("s1", ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds", "get_weather"])),
                    SqliteIdempotencyStore(str(TMP / "c.sqlite")), TMP / "intents.jsonl", events.append, lambda call_id: None,
                    world.handover, max_steps=2)
glue = ContractMiddleware(contract)
"""


def test_schema_then_policy_answer_rejected_calls_before_any_pause(run_in_column, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = run_in_column(GLUE + """
calls = [
    {"id": "a", "name": "put_note", "args": {"key": "k", "text": "t", "priority": "2"}},
    {"id": "b", "name": "drop_database", "args": {"name": "prod"}},
    {"id": "c", "name": "transfer_funds", "args": {"from_account": "A", "to_account": "B", "amount_cents": 5}},
]
update = glue.after_model({"messages": [AIMessage(content="", tool_calls=calls)]}, None)
messages = [AIMessage(content="", tool_calls=calls), *update["messages"]]
print(json.dumps({
    "answered": {m.tool_call_id: m.artifact["status"] for m in update["messages"]},
    "open": [c["id"] for c in unanswered(messages)],
    "admitted": [e["call_id"] for e in events if e["kind"] == "call_admitted"],
}))
""", tmp_path)
    assert out == {"answered": {"a": "error", "b": "refused"}, "open": ["c"], "admitted": ["b", "c"]}


def test_the_step_bound_counts_model_turns_since_the_last_user_message(run_in_column, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = run_in_column(GLUE + """
def turn(call_id):
    return [AIMessage(content="", tool_calls=[{"id": call_id, "name": "get_weather", "args": {"city": "Paris"}}]),
            ToolMessage(content="{}", tool_call_id=call_id)]

one = [HumanMessage(content="hi"), *turn("c1")]
two = one + turn("c2")  # as a resume finds the conversation: the count is the saved one, not this run's
again = two + [AIMessage(content="done"), HumanMessage(content="more")]
stop = glue.before_model({"messages": two}, None)
print(json.dumps({
    "one": glue.before_model({"messages": one}, None),
    "two": stop["jump_to"],
    "closing": stopped_by_bound(stop["messages"][0]),
    "new_input": glue.before_model({"messages": again}, None),
    "model_answer": stopped_by_bound(AIMessage(content="done")),
}))
""", tmp_path)
    assert out == {"one": None, "two": "end", "closing": True, "new_input": None, "model_answer": False}
