"""Unit tests of the AgentScope column's glue and model adapter, run on the column's own interpreter
(AgentScope is not importable from the project's environment)."""

from __future__ import annotations

from as_env import column_python_fixture, run_in_column_fixture  # noqa: F401  (fixtures)

GLUE_CHECKS = """
    import asyncio, contextlib, json
    from pathlib import Path
    from agentscope.message import ToolCallBlock, ToolCallState
    from adapters.glue_blocks import Contract
    from adapters.agentscope.glue import ContractMiddleware, Executor
    from adapters.agentscope.model import to_neutral
    from handwritten.idempotency import SqliteIdempotencyStore
    from handwritten.tools import ToolRegistry
    from harness.column_side.world import FixtureWorld

    scratch = Path(TMP)
    world = FixtureWorld(scratch, [], may_kill=False)
    events = []
    contract = Contract("s1", ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds"])),
                        SqliteIdempotencyStore(str(scratch / "c.sqlite")), scratch / "intents.jsonl", events.append,
                        lambda call_id: None, lambda call_id: contextlib.nullcontext(), max_steps=3)

    class Bodies:  # a world whose tool bodies are the test's: bodies[call_id] runs for that call

        def __init__(self):
            self.bodies = {}

        def call(self, tool, call_id, args):
            return self.bodies[call_id]()

    bodies = Bodies()
    executor = Executor(contract, bodies)
    glue = ContractMiddleware(contract, executor, lambda state: None)
    out = {}

    # schema then policy, on the RAW arguments, as AgentScope's own permission decision
    def decide(call_id, name, args, state=ToolCallState.PENDING):
        call = ToolCallBlock(id=call_id, name=name, input=json.dumps(args), state=state)
        async def never(**kwargs):
            raise AssertionError("the glue decides; AgentScope's own per-tool decision is not consulted")
        return str(asyncio.run(glue.on_check_permission(None, {"tool_call": call}, never)).behavior.value)

    transfer = {"from_account": "A", "to_account": "B", "amount_cents": 5}
    out["decisions"] = [
        decide("a", "put_note", {"key": "k", "text": "t", "priority": "2"}),  # "2" is not an integer
        decide("b", "drop_database", {"name": "prod"}),
        decide("c", "transfer_funds", transfer),
        decide("c", "transfer_funds", transfer, ToolCallState.ALLOWED),  # the human confirmed it
        decide("d", "put_note", {"key": "k", "text": "t"}),
    ]
    out["schema_rejected"] = [e["call_id"] for e in events if e["kind"] == "schema_rejected"]

    # at most one execution per key; a timeout after entry is uncertain until the reconcile step settles it
    runs = []
    def timeout():
        raise TimeoutError("late")
    bodies.bodies = {"d": lambda: runs.append(1) or {"ok": True}, "c": timeout}
    note = {"key": "k", "text": "t"}
    out["first"] = [executor.call("put_note", "d", note), type(executor.results.pop("d")).__name__]
    out["again"] = [executor.call("put_note", "d", note), type(executor.results.pop("d")).__name__]
    out["timeout"] = [executor.call("transfer_funds", "c", transfer), type(executor.results.pop("c")).__name__]
    out["record"] = contract.idempotency.get("s1/c").state.value
    bodies.bodies["c"] = lambda: runs.append(1) or {"ok": True}
    executor.settlements["c"] = "confirmed"
    out["settled"] = [executor.call("transfer_funds", "c", transfer), type(executor.results.pop("c")).__name__]
    out["runs"] = len(runs)

    # the model sees neutral chat dicts; the injected wall-clock time is masked for stable evidence
    hint = {"role": "user", "content": [{"type": "text", "text": "<current-time>2031-02-03T04:05:06</current-time>"}]}
    calls = [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]
    out["neutral"] = [to_neutral(hint), to_neutral({"role": "assistant", "name": "x", "content": None, "tool_calls": calls})]
    print(json.dumps(out))
"""


def test_glue_validates_applies_policy_runs_once_and_settles_an_uncertain_call(run_in_column, tmp_path) -> None:
    out = run_in_column(GLUE_CHECKS, str(tmp_path))
    assert out["decisions"] == ["deny", "deny", "ask", "allow", "allow"]
    assert out["schema_rejected"] == ["a"]
    assert out["first"] == [{"ok": True}, "Ok"]
    assert out["again"] == [{"ok": True}, "Replay"]
    assert out["timeout"] == [{"error": "outcome unknown: reconcile required"}, "Uncertain"]
    assert out["record"] == "uncertain"
    assert out["settled"] == [{"reconciled": "confirmed"}, "Reconciled"]
    assert out["runs"] == 1  # neither the replay nor the confirmed reconcile ran the body again
    calls = [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]
    assert out["neutral"] == [
        {"role": "user", "content": "<current-time>(wall clock)</current-time>"},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
