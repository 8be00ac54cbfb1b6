"""Unit tests of the OpenAI Agents SDK column's glue and scripted model, run on the column's own
interpreter (the SDK is not importable from the project's environment)."""

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
    from handwritten.approvals import ApprovalAuthority
    from handwritten.idempotency import SqliteIdempotencyStore
    from handwritten.tools import ToolRegistry
    from harness.approver import APPROVAL_SECRET, CLOCK_START, HumanApprover
    from harness.world import FixtureWorld
    from adapters.glue_common import first_delivery, verify_approval
    from adapters.openai_agents.glue import Contract, ReconcileRequired
    from adapters.openai_agents.model import to_neutral
    from adapters.openai_agents.tools import fixture_tools

    scratch = Path(tempfile.mkdtemp())
    world = FixtureWorld(scratch, [], may_kill=False)
    events = []
    contract = Contract("s1", ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds"])),
                        SqliteIdempotencyStore(str(scratch / "c.sqlite")), scratch / "intents.jsonl", events.append, lambda call_id: None,
                        world.starting, world.finished)

    class Ctx:  # what the SDK hands a tool invocation: its call id
        def __init__(self, call_id): self.tool_call_id = call_id

    async def checks():
        # schema then policy, on the raw arguments, before the SDK pauses or the tool runs
        assert not await contract.needs_approval("put_note")(None, {"key": "k", "text": "t", "priority": "2"}, "a")
        assert await contract.needs_approval("transfer_funds")(None, {"from_account": "A", "to_account": "B", "amount_cents": 5}, "c")
        ran = []
        async def invoke(ctx, raw):
            ran.append(ctx.tool_call_id)
            return json.dumps({"ok": ctx.tool_call_id})
        tools = {t.name: t for t in fixture_tools(world, ["put_note", "drop_database"], contract.needs_approval, failure_error_function=None)}
        for t in tools.values():
            t.on_invoke_tool = invoke
            contract.guard(t)
        await tools["put_note"].on_invoke_tool(Ctx("a"), json.dumps({"key": "k", "text": "t", "priority": "2"}))
        await tools["drop_database"].on_invoke_tool(Ctx("b"), json.dumps({"name": "prod"}))
        assert ran == [] and contract.status_of("a") == "error" and contract.status_of("b") == "refused"
        # one execution per <session>/<call id>: a second delivery replays the stored result
        first = await tools["put_note"].on_invoke_tool(Ctx("d"), json.dumps({"key": "k", "text": "t"}))
        again = await tools["put_note"].on_invoke_tool(Ctx("d"), json.dumps({"key": "k", "text": "t"}))
        assert ran == ["d"] and json.loads(first) == json.loads(again) and contract.status_of("d") == "replayed"
        # a timeout after entry stops the run until a reconcile settles it
        async def times_out(ctx, raw):
            raise TimeoutError("after effect")
        tools["put_note"].on_invoke_tool = times_out
        contract.guard(tools["put_note"])
        try:
            await tools["put_note"].on_invoke_tool(Ctx("e"), json.dumps({"key": "k", "text": "t"}))
            raise AssertionError("no reconcile")
        except ReconcileRequired:
            pass
        contract.settle = ("e", "confirmed")
        settled = await tools["put_note"].on_invoke_tool(Ctx("e"), json.dumps({"key": "k", "text": "t"}))
        assert json.loads(settled) == {"reconciled": "confirmed"} and contract.status_of("e") == "reconciled"

    asyncio.run(checks())

    # tokens: the engine's reasons, single use
    human = HumanApprover()
    call = {"tool": "transfer_funds", "args": {"from_account": "A", "to_account": "B", "amount_cents": 5}}
    authority = ApprovalAuthority(APPROVAL_SECRET, clock=lambda: CLOCK_START, new_token_id=lambda: "unused")
    other = human.misuse("other_args", CLOCK_START, "s1", "transfer_funds", call["args"])
    good = human.approve(CLOCK_START, "s1", "transfer_funds", call["args"])
    assert verify_approval(contract, authority, call, other) == "other_args"
    assert verify_approval(contract, authority, call, good) is None
    assert verify_approval(contract, authority, call, good) == "reused"

    # an inbound event id is applied once
    assert first_delivery(contract, "e1") and not first_delivery(contract, "e1")

    # the scripted model sees one assistant message per turn of function calls, and their outputs as tool messages
    neutral = to_neutral([
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "x", "name": "put_note", "arguments": "{}"},
        {"type": "function_call", "call_id": "y", "name": "put_note", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "x", "output": "1"},
        {"type": "function_call_output", "call_id": "y", "output": "2"},
    ])
    assert [m["role"] for m in neutral] == ["user", "assistant", "tool", "tool"], neutral
    assert [c["id"] for c in neutral[1]["tool_calls"]] == ["x", "y"]
    print("ok")
    """
)


def test_glue_validates_applies_policy_deduplicates_and_reconciles() -> None:
    env = ensure_environment(known_columns()["openai_agents"].adapter_dir, log=lambda _: None)
    done = subprocess.run([str(env.python), "-I", "-c", GLUE_CHECKS, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr
