"""What a misused approval names, for a framework to build its own approval object from.

The driver misuses an approval in one way (``harness.column_side.approver.MISUSES``); a framework whose approval object
carries the binding that misuse breaks (``FrameworkColumn.approval_fields``) gets the decision with the misuse, and
builds the object the way a confused or careless caller would: the object made for another call (``other_call``: a
call pending beside it; ``reused``: the call approved before), or for this call with the arguments edited
(``other_args``). This module says which call and which arguments that object names; each session puts them into
its framework's object (an approval item, a confirmation, a resume value, a results mapping).
"""

from __future__ import annotations

from harness.column_side.approver import edited_args, parsed_args
from harness.column_side.protocol import Decision, PendingCall
from harness.scenarios import Scenario


def named_call(scenario: Scenario, decision: Decision, pending: PendingCall | None = None) -> PendingCall:
    """The call (id, tool, arguments) the decision's approval object names. Without a misuse: the pending call itself
    (``pending``, else the scripted call)."""
    own = pending or _scripted(scenario, decision.call_id)
    if decision.misuse in ("other_call", "reused") and decision.made_for is not None:
        return _scripted(scenario, decision.made_for)
    if decision.misuse == "other_args":
        return PendingCall(own.call_id, own.tool, edited_args(own.args))
    return own


def _scripted(scenario: Scenario, call_id: str) -> PendingCall:
    call = scenario.scripted_call(call_id)
    return PendingCall(call_id, call["name"], parsed_args(call["arguments"]))
