"""AgentScope decides permission per call: both calls of the turn ask (default mode), and once the note is confirmed (as
the driver answers a question the contract would not have asked) it runs at once while the transfer still asks, so the
kill inside the note (before its effect) ends the first reply. The saved state is the one from before the note's
confirmation: the human's approval of the transfer runs it, the note asks again, is confirmed again and takes effect,
and the run completes; the resume and the same message delivered again each complete as well. The contract pauses the
whole turn for the transfer: nothing runs before the approval, so the kill never fires.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over the ``AgentState`` saved with ``model_dump_json`` when a reply returns, a
``UserConfirmResultEvent`` confirming one asking ``ToolCallBlock``, the scripted model (past its end: a closing text).
Each driver step runs in a fresh process (``in_child``).
"""

from _kit import Driver, Scripted, fixture_tools
from agentscope.message import UserMsg

from harness.column_side.probes.kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

SCENARIO = "kill_in_batch_after_approved"
SHOWS = ("side_effects.n1", "status", "step_statuses")
USER = "Send 25.00 from ACC-1 to ACC-2 and note it."
SCRIPT = [[("t1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}), ("n1", "put_note", {"key": "n", "text": "x"})],
          "done"]
fixture = world(Fault("tool.kill_before_effect", call_id="n1"))
STATUS = SCRATCH / "status"  # what a step's process leaves


def step(action: str) -> None:
    """One driver step in this process, over the state saved when the last reply returned: the step's input (the human
    approves the transfer, or the message, or None to resume), then the contract's answer to each other question."""
    run = Driver.saved(Scripted(SCRIPT), fixture_tools(fixture, "transfer_funds", "put_note"), SCENARIO)
    if action == "approve":
        STATUS.write_text(run.step(run.confirmation(next(b for b in run.asking() if b.id == "t1"))))
    else:
        STATUS.write_text(run.step(UserMsg(name="user", content=USER) if action in ("run", "deliver") else None))


statuses = []
for action in ("run", "approve", "resume", "deliver"):  # deliver: the same event delivered again
    STATUS.unlink(missing_ok=True)  # a step that fails leaves no status behind (reading it then fails the probe)
    statuses.append("crashed" if in_child(lambda action=action: step(action)) == FAULT_EXIT_CODE else STATUS.read_text())

n1 = counts()["n1"]
report(SCENARIO, {"side_effects.n1": {k: n1[k] for k in ("tool_entries", "executor_entries", "effects")},
                  "status": statuses[-1], "step_statuses": statuses})
