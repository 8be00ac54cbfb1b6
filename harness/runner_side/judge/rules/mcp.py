"""The rules of the ``mcp`` mode that read what the runner's MCP server saw of the framework's client (``Run.mcp``:
``harness.runner_side.observe.mcp``), where the engine's own client (``handwritten_mcp``) keeps the contract: an
``approval_required`` answer given to the model as the call's result, an answer the client stopped waiting for, and
arguments sent unchecked."""

from __future__ import annotations

from collections.abc import Iterator

from handwritten.canonical import canonical_json
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import claim, ended_claims, mechanism, tool_of
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import Answered, EffectsSoFar, RunEnded, Says
from harness.runner_side.judge.values import Reason, undecided_at_end
from harness.runner_side.observe.mcp import INVALID, WITHDRAWN
from harness.runner_side.observe.observables import invalid_call_ids_of

APPROVAL_REQUIRED = "approval_required"
"""The server's answer to a high-risk call it holds for the human (``harness.column_side.mcp.server``)."""
WITHDREW, SENT_SUCH = "; the engine's client withdrew {}", "; of such calls the engine's client sent {}"
"""What the rules say of the engine's own MCP client beside the framework's (``_engines``)."""


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


@rule('read_timeout_shorter_than_call', "Its MCP client stops waiting for an answer the server is still giving: the call ran, and the client never hears so",
      stage='uncertain')
def read_timeout_shorter_than_call(case: Case) -> Iterator[Reason]:
    """The runner's server ran a call and was giving its answer late (``mcp.slow_answer``), and the framework's client
    stopped waiting before the answer came: the server's handler of the call was cancelled (a ``notifications/cancelled``
    or the session's end, as a read timeout shorter than the call brings) and the answer never sent. What the call did on
    the server stands: its effects so far, from the ledger; the framework's result for it, if it delivered one in that
    step, is what its client made of the missing answer. Claims ``mcp.withdrawn``: the calls the server's records say
    their client withdrew (``harness.runner_side.observe.mcp``)."""
    withdrawn = _measured(case, "withdrawn")
    if not withdrawn:
        return
    say, calls, lines = Says(), (case.framework.mcp or {})["calls"], []
    for cid in withdrawn:
        step = next(s for s, a in zip(calls[cid]["steps"], calls[cid]["answers"], strict=True) if a == WITHDRAWN)
        fact = case.framework.facts[step] if step < len(case.framework.facts) else {}
        told = [r[1] for r in fact.get("results", ()) if r[0] == cid]
        delivered = f"; then the framework {say(Answered(step, cid, told[0]))}" if told else ""
        lines.append(f"{cid} ({tool_of(case.scenario, cid)}), sent at driver step {step}: {say(EffectsSoFar.of(case.framework, cid, step))}{delivered}")
    one = len(withdrawn) == 1
    yield Reason("read_timeout_shorter_than_call", (
        f"the framework's client stopped waiting for {'an answer' if one else 'answers'} the MCP server was still giving (the server's handler "
        f"of {'the call' if one else 'each call'} was cancelled before it sent the answer: the client cancelled the call or ended its session, "
        f"as a read timeout shorter than the call does{_engines(case, 'withdrawn', WITHDREW)}): {'; '.join(lines)}{mechanism(case, 'tool_dispatch')}"
    ), (claim(case, ("mcp", "withdrawn")),), say.all())


@rule('mcp_arguments_not_validated', "Its MCP client sends the model's arguments without checking them against the tool's inputSchema: the server is the only check",
      stage=None)
def mcp_arguments_not_validated(case: Case) -> Iterator[Reason]:
    """The framework's client sent calls whose arguments break the tool's ``inputSchema`` (which it had from
    ``tools/list``), and the runner's server answered them ``invalid_arguments`` (each such send with the model's
    arguments or with others, as the server's records say), where the engine's client checks the
    arguments before it sends a call. No stage's row: the server's check held, and nothing ran. Claims
    ``mcp.sent_invalid``: the calls the server's records say it answered so."""
    sent = _measured(case, "sent_invalid")
    if not sent:
        return
    calls, invalid, lines = (case.framework.mcp or {})["calls"], invalid_call_ids_of(case.scenario), []
    for cid in sent:
        refused = [i for i, a in enumerate(calls[cid]["answers"]) if a == INVALID]
        steps = sorted({calls[cid]["steps"][i] for i in refused})
        carried = sorted({calls[cid]["arguments"][i] for i in refused})
        with_ = " and ".join({"model": "the model's arguments", "other": "other arguments than the model's"}[c] for c in carried)
        why = f" (the model's break it: {invalid[cid]})" if cid in invalid else ""
        lines.append(f"{cid} ({tool_of(case.scenario, cid)}), sent at driver step{'s' if len(steps) > 1 else ''} {', '.join(map(str, steps))} "
                     f"with {with_}{why}")
    one = len(sent) == 1
    yield Reason("mcp_arguments_not_validated", (
        f"the MCP server answered {INVALID} to {'a call' if one else 'calls'} the framework's client sent ({'its' if one else 'their'} arguments "
        f"break the tool's inputSchema, which the client had from tools/list{_engines(case, 'sent_invalid', SENT_SUCH)}): "
        f"{'; '.join(lines)}{mechanism(case, 'tool_dispatch')}"
    ), (claim(case, ("mcp", "sent_invalid")),))


def _measured(case: Case, part: str) -> list[str]:
    """The calls of the framework's ``mcp`` cell's ``part`` (``withdrawn``, ``sent_invalid``), as the runner's server's
    records imply them; none for a run without those records or a scenario that does not exercise the part."""
    cell = case.implied["mcp"]
    return list(cell.get(part, [])) if case.framework.mcp is not None and isinstance(cell, dict) else []


def _engines(case: Case, part: str, words: str) -> str:
    """``words`` with the engine's own MCP client's calls of its ``mcp`` cell's ``part`` (or ``none``) in its ``{}``;
    nothing where the engine's run has no such cell."""
    engine = case.engine.observables.get("mcp")
    return words.format(", ".join(engine.get(part, ())) or "none") if isinstance(engine, dict) else ""


def _same_call(case: Case, counted: str, cid: str) -> bool:
    """Whether the scripted calls ``counted`` and ``cid`` have the same tool and arguments (the server counts such calls
    under the first of them: ``harness.runner_side.observe.mcp``)."""
    try:
        one, other = case.scenario.scripted_call(counted), case.scenario.scripted_call(cid)
    except (KeyError, ValueError):
        return False
    return bool(one["name"] == other["name"] and canonical_json(one["arguments"]) == canonical_json(other["arguments"]))
