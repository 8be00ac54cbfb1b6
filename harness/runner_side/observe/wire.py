"""The ``wire`` observable: what a column's model client did on the wire, from the scripted server's own records.

Counts and diffs only, never wall times (those go to ``timings.json``), so two runs give the same bytes:

- ``calls``: each logical model call (the requests of one driver step for one turn up to the first that got an answer:
  a turn asked again after an answer is another call, a re-ask rather than a retry), with what each of its attempts
  met (``"200"``, an error status such as ``"500"``, ``"reset"``, ``"cut"``, ``"bad_body"``; a slow answer is
  ``"slow:waited"`` when the client waited the whole delay, ``"slow:gave_up"`` when it closed the connection first)
  and whether its attempts carried one idempotency key (``same``), several (``varied``) or none (``none``);
- ``attempts``: the requests in all (those the server answered past its bound on a run's records included);
  ``dropped`` (only when there were any): how many of them the server answered past that bound and did not record, so
  ``calls`` and the counts below leave them out; ``client_retries``: how many of them the HTTP client sent as its own retries (an
  ``x-stainless-retry-count`` above 0: the openai client's retry layer, under whatever layer the framework adds);
  ``idempotency_key_sent``: whether every request carried an ``Idempotency-Key``; ``read_timeout``: the read timeouts
  the client announced (``x-stainless-read-timeout``, seconds as sent; ``none`` for a request without one);
- ``gave_up``: each call whose last attempt did not get an answer, with its attempts and the status its driver step
  ended in;
- ``schema_diff``: per tool offered, in two parts (``harness.schema_diff``): ``declared``, how the framework's own tool
  object, declared the documented way, differs from the fixture registry's strict schema; ``rewritten``, how the
  parameters the request carried differ from that object (the engine's tools carry the registry's schema and it sends
  them verbatim: nothing in either part).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.records import StepRecord
from harness.schema_diff import schema_diffs

NA = "n/a"
SUCCESS = frozenset({"200", "slow:waited"})
"""What an attempt that got an answer met."""


def wire_observable(
    requests: Sequence[Mapping[str, Any]] | None, steps: Sequence[StepRecord], tools: Sequence[str], objects: Mapping[str, Any] | None
) -> Any:
    """The observable of one run (``"n/a"`` outside the wire mode: no requests were recorded for it); ``objects``: the
    JSON schema of each offered tool's framework object, as the column process read it (None: not reported)."""
    if requests is None:
        return NA
    groups: list[tuple[int, int, list[Mapping[str, Any]]]] = []  # logical calls, in the order each began
    open_calls: dict[tuple[int, int], list[Mapping[str, Any]]] = {}  # per (step, turn): the call a failed attempt leaves open
    for request in requests:
        where = (request["step"], request["turn"])
        if where not in open_calls:  # the first request for the turn in this step, or one after an answer: a new call
            open_calls[where] = []
            groups.append((*where, open_calls[where]))
        open_calls[where].append(request)
        if answer_label(request) in SUCCESS:  # answered: the turn asked again later is another call (a re-ask, not a retry)
            del open_calls[where]
    status = {s.index: s.status for s in steps}
    calls, gave_up = [], []
    for step, turn, attempts in groups:
        answers = [answer_label(r) for r in attempts]
        keys = {r.get("idempotency_key") for r in attempts}
        calls.append({"step": step, "turn": turn, "answers": answers, "keys": "none" if keys == {None} else "same" if len(keys) == 1 else "varied"})
        if answers[-1] not in SUCCESS:
            gave_up.append({"step": step, "turn": turn, "attempts": len(answers), "status": status.get(step, "error")})
    sent: Sequence[Mapping[str, Any]] = next((r["tools"] for r in requests if r.get("tools")), [])
    dropped = sum(int(r.get("dropped_after") or 0) for r in requests)  # the server's count, on the last record it kept
    return {
        "calls": calls,
        "attempts": len(requests) + dropped,
        "client_retries": sum(1 for r in requests if str(r.get("retry_count") or "0") != "0"),
        "idempotency_key_sent": bool(requests) and all(r.get("idempotency_key") for r in requests),
        "read_timeout": sorted({str(r.get("timeout") or "none") for r in requests}),
        "gave_up": gave_up,
        "schema_diff": schema_diffs(tools, sent, objects),
    } | ({"dropped": dropped} if dropped else {})


def answer_label(request: Mapping[str, Any]) -> str:
    """What one attempt met, as the client saw it."""
    if request.get("fault") == "model.http_slow":
        return "slow:waited" if request.get("waited") else "slow:gave_up"
    return str(request.get("answer"))
