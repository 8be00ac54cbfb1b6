"""Unit tests of the AgentScope column's glue and model adapter, run on the column's own interpreter
(AgentScope is not importable from the project's environment)."""

from __future__ import annotations

import subprocess
import textwrap

from harness.columns import ROOT, known_columns
from harness.environments import ensure_environment

GLUE_CHECKS = textwrap.dedent(
    """
    import asyncio, json, sys, tempfile
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from agentscope.message import ToolCallBlock, ToolCallState
    from handwritten.approvals import ApprovalAuthority
    from handwritten.idempotency import RecordState, SqliteIdempotencyStore
    from handwritten.tools import ToolRegistry
    from harness.approver import APPROVAL_SECRET, CLOCK_START, HumanApprover
    from harness.world import FixtureWorld
    from adapters.agentscope.glue import Contract, ContractMiddleware, Executor, reconcile
    from adapters.glue_common import first_delivery, verify_approval
    from adapters.agentscope.model import to_neutral

    scratch = Path(tempfile.mkdtemp())
    world = FixtureWorld(scratch, [], may_kill=False)
    events = []
    contract = Contract("s1", ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds"])),
                        SqliteIdempotencyStore(str(scratch / "c.sqlite")), scratch / "intents.jsonl", events.append,
                        lambda call_id: None, max_steps=3)
    glue = ContractMiddleware(contract, lambda state: None)

    # schema then policy, on the RAW arguments, as AgentScope's permission decision
    def decide(call_id, name, args, state=ToolCallState.PENDING):
        call = ToolCallBlock(id=call_id, name=name, input=json.dumps(args), state=state)
        async def never(**kwargs):
            raise AssertionError("the glue decides; AgentScope's own per-tool decision is not consulted")
        return str(asyncio.run(glue.on_check_permission(None, {"tool_call": call}, never)).behavior.value)

    transfer = {"from_account": "A", "to_account": "B", "amount_cents": 5}
    assert decide("a", "put_note", {"key": "k", "text": "t", "priority": "2"}) == "deny"  # "2" is not an integer
    assert decide("b", "drop_database", {"name": "prod"}) == "deny"
    assert decide("c", "transfer_funds", transfer) == "ask"
    assert decide("c", "transfer_funds", transfer, ToolCallState.ALLOWED) == "allow"
    assert decide("d", "put_note", {"key": "k", "text": "t"}) == "allow"
    assert [e["call_id"] for e in events if e["kind"] == "schema_rejected"] == ["a"]

    # at most one execution per key; a timeout after entry is uncertain until reconciled
    runs = []
    executor = Executor(contract)
    body = lambda: runs.append(1) or {"ok": True}
    assert executor.run("put_note", "d", {"key": "k", "text": "t"}, body) == {"ok": True}
    assert executor.run("put_note", "d", {"key": "k", "text": "t"}, body) == {"ok": True}
    assert len(runs) == 1 and contract.statuses.pop("d") == "replayed"
    def timeout():
        raise TimeoutError("late")
    executor.run("transfer_funds", "c", transfer, timeout)
    assert contract.statuses.pop("c") == "uncertain"
    assert contract.idempotency.get("s1/c").state is RecordState.UNCERTAIN
    reconcile(contract, "c", "confirmed")
    assert executor.run("transfer_funds", "c", transfer, body) == {"reconciled": "confirmed"} and len(runs) == 1
    assert contract.statuses.pop("c") == "reconciled"

    # tokens: the engine's reasons, single use
    human = HumanApprover()
    call = {"tool": "transfer_funds", "args": transfer}
    authority = ApprovalAuthority(APPROVAL_SECRET, clock=lambda: CLOCK_START, new_token_id=lambda: "unused")
    other = human.misuse("other_args", CLOCK_START, "s1", "transfer_funds", transfer)
    good = human.approve(CLOCK_START, "s1", "transfer_funds", transfer)
    assert verify_approval(contract, authority, call, other) == "other_args"
    assert verify_approval(contract, authority, call, good) is None
    assert verify_approval(contract, authority, call, good) == "reused"

    # an inbound event id is applied once
    assert first_delivery(contract, "e1") and not first_delivery(contract, "e1")

    # the model sees neutral chat dicts; the injected wall-clock time is masked for stable evidence
    hint = {"role": "user", "content": [{"type": "text", "text": "<current-time>2031-02-03T04:05:06</current-time>"}]}
    assert to_neutral(hint) == {"role": "user", "content": "<current-time>(wall clock)</current-time>"}
    calls = [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]
    assert to_neutral({"role": "assistant", "name": "x", "content": None, "tool_calls": calls}) == {"role": "assistant", "content": None, "tool_calls": calls}
    print("ok")
    """
)


def test_glue_validates_applies_policy_keeps_records_verifies_tokens_and_deduplicates_events() -> None:
    env = ensure_environment(known_columns()["agentscope"].adapter_dir, log=lambda _: None)
    done = subprocess.run([str(env.python), "-I", "-c", GLUE_CHECKS, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr
