"""A seeded scenario generator over the scenario format (scenarios/README.md).

Example ``i`` of seed ``s`` is drawn from ``random.Random("explore/<s>/<i>")`` alone (its faults of the model's endpoint
from ``random.Random("explore/<s>/<i>/wire")``), so a seed reproduces a corpus exactly, example by example, whatever
the corpus's size. A scenario offers a subset of the fixture tools; its model
script has turns of tool calls (valid and invalid arguments, parallel batches, a repeated call id, raw JSON text cut
short, an identity-scoped call naming another user, a tool not offered) and final texts; its driver plays any
sequence the format has (run, approve, reject, every misuse of a token, resume, deliver again, snapshot and restore,
reconcile either way, and now and then a direct call or grant at the tool boundary); its faults are any of the
format's in-process fault points and, in about one example in five, faults of the model's endpoint (``WIRE_POINTS``:
every HTTP status the format allows, once or always, with a short or a long ``Retry-After``; a reset; a cut answer; a
slow one; a body that is not JSON), which only the ``wire`` mode meets. What the generator writes is valid by
construction and checked by the project's own loader.

The wire faults are drawn from a generator of their own, ``random.Random("explore/<s>/<i>/wire")``, after everything
else: an example without them is byte for byte what it was before the generator knew the wire, and one with them keeps
its script, driver and in-process faults.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from handwritten.tools import RiskClass
from harness.canonical_io import write_json
from harness.fixture_tools import FIXTURE_TOOLS
from harness.scenarios import FAULT_POINTS, WIRE_POINTS, load_scenario

MISUSES = ("other_args", "other_session", "expired", "forged", "reused", "other_call")
HIGH_RISK = tuple(n for n, t in FIXTURE_TOOLS.items() if t.risk is RiskClass.HIGH_RISK)
OTHER_USER = "bob"


def scenario_id(seed: int, index: int) -> str:
    return f"gen_s{seed}_{index:04d}"


def valid_args(rng: random.Random, tool: str, user: str) -> dict[str, Any]:
    """Arguments the tool's schema accepts."""
    match tool:
        case "get_weather":
            return {"city": rng.choice(["Paris", "Oslo", "Lima", "Rome"])}
        case "get_balance":
            return {"account": rng.choice(["ACC-1", "ACC-2"])}
        case "search_kb":
            return {"query": rng.choice(["refund", "shipping", "warranty"])}
        case "fetch_page":
            return {"url": rng.choice(["https://shop.example/shipping", "https://shop.example/faq"])}
        case "calculator":
            return {"a": rng.randint(-9, 99), "b": rng.choice([0, 2, 7, 1.5]), "op": rng.choice(["add", "sub", "mul", "div"])}
        case "list_orders":
            return rng.choice([{}, {"username": user}])
        case "put_note":
            note = {"key": rng.choice(["refunds", "todo"]), "text": rng.choice(["Within 14 days.", ""])}
            return note | ({"priority": rng.randint(1, 5)} if rng.random() < 0.3 else {})
        case "transfer_funds":
            transfer = {"from_account": "ACC-1", "to_account": rng.choice(["ACC-2", "ACC-3"]), "amount_cents": rng.choice([1, 2500, 90000])}
            return transfer | ({"memo": "rent"} if rng.random() < 0.3 else {})
        case "send_email":
            return {"to": rng.choice(["bob@example.test", "ops@example.test"]), "subject": "Hello", "body": "See you."}
        case "drop_database":
            return {"name": rng.choice(["prod", "scratch"])}
    raise ValueError(f"no arguments for {tool!r}")


def broken_args(rng: random.Random, tool: str, user: str) -> Any:
    """Arguments a model might send that the schema refuses (or raw text that is not whole JSON), one flaw at a time."""
    args = valid_args(rng, tool, user)
    schema = FIXTURE_TOOLS[tool].schema
    flaws = ["extra_key", "truncated_text", "not_an_object"]
    flaws += ["missing"] if schema["required"] else []
    flaws += ["wrong_type"] if args else []
    flaws += ["out_of_range"] if tool in ("put_note", "transfer_funds") else []
    flaw = rng.choice(flaws)
    if flaw == "missing":
        return {k: v for k, v in args.items() if k != rng.choice(schema["required"])}
    if flaw == "wrong_type":
        key = rng.choice(sorted(args))
        return args | {key: 5 if isinstance(args[key], str) else "five"}
    if flaw == "out_of_range":
        return args | ({"priority": 9} if tool == "put_note" else {"amount_cents": 0})
    if flaw == "extra_key":
        return args | {"confirm": True}
    if flaw == "not_an_object":
        return rng.choice([[], "null", "[1, 2]", '"text"', ""])
    text = json.dumps(args)
    return text[: max(1, len(text) // 2)]  # raw JSON text cut short


def call_args(rng: random.Random, tool: str, user: str) -> Any:
    """Mostly valid arguments; sometimes broken ones, valid ones sent as raw JSON text, or another user named."""
    roll = rng.random()
    if tool not in FIXTURE_TOOLS:
        return {"target": "all"}
    if roll < 0.2:
        return broken_args(rng, tool, user)
    if roll < 0.28:
        return json.dumps(valid_args(rng, tool, user))  # well-formed raw text, as a model sends it
    if tool == "list_orders" and roll < 0.5:
        return {"username": OTHER_USER if user != OTHER_USER else "alice"}  # an identity-scoped call naming another user
    return valid_args(rng, tool, user)


def model_script(rng: random.Random, tools: list[str], user: str) -> list[dict[str, Any]]:
    """Turns of tool calls (one, or a parallel batch), now and then a repeated call id, ending mostly in a text."""
    script: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for _ in range(rng.randint(1, 4)):
        batch = []
        for _ in range(1 if rng.random() < 0.65 else rng.randint(2, 3)):
            if calls and rng.random() < 0.12:  # a repeated call id: the same call again, or the id with other arguments
                earlier = rng.choice(calls)
                same = rng.random() < 0.6
                batch.append(dict(earlier) if same else {**earlier, "arguments": call_args(rng, earlier["name"], user)})
                continue
            tool = rng.choice(tools) if rng.random() < 0.93 else rng.choice(["drop_database", "delete_everything", *FIXTURE_TOOLS])
            call = {"id": f"c{len(calls) + 1}", "name": tool, "arguments": call_args(rng, tool, user)}
            calls.append(call)
            batch.append(call)
        ids = [c["id"] for c in batch]
        batch = [c for i, c in enumerate(batch) if c["id"] not in ids[:i]]  # one call per id within a turn
        turn: dict[str, Any] = {"tool_calls": batch}
        if rng.random() < 0.1:
            turn["text"] = "Working on it."
        script.append(turn)
    if rng.random() < 0.85:
        script.append({"text": rng.choice(["Done.", "All set.", "I could not finish that."])})
    return script


def driver(rng: random.Random, script: list[dict[str, Any]], tools: list[str], boundary: bool) -> list[dict[str, Any]]:
    """Step 0 runs; then up to six steps of any kind, the decisions naming any scripted call (mostly a high-risk one)."""
    calls = [c for t in script for c in t.get("tool_calls", ())]
    ids = list(dict.fromkeys(c["id"] for c in calls))
    risky = list(dict.fromkeys(c["id"] for c in calls if c["name"] in HIGH_RISK)) or ids
    steps: list[dict[str, Any]] = [{"action": "run", "event_id": "e1"}]
    actions = ["approve", "approve", "reject", "misuse_token", "resume", "deliver_again", "run", "snapshot", "restore", "reconcile"]
    actions += ["direct_call", "grant"] if boundary else []
    for _ in range(rng.randint(0, 6)):
        target = rng.choice(risky if rng.random() < 0.8 else ids) if ids else None
        step = _step(rng, rng.choice(actions), target, ids, tools, steps)
        if step is None:
            continue
        if rng.random() < 0.1:
            step["advance_clock_s"] = rng.choice([1, 301])
        steps.append(step)
    return steps


def _step(rng: random.Random, action: str, target: str | None, ids: list[str], tools: list[str], before: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One driver step of ``action`` after the steps ``before`` (None when it has nothing to name: no call, no snapshot)."""
    step: dict[str, Any] = {"action": action}
    snapshots = [s["name"] for s in before if s["action"] == "snapshot"]
    if action in ("approve", "reject", "misuse_token", "reconcile") and target is None:
        return None
    if action in ("approve", "reject"):
        step["call_id"] = target
        step |= {"reason": "not today"} if action == "reject" and rng.random() < 0.3 else {}
    elif action == "misuse_token":
        approved = any(s["action"] == "approve" for s in before)
        kinds = [k for k in MISUSES if (k != "reused" or approved) and (k != "other_call" or len(ids) > 1)]
        step |= {"call_id": target, "misuse": rng.choice(kinds)}
        if step["misuse"] == "other_call":
            step["other_call_id"] = rng.choice([i for i in ids if i != target])
    elif action == "reconcile":
        step |= {"call_id": target, "outcome": rng.choice(["confirmed", "not_executed"])}
    elif action == "run":
        step |= {"event_id": f"e{1 + sum(s['action'] == 'run' for s in before)}"} | ({"input": "Please go on."} if rng.random() < 0.5 else {})
    elif action == "snapshot":
        step["name"] = f"s{len(snapshots) + 1}"
    elif action == "restore":
        if not snapshots:
            return None
        step["name"] = rng.choice(snapshots)
    elif action in ("direct_call", "grant"):
        tool = rng.choice([*tools, "drop_database"]) if action == "direct_call" else rng.choice(HIGH_RISK)
        step |= {"tool": tool, "arguments": valid_args(rng, tool, "alice") if tool in FIXTURE_TOOLS else {}}
        step |= {"key": rng.choice(["k1", "k2"])} if action == "direct_call" and rng.random() < 0.6 else {}
        step |= {"session": "sess-other"} if rng.random() < 0.15 else {}
    return step


PROCESS_POINTS = sorted(p for p, (action, selector) in FAULT_POINTS.items() if action != "wire" and selector != "save")
"""The in-process points (``faults``); the model endpoint's are ``WIRE_POINTS`` (``wire_faults``). Not
``state.kill_after_save``: a save's number is each column's own, so columns compared side by side would die at different
moments (the crash sweep kills after every save of each column)."""
WIRE_SHARE = 0.2
"""The share of examples with faults of the model's endpoint: in-process modes leave such a scenario out (not
applicable), so most examples keep none."""
WIRE_WEIGHTS = {"model.http_status": 8, "model.http_reset": 3, "model.stream_cut": 3, "model.bad_body": 3, "model.http_slow": 1}
"""How often each wire point is drawn: a slow answer costs ``SLOW_DELAY_S`` of every run that meets it and tells the
least (every client here waits longer than that), so it is the rarest, and only ``once``."""
RETRIED_STATUSES = (408, 429, 500, 502, 503, 504)
REFUSED_STATUSES = (400, 401, 403, 404, 409, 413, 422)
"""The statuses drawn most: the ones a client retries (a timeout, too many requests, the server's errors) and the ones
it must not (the request's own fault); now and then any status the format allows (400 to 599)."""
SHORT_RETRY_AFTER = (0, 0.5, 1, 2)
LONG_RETRY_AFTER = (2.5, 30, 3600)
"""``Retry-After`` seconds: short ones a client may wait (up to the contract's 2 s), long ones it should not."""


def faults(rng: random.Random, script: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """None, one or two faults at any of the format's points, each selector naming a scripted call or turn."""
    ids = list(dict.fromkeys(c["id"] for t in script for c in t.get("tool_calls", ())))
    chosen: list[dict[str, Any]] = []
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        point = rng.choice(PROCESS_POINTS)
        selector = FAULT_POINTS[point][1]
        if selector == "turn":
            fault = {"point": point, "turn": rng.randrange(len(script))}
        elif ids:
            fault = {"point": point, "call_id": rng.choice(ids)}
        else:
            continue
        if fault not in chosen:
            chosen.append(fault)
    return chosen


def wire_faults(rng: random.Random, script: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """None in most examples; else one to three faults of the model's endpoint, often stacked on one turn (several
    ``once`` faults on a turn take its requests in order: three of them exhaust a client's attempts)."""
    if rng.random() >= WIRE_SHARE:
        return []
    chosen: list[dict[str, Any]] = []
    turn = rng.randrange(len(script))
    points, weights = zip(*WIRE_WEIGHTS.items(), strict=True)
    for _ in range(rng.choice([1, 1, 2, 3])):
        turn = turn if chosen and rng.random() < 0.6 else rng.randrange(len(script))
        fault: dict[str, Any] = {"point": rng.choices(points, weights)[0], "turn": turn}
        if fault["point"] == "model.http_status":
            roll = rng.random()
            fault["status"] = rng.choice(RETRIED_STATUSES) if roll < 0.55 else rng.choice(REFUSED_STATUSES) if roll < 0.85 else rng.randint(400, 599)
            if rng.random() < 0.3:
                fault["retry_after"] = rng.choice(SHORT_RETRY_AFTER if rng.random() < 0.5 else LONG_RETRY_AFTER)
        repeat = rng.choice([None, None, "once", "always"])
        if repeat == "always" and fault["point"] == "model.http_slow":  # every client waits the delay (none times out
            repeat = "once"  # before it): "always" would only make every re-ask of the turn wait it again
        fault |= {"repeat": repeat} if repeat else {}
        if not any(f["turn"] == turn and f.get("repeat") == "always" for f in chosen):  # else it would never fire
            chosen.append(fault)
    return chosen


def _gives_up(fault_list: list[dict[str, Any]]) -> bool:
    """Whether the endpoint's faults can end a model call unanswered: a status a client must not retry, a long
    ``Retry-After``, a fault on every request of a turn, or three on one turn (a slow answer is an answer)."""
    failing = [f for f in fault_list if FAULT_POINTS[f["point"]][0] == "wire" and f["point"] != "model.http_slow"]
    per_turn = [sum(1 for f in failing if f["turn"] == turn) for turn in {f["turn"] for f in failing}]
    refused = any(400 <= f.get("status", 0) < 500 and f["status"] not in RETRIED_STATUSES or f.get("retry_after", 0) > 2 for f in failing)
    return refused or any(f.get("repeat") == "always" for f in failing) or any(n >= 3 for n in per_turn)


def covers(script: list[dict[str, Any]], steps: list[dict[str, Any]], fault_list: list[dict[str, Any]]) -> list[str]:
    """The contract behaviours the scenario touches (the closed ``covers`` list), read from what it holds."""
    calls = [c for t in script for c in t.get("tool_calls", ())]
    actions = {s["action"] for s in steps}
    tags = ["basic_react"]
    tags += ["parallel_tool_calls"] if any(len(t.get("tool_calls", ())) > 1 for t in script) else []
    tags += ["validation_before_execution"] if any(not isinstance(c["arguments"], dict) or c["name"] not in FIXTURE_TOOLS for c in calls) else []
    tags += ["high_risk_before_approval"] if any(c["name"] in HIGH_RISK for c in calls) else []
    tags += ["always_deny"] if any(c["name"] == "drop_database" for c in calls) else []
    tags += ["unbound_approval_token"] if "misuse_token" in actions else []
    tags += ["duplicate_event"] if actions & {"deliver_again", "restore"} else []
    tags += ["crash_resume"] if any(FAULT_POINTS[f["point"]][0] == "kill" for f in fault_list) else []
    tags += ["uncertain_after_timeout"] if any(f["point"] == "tool.timeout_after_effect" for f in fault_list) else []
    tags += ["mcp_bypass"] if actions & {"direct_call", "grant"} else []
    tags += ["session_identity"] if any(c["name"] == "list_orders" for c in calls) else []
    tags += ["model_retry"] if any(f["point"] in WIRE_POINTS and f["point"] != "model.http_slow" for f in fault_list) else []
    tags += ["model_unavailable"] if _gives_up(fault_list) else []
    return tags


def generate(seed: int, index: int) -> dict[str, Any]:
    """Example ``index`` of seed ``seed``: a scenario document (no ``expected`` block)."""
    rng = random.Random(f"explore/{seed}/{index}")
    sid = scenario_id(seed, index)
    user = OTHER_USER if rng.random() < 0.2 else "alice"
    tools = rng.sample(sorted(FIXTURE_TOOLS), rng.randint(1, 4))
    if rng.random() < 0.5 and not set(tools) & set(HIGH_RISK):
        tools.append(rng.choice(HIGH_RISK))  # most scenarios have something to approve
    script = model_script(rng, tools, user)
    steps = driver(rng, script, tools, boundary=rng.random() < 0.06)
    fault_list = faults(rng, script)
    fault_list += wire_faults(random.Random(f"explore/{seed}/{index}/wire"), script)  # its own draws: the rest stays as it was
    document: dict[str, Any] = {
        "id": sid,
        "description": f"Generated by harness/runner_side/explore (seed {seed}, example {index}).",
        "covers": covers(script, steps, fault_list),
        "tools": tools,
        "session_id": f"sess-{sid}",
        "user_input": "Please take care of my request.",
        "max_steps": rng.randint(1, len(script) + 2),
        "model_script": script,
        "driver": steps,
        "faults": fault_list,
    }
    if user != "alice":
        document["user"] = user
    if rng.random() < 0.3:
        document["system_prompt"] = "You are a careful assistant. Use the tools."
    return document


def examples(seed: int, count: int) -> Iterator[dict[str, Any]]:
    return (generate(seed, i) for i in range(count))


def write_scenario(directory: Path, document: dict[str, Any]) -> Path:
    """Write one scenario as ``<id>.json`` and read it back with the project's loader (a harness bug if it refuses)."""
    path = directory / f"{document['id']}.json"
    write_json(path, document)
    load_scenario(path)  # raises ScenarioError: the generator wrote something the format does not allow
    return path


def write_corpus(directory: Path, seed: int, count: int) -> list[Path]:
    """The first ``count`` examples of ``seed``, one file each, every one checked by the loader."""
    directory.mkdir(parents=True, exist_ok=True)
    return [write_scenario(directory, document) for document in examples(seed, count)]
