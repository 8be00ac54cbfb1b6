"""What a framework's MCP client did in front of the runner's MCP server (``mcp`` mode), from the server's own records.

The runner's server (``harness.column_side.mcp.served``) records every ``tools/list`` and ``tools/call`` a column's
client sent, each call's answer, and the human's side it applied; the column's trace says which transport the step
used and the schema its framework gave the model for each tool (``mcp_tools``). Counts and comparisons only, never
wall times (those go to ``timings.json``):

- ``calls``: per scripted call (the model's call id; a call the script does not hold, under ``<tool>?``): ``sent``,
  the ``tools/call`` requests that carried it, ``keys``, how many carried an idempotency key in ``_meta``, ``changed``,
  how many sent other arguments than the model's (a coercion, a default filled in), and, one per request in the order
  they were sent: ``answers``, the status the server answered it with (``died``: the server died before answering, in
  the tool or after its effect; ``cut``: the connection dropped with the answer; ``withdrawn``: the client stopped
  waiting for a late answer, which the server then never sent; ``<status>:slow``: the answer came late), ``steps``, the
  driver step that sent it, and ``arguments``, whether it carried the model's arguments (``model``) or others
  (``other``);
- ``lists``: ``tools/list`` requests in all (a client that lists before every model turn, or every call);
- ``relays``: over stdio, the server processes the client started (each a relay of the harness's: a client that starts
  one per call, or one per driver step);
- ``meta``: the ``_meta`` keys the client put on its calls, besides the key (the protocol's own, the tool's echoed back);
- ``human``: the human's side the server applied for each driver step (``granted``, ``declined``, ``nothing_waiting``, ``reconciled``, ``nothing_uncertain``), which it
  applies before the first request of that step or a later one (a client that sends nothing after a step meets none);
- ``schemas``: per tool, how the schema the framework gave the model differs from the server's ``inputSchema``
  (``harness.schema_diff``; empty: verbatim), and ``transport`` per driver step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from handwritten.canonical import canonical_json
from harness.fixture_tools import FIXTURE_TOOLS
from harness.scenarios import MCP_POINTS, Scenario
from harness.schema_diff import schema_diff

NA = "n/a"


def mcp_client(scenario: Scenario, requests: Sequence[Mapping[str, Any]], trace: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary of one ``mcp`` run (see the module's docstring)."""
    calls: dict[str, dict[str, Any]] = {}
    open_calls: dict[Any, tuple[dict[str, Any], int]] = {}  # received, not answered yet, by the request's number: its entry, its place
    meta_keys: set[str] = set()
    for request in requests:
        if request.get("method") == "tools/call" and request.get("phase") == "received":
            name, arguments = str(request.get("name")), request.get("arguments")
            scripted, same = _scripted(scenario, name, arguments)
            entry = calls.setdefault(scripted, {"sent": 0, "keys": 0, "changed": 0, "answers": [], "steps": [], "arguments": []})
            entry["sent"] += 1
            entry["steps"].append(request.get("step"))
            entry["arguments"].append("model" if same else "other")
            entry["answers"].append("died")  # until its answer is recorded: received and never answered, the server died under it
            entry["keys"] += request.get("key") is not None
            entry["changed"] += not same
            meta_keys.update(request.get("meta") or {})
            open_calls[request.get("n")] = (entry, len(entry["answers"]) - 1)
        elif request.get("method") == "tools/call" and request.get("phase") == "answered" and request.get("n") in open_calls:
            entry, place = open_calls[request.get("n")]
            entry["answers"][place] = _answer(request)
        elif request.get("method") == "tools/call" and request.get("phase") == "withdrawn" and request.get("n") in open_calls:
            entry, place = open_calls.pop(request.get("n"))
            entry["answers"][place] = WITHDRAWN
    given = [e for e in trace if e.get("kind") == "mcp_tools"]
    schemas = {name: schema_diff(FIXTURE_TOOLS[name].schema, schema) for name, schema in sorted(given[0]["tools"].items()) if name in FIXTURE_TOOLS} if given else {}
    return {
        "calls": dict(sorted(calls.items())),
        "lists": sum(r.get("method") == "tools/list" for r in requests),
        "relays": len({r.get("relay") for r in requests if r.get("method") == "relay"}),
        "meta": sorted(meta_keys),
        "human": [{k: r[k] for k in ("step", "human", "call_id", "outcome")} for r in requests if "human" in r],
        "schemas": {name: diff for name, diff in schemas.items() if diff},
        "transport": sorted({str(e.get("transport")) for e in given}),
    }


WITHDRAWN = "withdrawn"
"""A call whose answer the client stopped waiting for: the server's handler of it was cancelled while a late answer
waited (a ``notifications/cancelled``, or the session's end), and the answer was never sent."""
_ANSWER_FAULTS = {"mcp.kill_after_effect": "died", "mcp.reset_mid_call": "cut"}
INVALID = "invalid_arguments"
"""The server's answer to a call whose arguments break the tool's ``inputSchema`` (``handwritten.boundary``)."""
LOST = ("died", "cut", WITHDRAWN)
"""The answers that never reached the client: the server died under the call, the connection dropped with the answer,
the client withdrew the call before the answer came."""


def mcp_observable(scenario: Scenario, answers: Mapping[str, Sequence[str]] | None, invalid_calls: bool) -> Any:
    """The ``mcp`` observable: what a client did with the answers an MCP fault kept from it, and with arguments that
    break a tool's schema. ``answers``: per call, the server's answers in the order the client sent the call
    (``mcp_client``'s, or for the engine's own client what its server traced: ``traced_answers``), None for a run whose
    tools are not behind an MCP server (``n/a``); ``invalid_calls``: whether a scripted call's arguments break its
    tool's schema. Each part is there only where the scenario exercises it (``n/a`` where it exercises neither):

    - with an MCP fault (``harness.scenarios.MCP_POINTS``): ``withdrawn``, the calls whose answer the client stopped
      waiting for (it cancelled the call or ended its session, as a read timeout shorter than the call does): what the
      call did on the server stands, and the client never heard it; ``sent_again``, per call, the times the client sent
      it again after an answer it lost (``LOST``): without an idempotency key, each runs the call again;
    - with such a call: ``sent_invalid``, the calls the server answered ``invalid_arguments``: sent with arguments
      that break the tool's ``inputSchema``, which the client did not check before it sent them.
    """
    faulted = any(f.point in MCP_POINTS for f in scenario.faults)
    if answers is None or not (faulted or invalid_calls):
        return NA
    cell: dict[str, Any] = {}
    if faulted:
        again = {}
        for cid, sent in answers.items():
            lost = next((i for i, a in enumerate(sent) if a in LOST), None)
            if lost is not None and len(sent) > lost + 1:
                again[cid] = len(sent) - lost - 1
        cell |= {"withdrawn": sorted(cid for cid, sent in answers.items() if WITHDRAWN in sent), "sent_again": dict(sorted(again.items()))}
    if invalid_calls:
        cell["sent_invalid"] = sorted(cid for cid, sent in answers.items() if INVALID in sent)
    return cell


def client_answers(client: Mapping[str, Any]) -> dict[str, list[str]]:
    """Per call, the answers an ``mcp_client`` summary holds, in the order the client sent the call."""
    return {cid: list(call["answers"]) for cid, call in client["calls"].items()}


def traced_answers(trace: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The engine's own MCP client (``handwritten_mcp``) as its server traced it: per call, the status of each call its
    server answered (``boundary_call`` of source ``mcp_server``), ``withdrawn`` where the server traced that the client
    stopped waiting for it (``answer_withdrawn``), ``died`` where the client then held the call's outcome uncertain
    after an answer that did not say so (its answer lost: the server died, or the connection dropped, the engine cannot
    tell which)."""
    answers: dict[str, list[str]] = {}
    for event in trace:
        cid, kind, sent = str(event.get("call_id")), event.get("kind"), answers.get(str(event.get("call_id")))
        if kind == "boundary_call" and event.get("source") == "mcp_server":
            answers.setdefault(cid, []).append(str(event.get("status")))
        elif kind == "answer_withdrawn" and event.get("source") == "mcp_server" and sent:
            sent[-1] = WITHDRAWN
        elif kind == "uncertain_outcome" and event.get("source") is None and sent and sent[-1] not in (*LOST, "uncertain", "in_progress"):
            sent[-1] = "died"  # an answer that said uncertain (or still running) reached the client: that one was not lost
    return answers


def _answer(answered: Mapping[str, Any]) -> str:
    """What became of a call's answer: the status it carried, ``died`` or ``cut`` when an MCP fault kept it from the
    client (the server died, the connection dropped), ``<status>:slow`` when it came late."""
    faults = answered.get("faults") or []
    lost = [_ANSWER_FAULTS[f] for f in faults if f in _ANSWER_FAULTS]
    return lost[0] if lost else f"{answered.get('status')}{':slow' if 'mcp.slow_answer' in faults else ''}"


def _scripted(scenario: Scenario, name: str, arguments: Any) -> tuple[str, bool]:
    """The scripted call a ``tools/call`` carried, and whether its arguments are the model's: the first scripted call of
    this tool with these arguments, else the first of this tool (its arguments changed on the way), else ``<tool>?``."""
    same_tool = [c for turn in scenario.model_script for c in turn.get("tool_calls", ()) if c["name"] == name]
    for call in same_tool:
        if not isinstance(call["arguments"], str) and canonical_json(call["arguments"]) == canonical_json(arguments):
            return call["id"], True
    return (same_tool[0]["id"], False) if same_tool else (f"{name}?", False)
