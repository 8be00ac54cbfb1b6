"""The engine's model over HTTP (``handwritten.wire_model.OpenAIWireModel``) against the runner's real scripted server
on 127.0.0.1, through the real openai client: the contract's attempt budget, waits and idempotency key
(``docs/contract.md``, "The model's endpoint"), and the engine's ``model_unavailable`` stop and resume with it.
The only thing injected is ``sleep``: the waits are recorded instead of slept."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from handwritten.approvals import ApprovalAuthority
from handwritten.checkpoint import AgentState, SqliteCheckpointStore
from handwritten.engine import Engine, RunResult
from handwritten.events import Event, EventRefused, ModelUnavailableStop, Resumed, ToolResult
from handwritten.idempotency import SqliteIdempotencyStore
from handwritten.model import ModelReply, ModelUnavailable, ToolCall
from handwritten.tools import ToolRegistry
from handwritten.wire_model import OpenAIWireModel, WirePolicy
from harness.column_side.approver import APPROVAL_SECRET, CLOCK_START
from harness.column_side.fixtures.world import FixtureWorld
from harness.ledger import ledger_counts
from harness.runner_side.run.servers.wire import WireServer
from harness.scenarios import Fault, Scenario, load_scenarios

SCENARIOS = {s.id: s for s in load_scenarios()}
WEATHER = SCENARIOS["wire_http_500_once"]  # turn 0: c1 get_weather Paris; turn 1: text
NOTE = SCENARIOS["wire_unavailable_then_resume"]  # turn 0: c1 put_note; turn 1: text
MODE = "wire"
COLUMN = "handwritten"
KEY = f"{WEATHER.session_id}/turn-0"
PARIS = ModelReply(text=None, tool_calls=(ToolCall("c1", "get_weather", '{"city":"Paris"}'),))
RESET = "connection (RemoteProtocolError)"  # what the model names a dropped connection or a cut answer


def opening(scenario: Scenario) -> list[dict[str, Any]]:
    return [{"role": "system", "content": scenario.system_prompt}, {"role": "user", "content": scenario.user_input}]


@contextmanager
def serving(scenario: Scenario, *faults: Fault) -> Iterator[tuple[WireServer, str]]:
    """The scripted server over ``scenario`` with these faults, and the column's base URL; it must raise nothing."""
    with WireServer([replace(scenario, faults=faults)]) as server:
        yield server, server.base_url(COLUMN)
        assert server.errors == []


def url(base: str, scenario: Scenario, step: int = 0) -> str:
    return f"{base}/{MODE}/{scenario.id}/{step}/v1"


def seen(server: WireServer, scenario: Scenario) -> list[tuple[Any, str | None, str | None]]:
    """What the server saw of each attempt: its answer, its ``Idempotency-Key`` and the openai client's retry count."""
    return [(r["answer"], r["idempotency_key"], r["retry_count"]) for r in server.requests(COLUMN, f"{MODE}/{scenario.id}")]


def weather_tools(world: FixtureWorld) -> list[dict[str, Any]]:
    return ToolRegistry(world.tool_specs(["get_weather"])).openai_tools()


# -- one logical call: attempts, waits, the key ------------------------------------------------------------------------

ANSWERED = [
    ("500 once", [Fault("model.http_status", turn=0, status=500)], [0.1], [500, 200]),
    ("408 once", [Fault("model.http_status", turn=0, status=408)], [0.1], [408, 200]),
    ("429 with Retry-After 1", [Fault("model.http_status", turn=0, status=429, retry_after=1)], [1.0], [429, 200]),
    ("503 with Retry-After 2 (the limit)", [Fault("model.http_status", turn=0, status=503, retry_after=2)], [2.0], [503, 200]),
    ("reset", [Fault("model.http_reset", turn=0)], [0.1], ["reset", 200]),
    ("cut", [Fault("model.stream_cut", turn=0)], [0.1], ["cut", 200]),
    ("bad body", [Fault("model.bad_body", turn=0)], [0.1], ["bad_body", 200]),
    ("500 then reset: the third attempt", [Fault("model.http_status", turn=0, status=500), Fault("model.http_reset", turn=0)], [0.1, 0.2], [500, "reset", 200]),
]


@pytest.mark.parametrize("faults,waits,answers", [c[1:] for c in ANSWERED], ids=[c[0] for c in ANSWERED])
def test_a_retried_failure_is_asked_again_under_the_same_key_and_answered(world: FixtureWorld, faults: list[Fault], waits: list[float], answers: list[Any]) -> None:
    """408, 429, 5xx, a reset, a cut answer and a bad body are retried: the next attempt carries the same
    ``Idempotency-Key``, after ``Retry-After`` when the server sent one (up to 2 s) or else 0.1 s * 2**n."""
    slept: list[float] = []
    with serving(WEATHER, *faults) as (server, base):
        reply = OpenAIWireModel(url(base, WEATHER), session_id=WEATHER.session_id, sleep=slept.append).complete(opening(WEATHER), weather_tools(world))
        attempts = seen(server, WEATHER)
    assert (reply, slept, attempts) == (PARIS, waits, [(a, KEY, "0") for a in answers])


GIVEN_UP = [
    ("500 always", [Fault("model.http_status", turn=0, status=500, repeat="always")], ("500", "500", "500"), [0.1, 0.2],
     "turn 0: 3 attempts failed (500, 500, 500)"),
    ("reset always", [Fault("model.http_reset", turn=0, repeat="always")], (RESET,) * 3, [0.1, 0.2], f"turn 0: 3 attempts failed ({RESET}, {RESET}, {RESET})"),
    ("bad body always", [Fault("model.bad_body", turn=0, repeat="always")], ("bad_body",) * 3, [0.1, 0.2], "turn 0: 3 attempts failed (bad_body, bad_body, bad_body)"),
    ("503 with Retry-After 2.5", [Fault("model.http_status", turn=0, status=503, retry_after=2.5)], ("503",), [], "turn 0: Retry-After 2.5 s is over 2 s"),
    ("400", [Fault("model.http_status", turn=0, status=400)], ("400",), [], "turn 0: 400 is not retried (attempt 1)"),
    ("404 after a 500", [Fault("model.http_status", turn=0, status=500), Fault("model.http_status", turn=0, status=404)], ("500", "404"), [0.1],
     "turn 0: 404 is not retried (attempt 2)"),
]


@pytest.mark.parametrize("faults,attempts,waits,reason", [c[1:] for c in GIVEN_UP], ids=[c[0] for c in GIVEN_UP])
def test_a_call_that_runs_out_of_attempts_or_meets_a_final_failure_raises_model_unavailable(
    world: FixtureWorld, faults: list[Fault], attempts: tuple[str, ...], waits: list[float], reason: str
) -> None:
    """At most 3 attempts; a 4xx other than 408 and 429, or a ``Retry-After`` over 2 s, ends the call at once, with no
    wait. ``ModelUnavailable`` names what each attempt met; the server saw exactly those attempts."""
    slept: list[float] = []
    with serving(WEATHER, *faults) as (server, base):
        with pytest.raises(ModelUnavailable) as info:
            OpenAIWireModel(url(base, WEATHER), session_id=WEATHER.session_id, sleep=slept.append).complete(opening(WEATHER), weather_tools(world))
        answered = [a for a, _, _ in seen(server, WEATHER)]
    assert (info.value.attempts, info.value.reason, slept) == (attempts, reason, waits)
    assert answered == [int(a) if a.isdigit() else {RESET: "reset", "bad_body": "bad_body"}[a] for a in attempts]


def test_the_key_names_the_turn_and_the_tools_are_sent_as_the_registry_has_them(world: FixtureWorld) -> None:
    """Each logical call's key is ``<session>/turn-<n>`` with ``n`` the assistant messages so far, and the tools go out
    verbatim (the registry's strict schema)."""
    tools = weather_tools(world)
    with serving(WEATHER) as (server, base):
        model = OpenAIWireModel(url(base, WEATHER), session_id=WEATHER.session_id, sleep=lambda s: None)
        first = model.complete(opening(WEATHER), tools)
        transcript = [*opening(WEATHER), {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": '{"city":"Paris","forecast":"sun"}'}]  # fmt: skip
        second = model.complete(transcript, tools)
        records = server.requests(COLUMN, f"{MODE}/{WEATHER.id}")
    assert (first, second) == (PARIS, ModelReply(text="It is sunny in Paris."))
    assert [(r["turn"], r["idempotency_key"], r["timeout"]) for r in records] == [(0, KEY, "5.0"), (1, f"{WEATHER.session_id}/turn-1", "5.0")]
    assert [r["tools"] for r in records] == [[t["function"] for t in tools]] * 2


@pytest.mark.slow
def test_a_read_timeout_is_a_retried_timeout(world: FixtureWorld) -> None:
    """With a 1 s read timeout a slow answer (3 s) is a ``timeout``, retried after 0.1 s under the same key; here the
    retry meets a 400, so the attempts show both."""
    slept: list[float] = []
    faults = (Fault("model.http_slow", turn=0), Fault("model.http_status", turn=0, status=400))
    with serving(WEATHER, *faults) as (server, base):
        model = OpenAIWireModel(url(base, WEATHER), session_id=WEATHER.session_id, policy=WirePolicy(read_timeout_s=1.0), sleep=slept.append)
        with pytest.raises(ModelUnavailable) as info:
            model.complete(opening(WEATHER), weather_tools(world))
        records = [(r["fault"], r["idempotency_key"], r["timeout"]) for r in server.requests(COLUMN, f"{MODE}/{WEATHER.id}")]
    assert (info.value.attempts, slept) == (("timeout", "400"), [0.1])
    assert records == [("model.http_slow", KEY, "1.0"), ("model.http_status", KEY, "1.0")]


@pytest.mark.slow
def test_a_read_timeout_then_an_answer_completes_the_call(world: FixtureWorld) -> None:
    """A timed-out attempt followed by an answered one: the call returns the scripted turn after one 0.1 s wait."""
    slept: list[float] = []
    with serving(WEATHER, Fault("model.http_slow", turn=0)) as (server, base):
        model = OpenAIWireModel(url(base, WEATHER), session_id=WEATHER.session_id, policy=WirePolicy(read_timeout_s=1.0), sleep=slept.append)
        reply = model.complete(opening(WEATHER), weather_tools(world))
        faults = [r["fault"] for r in server.requests(COLUMN, f"{MODE}/{WEATHER.id}")]
    assert (reply, slept, faults) == (PARIS, [0.1], ["model.http_slow", None])


# -- the engine: model_unavailable, refused events, resume -------------------------------------------------------------


def _no_issuing() -> str:
    raise AssertionError("the engine verifies approval tokens; only the human approver issues them")


class Worker:
    """What one driver step of the handwritten column builds (``adapters/handwritten/column.py``): the engine over
    SQLite files in the scratch directory, the fixture world and the wire model on the step's URL."""

    def __init__(self, scratch: Path, scenario: Scenario, model_url: str, trace: list[Event], slept: list[float]) -> None:
        self.world = FixtureWorld(scratch, list(scenario.faults), may_kill=False)
        self.checkpoints = SqliteCheckpointStore(str(scratch / "engine.sqlite"))
        self.idempotency = SqliteIdempotencyStore(str(scratch / "engine.sqlite"))
        self.engine = Engine(
            model=OpenAIWireModel(model_url, session_id=scenario.session_id, sleep=slept.append),
            registry=ToolRegistry(self.world.tool_specs(list(scenario.tools))),
            checkpoints=self.checkpoints,
            idempotency=self.idempotency,
            approvals=ApprovalAuthority(APPROVAL_SECRET, clock=lambda: CLOCK_START, new_token_id=_no_issuing),
            trace=trace.append,
            max_steps=scenario.max_steps,
            system_prompt=scenario.system_prompt,
            user=scenario.user,
        )

    def close(self) -> None:
        self.checkpoints.close()
        self.idempotency.close()
        self.world.close()


def test_the_engine_stops_model_unavailable_refuses_new_events_and_resumes_with_a_fresh_budget(tmp_path: Path) -> None:
    """Turn 1 fails three times (500, reset, 503: the committed scenario's faults): the run ends ``model_unavailable``
    with its checkpoint at step 1, the transcript ending with turn 0's tool result, and a ``model_unavailable`` event
    naming the attempts. A new event is refused ``run_unfinished``. A resume asks again with three attempts of its own:
    two more ``once`` faults (502, a bad body) take two, the third is answered and the run completes, the note written once."""
    faults = (*NOTE.faults, Fault("model.http_status", turn=1, status=502), Fault("model.bad_body", turn=1))
    trace: list[Event] = []
    slept: list[list[float]] = [[], [], []]
    with serving(NOTE, *faults) as (server, base):
        results = []
        for step, act in enumerate([lambda e: e.run(NOTE.session_id, NOTE.user_input, "e1"),
                                    lambda e: e.run(NOTE.session_id, "Anything else?", "e2"),
                                    lambda e: e.resume(NOTE.session_id)]):  # fmt: skip
            worker = Worker(tmp_path, NOTE, url(base, NOTE, step), trace, slept[step])
            try:
                results.append(act(worker.engine))
            finally:
                worker.close()
        records = [(r["step"], r["turn"], r["answer"], r["idempotency_key"]) for r in server.requests(COLUMN, f"{MODE}/{NOTE.id}")]
    note_result = next(e for e in trace if isinstance(e, ToolResult)).content
    reason = f"turn 1: 3 attempts failed (500, {RESET}, 503)"
    stopped = AgentState(
        session_id=NOTE.session_id, event_id="e1", seen_event_ids=("e1",), step=1, status="model_unavailable",
        messages=(
            {"role": "system", "content": NOTE.system_prompt},
            {"role": "user", "content": NOTE.user_input},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "put_note", "arguments": '{"key":"followup","text":"Call the customer back on Monday."}'}}]},
            {"role": "tool", "tool_call_id": "c1", "name": "put_note", "content": note_result},
        ),
        stop_reason=f"model unavailable: {reason}",
    )  # fmt: skip
    done = stopped.evolve(step=2, status="completed", stop_reason=None, final_text="The note is saved.",
                          messages=stopped.messages + ({"role": "assistant", "content": "The note is saved."},))  # fmt: skip
    assert results == [
        RunResult("model_unavailable", stopped),
        RunResult("refused", stopped, refusal="run_unfinished"),
        RunResult("completed", done, final_text="The note is saved."),
    ]
    assert [e for e in trace if isinstance(e, ModelUnavailableStop | EventRefused | Resumed)] == [
        ModelUnavailableStop(2, ("500", RESET, "503"), reason),
        EventRefused("e2", "model_unavailable"),
        Resumed("model_turn", None, None, None, ()),
    ]
    assert [e.kind for e in trace] == ["run_started", "model_turn", "call_admitted", "intent_checkpointed", "tool_result", "model_unavailable",
                                       "event_refused", "resumed", "model_turn", "finished"]  # fmt: skip
    assert slept == [[0.1, 0.2], [], [0.1, 0.2]]
    turn_1 = f"{NOTE.session_id}/turn-1"
    assert records == [(0, 0, 200, f"{NOTE.session_id}/turn-0"), (0, 1, 500, turn_1), (0, 1, "reset", turn_1), (0, 1, 503, turn_1),
                       (2, 1, 502, turn_1), (2, 1, "bad_body", turn_1), (2, 1, 200, turn_1)]  # fmt: skip
    assert ledger_counts(str(tmp_path / "ledger.sqlite")) == {"c1": {"tool": "put_note", "tool_entries": 1, "executor_entries": 1, "effects": 1}}


def test_failed_attempts_are_not_model_turns_so_they_never_count_toward_max_steps(tmp_path: Path) -> None:
    """With ``max_steps`` 2, a turn 1 that fails three times leaves the run at step 1 (not stopped by the bound), and
    the resume's answered turn is step 2: the run completes instead of stopping ``stopped_max_steps``."""
    scenario = replace(NOTE, max_steps=2)
    trace: list[Event] = []
    with serving(scenario, *NOTE.faults) as (_, base):
        statuses = []
        for step, act in enumerate([lambda e: e.run(NOTE.session_id, NOTE.user_input, "e1"), lambda e: e.resume(NOTE.session_id)]):
            worker = Worker(tmp_path, scenario, url(base, scenario, step), trace, [])
            try:
                result = act(worker.engine)
                statuses.append((result.status, result.state.step))
            finally:
                worker.close()
    assert statuses == [("model_unavailable", 1), ("completed", 2)]


def test_a_retry_after_is_seconds_or_an_http_date_and_anything_else_is_absent() -> None:
    """Seconds as sent; an HTTP date counted from the injected clock (a date in the past is no wait); nonsense and a
    number that is not finite are treated as absent (the backoff applies)."""
    from handwritten.wire_model import _retry_after

    now = 1_700_000_000.0  # 2023-11-14T22:13:20Z
    clock = lambda: now  # noqa: E731
    assert [_retry_after(v, clock) for v in ("2", "0", "2.5", "-3", "nan", "inf", "soon", None)] == [2.0, 0.0, 2.5, 0.0, None, None, None, None]
    assert _retry_after("Tue, 14 Nov 2023 22:13:50 GMT", clock) == 30.0
    assert _retry_after("Tue, 14 Nov 2023 22:00:00 GMT", clock) == 0.0


def test_a_200_that_is_not_a_chat_completion_is_a_retried_bad_body() -> None:
    """JSON of another shape (a message that is a text or null, no choices) fails as a bad body, which the loop retries,
    never as an exception out of the model."""
    from handwritten.wire_model import _reply

    for body in ({"choices": [{"message": "hi"}]}, {"choices": [{"message": None}]}, {"choices": []}, {"id": "x"}, {"choices": [{"message": {}}]}):
        with pytest.raises((ValueError, KeyError, IndexError, TypeError, AttributeError)):
            _reply(body)
