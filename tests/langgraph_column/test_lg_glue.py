"""Unit tests of the LangGraph column's contract glue, run on the column's own interpreter (LangGraph is not
importable from the project's environment)."""

from __future__ import annotations

from lg_env import python, run_in_column  # noqa: F401  (fixtures)


def _run(run_in_column, code: str, tmp: str) -> None:  # type: ignore[no-untyped-def]
    run_in_column(code, tmp, timeout=120)


def test_the_gate_refuses_misused_tokens_with_the_engines_reasons(run_in_column, tmp_path) -> None:
    _run(run_in_column, """
        from handwritten.approvals import ApprovalAuthority
        from handwritten.idempotency import SqliteIdempotencyStore
        from harness.approver import APPROVAL_SECRET, HumanApprover
        from adapters.langgraph import glue

        now = 1_800_000_000.0
        call = {"id": "c1", "name": "transfer_funds", "args": {"from_account": "A", "to_account": "B", "amount_cents": 5}}
        other = {**call, "id": "c2"}
        human = HumanApprover()
        store = SqliteIdempotencyStore(TMP + "/glue.sqlite")
        gate = glue.ContractGate("s", glue.validators(["transfer_funds"]), ApprovalAuthority(APPROVAL_SECRET, clock=lambda: now, new_token_id=lambda: "x"), store)
        for misuse in ("other_args", "other_session", "expired", "forged"):
            token = human.misuse(misuse, now, "s", "transfer_funds", call["args"])
            assert gate.decide({"action": "approve", "call_id": "c1", "token": token}, [call]) == misuse
        token = human.approve(now, "s", "transfer_funds", call["args"])
        assert gate.decide({"action": "approve", "call_id": "c9", "token": token}, [call]) == "not_pending"
        assert gate.decide({"action": "approve", "call_id": "c1", "token": token}, [call]) == (call, "approve")
        # LangGraph re-runs the node with the same answer after a crash: the same call keeps its approval
        assert gate.decide({"action": "approve", "call_id": "c1", "token": token}, [call]) == (call, "approve")
        assert gate.decide({"action": "approve", "call_id": "c2", "token": token}, [other]) == "reused"
        assert gate.decide({"action": "reject", "call_id": "c2", "reason": "no"}, [other]) == (other, "reject")
        assert not gate.asks_about({**call, "args": {**call["args"], "amount_cents": "5"}})
    """, str(tmp_path))


def test_the_guard_rejects_raw_arguments_and_denied_tools_without_entering_them(run_in_column, tmp_path) -> None:
    _run(run_in_column, """
        from pathlib import Path
        from types import SimpleNamespace
        from handwritten.idempotency import SqliteIdempotencyStore
        from harness.world import FixtureWorld
        from harness.ledger import ledger_counts
        from adapters.langgraph import glue
        from adapters.langgraph.trace import Trace

        world = FixtureWorld(Path(TMP), [], may_kill=False)
        store = SqliteIdempotencyStore(TMP + "/glue.sqlite")
        guard = glue.ToolGuard("s", glue.validators(["put_note", "drop_database"]), store, world, Trace(Path(TMP) / "t.jsonl", 0))
        entered = []
        def execute(request):
            entered.append(request.tool_call["id"])
            from langchain_core.messages import ToolMessage
            return ToolMessage('{"stored":true}', tool_call_id=request.tool_call["id"])
        def ask(call_id, name, args):
            return guard(SimpleNamespace(tool_call={"id": call_id, "name": name, "args": args}), execute)
        assert ask("c1", "put_note", {"key": "k", "text": "t", "priority": "2"}).artifact == {"status": "error"}
        assert ask("c2", "drop_database", {"name": "prod"}).artifact == {"status": "refused"}
        assert ask("c3", "nope", {}).artifact == {"status": "error"}
        assert entered == []
        first = ask("c4", "put_note", {"key": "k", "text": "t"})
        again = ask("c4", "put_note", {"key": "k", "text": "t"})
        assert entered == ["c4"] and again.artifact == {"status": "replayed"} and again.content == first.content
        assert ask("c4", "put_note", {"key": "k", "text": "other"}).artifact == {"status": "error"}  # same key, other args
        assert glue.first_delivery(store, "s", "e1") and not glue.first_delivery(store, "s", "e1")
        assert glue.position(store, "s", {"id": "c4", "name": "put_note"}) == "after_execute"
        assert glue.position(store, "s", {"id": "c5", "name": "put_note"}) == "before_execute"
        assert glue.recursion_limit(3) == 6
    """, str(tmp_path))
