"""The ``wire`` observable: what a column's model client did on the wire, from the scripted server's own records.

Counts and diffs only, never wall times (those go to ``timings.json``), so two runs give the same bytes:

- ``calls``: each logical model call (the requests of one driver step for one turn, in order), with what each of its
  attempts met (``"200"``, an error status such as ``"500"``, ``"reset"``, ``"cut"``, ``"bad_body"``; a slow answer is
  ``"slow:waited"`` when the client waited the whole delay, ``"slow:gave_up"`` when it closed the connection first)
  and whether its attempts carried one idempotency key (``same``), several (``varied``) or none (``none``);
- ``attempts``: the requests in all; ``client_retries``: how many of them the HTTP client sent as its own retries (an
  ``x-stainless-retry-count`` above 0: the openai client's retry layer, under whatever layer the framework adds);
  ``idempotency_key_sent``: whether every request carried an ``Idempotency-Key``; ``read_timeout``: the read timeouts
  the client announced (``x-stainless-read-timeout``, seconds as sent; ``none`` for a request without one);
- ``gave_up``: each call whose last attempt did not get an answer, with its attempts and the status its driver step
  ended in;
- ``schema_diff``: per tool offered, how the tool's parameters as sent differ from the fixture registry's strict schema
  (the engine sends it verbatim): keys ``added``, ``dropped`` or ``changed`` (JSON pointers), properties made
  ``required``, constraints ``moved_to_text`` (dropped where they were, their value now in a description), and
  ``strict`` when the request marks the tool strict; a tool never sent is ``not_sent``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import StepRecord

NA = "n/a"
SUCCESS = ("200", "slow:waited")
CONSTRAINTS = ("minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "enum", "const",
               "minItems", "maxItems", "format", "multipleOf", "uniqueItems")  # fmt: skip


def wire_observable(requests: Sequence[Mapping[str, Any]] | None, steps: Sequence[StepRecord], tools: Sequence[str]) -> Any:
    """The observable of one run (``"n/a"`` outside the wire mode: no requests were recorded for it)."""
    if requests is None:
        return NA
    groups: dict[tuple[int, int], list[Mapping[str, Any]]] = {}
    for request in requests:
        groups.setdefault((request["step"], request["turn"]), []).append(request)
    status = {s.index: s.status for s in steps}
    calls, gave_up = [], []
    for (step, turn), attempts in groups.items():
        answers = [answer_label(r) for r in attempts]
        keys = {r.get("idempotency_key") for r in attempts}
        calls.append({"step": step, "turn": turn, "answers": answers, "keys": "none" if keys == {None} else "same" if len(keys) == 1 else "varied"})
        if answers[-1] not in SUCCESS:
            gave_up.append({"step": step, "turn": turn, "attempts": len(answers), "status": status.get(step, "error")})
    sent: Sequence[Mapping[str, Any]] = next((r["tools"] for r in requests if r.get("tools")), [])
    return {
        "calls": calls,
        "attempts": len(requests),
        "client_retries": sum(1 for r in requests if str(r.get("retry_count") or "0") != "0"),
        "idempotency_key_sent": bool(requests) and all(r.get("idempotency_key") for r in requests),
        "read_timeout": sorted({str(r.get("timeout") or "none") for r in requests}),
        "gave_up": gave_up,
        "schema_diff": schema_diffs(tools, sent),
    }


def answer_label(request: Mapping[str, Any]) -> str:
    """What one attempt met, as the client saw it."""
    if request.get("fault") == "model.http_slow":
        return "slow:waited" if request.get("waited") else "slow:gave_up"
    return str(request.get("answer"))


def schema_diffs(offered: Sequence[str], sent: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per offered fixture tool, what differs between its registry schema and its parameters as sent (empty: nothing)."""
    by_name = {t.get("name"): t for t in sent}
    out: dict[str, Any] = {}
    for name in offered:
        tool = by_name.get(name)
        if tool is None:
            out[name] = {"not_sent": True}
            continue
        diff = schema_diff(FIXTURE_TOOLS[name].schema, tool.get("parameters") or {})
        if tool.get("strict"):
            diff["strict"] = True
        if diff:
            out[name] = diff
    return out


def schema_diff(registry: Mapping[str, Any], sent: Mapping[str, Any]) -> dict[str, Any]:
    """``added``, ``dropped`` and ``changed`` JSON pointers, ``required`` properties added, ``moved_to_text`` constraints."""
    added: list[str] = []
    dropped: list[str] = []
    changed: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                path = f"{where}/{_escape(key)}"
                if key not in b:
                    dropped.append(path)
                elif key not in a:
                    added.append(path)
                else:
                    walk(a[key], b[key], path)
        elif a != b and not (where.endswith("/required") and isinstance(a, list) and isinstance(b, list)):
            changed.append(where)

    walk(dict(registry), dict(sent), "")
    diff: dict[str, Any] = {"added": added, "dropped": dropped, "changed": changed}
    made_required = sorted(set(_list(sent.get("required"))) - set(_list(registry.get("required"))))
    diff["required"] = made_required
    diff["moved_to_text"] = _moved_to_text(registry, sent, dropped)
    return {k: v for k, v in diff.items() if v}


def _moved_to_text(registry: Mapping[str, Any], sent: Mapping[str, Any], dropped: list[str]) -> list[str]:
    """Dropped constraints whose keyword or value now appears in the sent description of the same property."""
    moved = []
    for path in dropped:
        parent, _, keyword = path.rpartition("/")
        if keyword not in CONSTRAINTS:
            continue
        value, description = _at(registry, path), str(_at(sent, f"{parent}/description") or "")
        if any(_word_in(word, description) for word in (keyword, *([str(value)] if value is not None else []))):
            moved.append(path)
    return moved


def _word_in(word: str, text: str) -> bool:
    """Whether ``word`` occurs in ``text`` as a whole word or number (not the ``1`` of ``2014``)."""
    return re.search(rf"(?<![\w.]){re.escape(word)}(?![\w]|\.\d)", text) is not None


def _at(document: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        if not isinstance(document, dict):
            return None
        document = document.get(part.replace("~1", "/").replace("~0", "~"))
    return document


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
