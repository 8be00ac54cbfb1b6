"""The rules of the ``mcp`` mode that read what the runner's MCP server saw of the framework's client (``Run.mcp``:
``harness.runner_side.observe.mcp``), where the engine's own client (``handwritten_mcp``) keeps the contract."""

from __future__ import annotations

from collections.abc import Iterator

from handwritten.canonical import canonical_json
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import ended_claims, mechanism, tool_of
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import RunEnded, Says
from harness.runner_side.judge.values import Reason, undecided_at_end

APPROVAL_REQUIRED = "approval_required"
"""The server's answer to a high-risk call it holds for the human (``harness.column_side.mcp.server``)."""


@rule('approval_required_as_result', "Gives the model the MCP server's approval_required as the call's result: nothing waits for the human",
      stage='approval')
def approval_required_as_result(case: Case) -> Iterator[Reason]:
    """The server held a high-risk call for the human and answered it ``approval_required``; the framework's client gave
    that answer to the model in place of the call's result (as text, or as a failure the model may retry until the run
    raises), and its run held no call for a decision at the end, where the engine's run still waited for one on that
    call: the framework's final status is what its last step left, with nothing undecided (``values.final_status``)."""
    if case.framework.mcp is None or case.implied["status"] == case.engine.observables["status"] or undecided_at_end(case.framework):
        return
    calls, lines = case.framework.mcp["calls"], []
    for cid in undecided_at_end(case.engine):
        for counted in [k for k in calls if k == cid or _same_call(case, k, cid)]:
            answers = calls[counted]["answers"]
            if APPROVAL_REQUIRED not in answers:
                continue
            steps = sorted(set(calls[counted]["steps"]))
            alias = f", counted as {counted}: the server knows a call by its tool and arguments, and {counted}'s are the same" if counted != cid else ""
            lines.append(f"{cid} ({tool_of(case.scenario, cid)}{alias}): {answers.count(APPROVAL_REQUIRED)} of the {len(answers)} "
                         f"call{'s' if len(answers) > 1 else ''} sent, at driver step{'s' if len(steps) > 1 else ''} {', '.join(map(str, steps))}")
    if not lines:
        return
    say = Says()
    last = case.framework.facts[-1] if case.framework.facts else {}
    raised = f" (its last driver step raised {last['raised']})" if last.get("raised") else ""
    yield Reason("approval_required_as_result", (
        f"the MCP server held calls for the human and answered them {APPROVAL_REQUIRED}: {'; '.join(lines)}; the framework's client gave "
        f"each answer to the model in place of the call's result and its run held no call for a decision, so {say(RunEnded(case.implied['status']))}{raised} "
        f"where the engine's still waited for a decision ({case.engine.observables['status']}){mechanism(case, 'tool_dispatch')}"
    ), ended_claims(case), say.all())


def _same_call(case: Case, counted: str, cid: str) -> bool:
    """Whether the scripted calls ``counted`` and ``cid`` have the same tool and arguments (the server counts such calls
    under the first of them: ``harness.runner_side.observe.mcp``)."""
    try:
        one, other = case.scenario.scripted_call(counted), case.scenario.scripted_call(cid)
    except (KeyError, ValueError):
        return False
    return bool(one["name"] == other["name"] and canonical_json(one["arguments"]) == canonical_json(other["arguments"]))
