"""Unit tests of the LangChain column's glue, run on the column's own interpreter (LangChain is not
importable from the project's environment)."""

from __future__ import annotations

import subprocess
import textwrap

from harness.columns import ROOT, known_columns
from harness.environments import ensure_environment

GLUE_CHECKS = textwrap.dedent(
    """
    import sys, tempfile
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from langchain_core.messages import AIMessage, ToolMessage
    from handwritten.approvals import ApprovalAuthority
    from handwritten.canonical import args_hash
    from handwritten.idempotency import SqliteIdempotencyStore
    from handwritten.tools import ToolRegistry
    from harness.approver import APPROVAL_SECRET, CLOCK_START, HumanApprover
    from harness.world import FixtureWorld
    from adapters.glue_common import first_delivery, verify_approval
    from adapters.langchain.glue import Contract, ContractMiddleware, unanswered

    scratch = Path(tempfile.mkdtemp())
    world = FixtureWorld(scratch, [], may_kill=False)
    events = []
    contract = Contract("s1", ToolRegistry(world.tool_specs(["put_note", "drop_database", "transfer_funds"])),
                        SqliteIdempotencyStore(str(scratch / "c.sqlite")), scratch / "intents.jsonl", events.append, lambda call_id: None, world.handover)
    glue = ContractMiddleware(contract)

    # schema then policy, on the raw arguments, before any tool: answers are ToolMessages
    calls = [
        {"id": "a", "name": "put_note", "args": {"key": "k", "text": "t", "priority": "2"}},
        {"id": "b", "name": "drop_database", "args": {"name": "prod"}},
        {"id": "c", "name": "transfer_funds", "args": {"from_account": "A", "to_account": "B", "amount_cents": 5}},
    ]
    update = glue.after_model({"messages": [AIMessage(content="", tool_calls=calls)]}, None)
    answered = {m.tool_call_id: m.artifact["status"] for m in update["messages"]}
    assert answered == {"a": "error", "b": "refused"}, answered
    messages = [AIMessage(content="", tool_calls=calls), *update["messages"]]
    assert [c["id"] for c in unanswered(messages)] == ["c"]
    assert [e["call_id"] for e in events if e["kind"] == "call_admitted"] == ["b", "c"]

    # tokens: the engine's reasons, single use
    human = HumanApprover()
    call = {"tool": "transfer_funds", "args": calls[2]["args"]}
    authority = ApprovalAuthority(APPROVAL_SECRET, clock=lambda: CLOCK_START, new_token_id=lambda: "unused")
    other = human.misuse("other_args", CLOCK_START, "s1", "transfer_funds", call["args"])
    good = human.approve(CLOCK_START, "s1", "transfer_funds", call["args"])
    assert verify_approval(contract, authority, call, other) == "other_args"
    assert verify_approval(contract, authority, call, good) is None
    assert verify_approval(contract, authority, call, good) == "reused"

    # an inbound event id is applied once
    assert first_delivery(contract, "e1") and not first_delivery(contract, "e1")
    print("ok")
    """
)


def test_glue_validates_applies_policy_verifies_tokens_and_deduplicates_events() -> None:
    env = ensure_environment(known_columns()["langchain"].adapter_dir, log=lambda _: None)
    done = subprocess.run([str(env.python), "-I", "-c", GLUE_CHECKS, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr
