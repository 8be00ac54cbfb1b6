"""AgentScope decides permission per call: both calls of a turn ask (default mode), and once the note is confirmed
(as the driver answers a question the contract would not have asked) it is written at once while the email in the
same turn still asks, so the reply stays parked with an effect done before the human decided the turn; the human's
confirmation then sends the email.

Documented API only (https://docs.agentscope.io/v2/building-blocks/agent, .../tool, .../permission-system), through
``_kit.py``: ``Agent`` over its default ``AgentState``, a ``UserConfirmResultEvent`` confirming one asking
``ToolCallBlock`` at a time.
"""

from _kit import Driver, Scripted, effects, fixture_tools, pending, side_effects
from agentscope.message import UserMsg

from harness.column_side.probes.kit import report, world

SCENARIO = "high_risk_in_parallel_batch"
SHOWS = (
    "pre_approval_state.decisions.0.effects_before",
    "pre_approval_state.implicit_decisions",
    "pre_approval_state.pauses.0.non_read_only_effects",
    "pre_approval_state.pauses.0.pending",
    "pre_approval_state.undecided_at_end",
    "side_effects",
    "status",
    "step_statuses",
)
SCRIPT = [[("c1", "put_note", {"key": "followup", "text": "Call the customer back on Monday."}),
           ("c2", "send_email", {"to": "customer@example.org", "subject": "Follow-up", "body": "We will call on Monday."})],
          "Noted, and the customer is emailed."]

run = Driver(Scripted(SCRIPT), fixture_tools(world(), "put_note", "send_email"))
statuses = [run.step(UserMsg(name="user", content="Note the follow-up and email the customer."))]  # driver step 0: both ask, the note is confirmed
pause, before = {"pending": pending(run.asking()), "non_read_only_effects": effects()}, effects()
email = next(b for b in run.asking() if b.id == "c2")
statuses.append(run.step(run.confirmation(email), step=1))  # driver step 1: the human approves the email
report(SCENARIO, {
    "status": statuses[-1], "step_statuses": statuses,
    "side_effects": side_effects(),
    **{f"pre_approval_state.pauses.0.{k}": v for k, v in pause.items()},
    "pre_approval_state.decisions.0.effects_before": before,
    "pre_approval_state.implicit_decisions": run.implicit,
    "pre_approval_state.undecided_at_end": [c.id for c in run.asking()],
})
