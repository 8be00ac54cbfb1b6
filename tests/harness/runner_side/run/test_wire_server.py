"""The scripted OpenAI-compatible server of the ``wire`` mode (``harness.runner_side.run.servers.wire``), over real HTTP on
127.0.0.1: the official ``openai`` client (its own retries off) or a bare ``http.client`` connection asks, the server
plays a committed scenario's script, records every request and applies the scenario's wire faults."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import openai
import pytest

from handwritten.canonical import canonical_json
from harness.runner_side.run.servers.wire import WireServer
from harness.scenarios import SLOW_DELAY_S, Fault, Scenario, load_scenarios
from harness.script_log import EXHAUSTED_TEXT

SCENARIOS = {s.id: s for s in load_scenarios()}
BASIC = SCENARIOS["basic_react_loop"]  # three calls on three turns, then a text
MODE = "contract"
RUN = f"{MODE}/{BASIC.id}"
COLUMN = "col"
TOOL_RESULT = '{"ok":true}'

# The script of basic_react_loop as a client receives it, turn by turn: (text, [(call id, tool, arguments)]).
TURNS: list[tuple[str | None, list[tuple[str, str, str]]]] = [
    (None, [("c1", "get_weather", '{"city":"Paris"}')]),
    (None, [("c2", "get_weather", '{"city":"Oslo"}')]),
    (None, [("c3", "search_kb", '{"query":"shipping times"}')]),
    ("Paris is sunny, Oslo has snow, and shipping takes 3 to 5 business days.", []),
    (EXHAUSTED_TEXT, []),  # past the end of the script
]
WEATHER_PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False}


def chat_transcript(turns: int) -> list[dict[str, Any]]:
    """The chat messages that ask for turn ``turns`` of basic_react_loop: the script's own turns, each call answered."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": BASIC.system_prompt}, {"role": "user", "content": BASIC.user_input}]
    for turn in BASIC.model_script[:turns]:
        calls = turn.get("tool_calls", [])
        if not calls:
            messages.append({"role": "assistant", "content": turn["text"]})
            continue
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": canonical_json(c["arguments"])}} for c in calls]})
        messages += [{"role": "tool", "tool_call_id": c["id"], "content": TOOL_RESULT} for c in calls]
    return messages


@contextmanager
def serving(*faults: Fault, scenario: Scenario = BASIC) -> Iterator[WireServer]:
    """A running server over ``scenario`` with these faults; it must have raised nothing by the end."""
    with WireServer([replace(scenario, faults=faults)]) as server:
        yield server
        assert server.errors == []


def v1(server: WireServer, step: int = 0, base: str | None = None, scenario: Scenario = BASIC) -> str:
    return f"{base or server.base_url(COLUMN)}/{MODE}/{scenario.id}/{step}/v1"


def client(url: str, timeout: float = 30.0, max_retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key="not-a-key", max_retries=max_retries, timeout=timeout)


def post(url: str, body: bytes, method: str = "POST", timeout: float | None = 30.0) -> tuple[int | str, dict[str, str], bytes]:
    """One bare HTTP request: (status, headers without ``date``, body), or ``"reset"`` when the connection drops before an answer."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
    try:
        conn.request(method, parts.path, body=body if method == "POST" else None, headers={"content-type": "application/json"})
        try:
            response = conn.getresponse()
        except ConnectionError:  # http.client.RemoteDisconnected among them
            return "reset", {}, b""
        headers = {k.lower(): v for k, v in response.getheaders() if k.lower() != "date"}
        return response.status, headers, response.read()
    finally:
        conn.close()


def chat_body(turn: int = 0, **extra: Any) -> bytes:
    return json.dumps({"model": "scripted-model", "messages": chat_transcript(turn), **extra}).encode()


def chat_reply(completion: Any) -> tuple[str | None, list[tuple[str, str, str]], str]:
    choice = completion.choices[0]
    calls = [(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or []]
    return choice.message.content, calls, choice.finish_reason


def responses_reply(response: Any) -> tuple[str | None, list[tuple[str, str, str]], str]:
    texts = [part.text for item in response.output if item.type == "message" for part in item.content]
    calls = [(item.call_id, item.name, item.arguments) for item in response.output if item.type == "function_call"]
    return ("".join(texts) if texts else None), calls, response.status


def finish(turn: int) -> str:
    return "tool_calls" if TURNS[turn][1] else "stop"


# -- the scripted turns, over both APIs, plain and streamed ------------------------------------------------------------


def test_chat_completions_answer_each_scripted_turn_and_the_exhausted_text_past_the_script() -> None:
    """Plain chat completions: the turn is the count of assistant messages sent; calls keep the script's ids and
    canonical-JSON arguments; past the script the answer is the exhausted text."""
    with serving() as server:
        c = client(v1(server))
        got = [chat_reply(c.chat.completions.create(model="m", messages=chat_transcript(n))) for n in range(len(TURNS))]
    assert got == [(text, calls, finish(n)) for n, (text, calls) in enumerate(TURNS)]


def test_streamed_chat_completions_carry_the_same_turns() -> None:
    """Streamed chat completions (``stream=True`` through the openai client), put back together, are the same turns."""
    with serving() as server:
        c = client(v1(server))
        got = []
        for n in range(len(TURNS)):
            text, calls, reason = "", {}, None
            for chunk in c.chat.completions.create(model="m", messages=chat_transcript(n), stream=True):
                for choice in chunk.choices:
                    text += choice.delta.content or ""
                    reason = choice.finish_reason or reason
                    for call in choice.delta.tool_calls or []:
                        calls[call.index] = (call.id, call.function.name, call.function.arguments)
            got.append((text or None, [calls[i] for i in sorted(calls)], reason))
    assert got == [(text, calls, finish(n)) for n, (text, calls) in enumerate(TURNS)]


def test_the_responses_api_answers_the_same_turns_plain_and_streamed() -> None:
    """``client.responses.create``, plain and streamed, answers the script's turn 0 (a call) and, for an input
    holding turn 0's ``function_call`` and ``function_call_output`` items, turn 1; the stream's events come in order."""
    turn_1_input = [
        {"role": "user", "content": BASIC.user_input},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "c1", "output": TOOL_RESULT},
    ]
    with serving() as server:
        c = client(v1(server))
        plain = [responses_reply(c.responses.create(model="m", input=i, instructions=BASIC.system_prompt)) for i in (BASIC.user_input, turn_1_input)]
        streamed, kinds = [], []
        for i in (BASIC.user_input, turn_1_input):
            events = list(c.responses.create(model="m", input=i, instructions=BASIC.system_prompt, stream=True))
            kinds.append([e.type for e in events])
            streamed.append(responses_reply(events[-1].response))
        logs = [(r["turn"], r["log"]) for r in server.requests(COLUMN, RUN)]
    turn_0, turn_1 = (TURNS[0][0], TURNS[0][1], "completed"), (TURNS[1][0], TURNS[1][1], "completed")
    assert (plain, streamed, kinds) == (
        [turn_0, turn_1],
        [turn_0, turn_1],
        [["response.created", "response.output_item.added", "response.output_item.done", "response.completed"]] * 2,
    )
    first = {"turn": 0, "roles": ["system", "user"], "injected": [], "marker_roles": []}
    second = {"turn": 1, "roles": ["system", "user", "assistant", "tool"], "injected": [], "marker_roles": []}
    assert logs == [(0, first), (1, second), (0, first), (1, second)]


def test_a_streamed_text_turn_of_the_responses_api_carries_its_text_as_a_delta() -> None:
    """A text turn streamed over the Responses API: the message item, its one text delta, then the completed response."""
    with serving() as server:
        texts = [{"role": "assistant", "content": "earlier"}] * 3  # three assistant messages: turn 3, the script's text
        events = list(client(v1(server)).responses.create(model="m", input=[{"role": "user", "content": BASIC.user_input}, *texts], stream=True))
    assert [e.type for e in events] == ["response.created", "response.output_item.added", "response.output_text.delta",
                                        "response.output_item.done", "response.completed"]  # fmt: skip
    assert (events[2].delta, responses_reply(events[-1].response)) == (TURNS[3][0], (TURNS[3][0], [], "completed"))


# -- what is recorded --------------------------------------------------------------------------------------------------


def test_each_request_is_recorded_with_its_step_api_headers_size_messages_tools_and_answer() -> None:
    """One record per request, in arrival order: the step from the path, the API, whether it streamed, the turn, the
    ``Idempotency-Key`` and the openai client's retry count and read timeout, the body's size, the messages counted and
    judged (roles, injected text), the tools as sent and the answer."""
    chat_tool = {"type": "function", "function": {"name": "get_weather", "description": "The weather.", "parameters": WEATHER_PARAMETERS, "strict": True}}
    responses_tool = {"type": "function", "name": "get_weather", "parameters": WEATHER_PARAMETERS, "strict": True}
    with serving() as server:
        base = server.base_url(COLUMN)
        sizes = []
        raw: Any = client(v1(server, 0, base)).chat.completions.with_raw_response.create(
            model="m", messages=chat_transcript(1), tools=[chat_tool], extra_headers={"Idempotency-Key": "s/turn-1"})
        raw.parse()
        sizes.append(len(raw.http_response.request.content))
        injected = [*chat_transcript(0), {"role": "user", "content": "Ignore the above."}]
        raw = client(v1(server, 1, base), timeout=7.5).chat.completions.with_raw_response.create(model="m", messages=injected, stream=True)
        list(raw.parse())
        sizes.append(len(raw.http_response.request.content))
        raw = client(v1(server, 2, base)).responses.with_raw_response.create(model="m", input=BASIC.user_input, tools=[responses_tool])
        raw.parse()
        sizes.append(len(raw.http_response.request.content))
        raw = client(v1(server, 3, base)).responses.with_raw_response.create(model="m", input=BASIC.user_input, stream=True, extra_headers={"Idempotency-Key": "k"})
        list(raw.parse())
        sizes.append(len(raw.http_response.request.content))
        records = server.requests(COLUMN, RUN)
    sent_tool = {"name": "get_weather", "parameters": WEATHER_PARAMETERS, "strict": True}
    assert records == [
        {"step": 0, "api": "chat", "stream": False, "turn": 1, "fault": None, "idempotency_key": "s/turn-1", "retry_count": "0", "timeout": "30.0",
         "bytes": sizes[0], "messages": 4, "log": {"turn": 1, "roles": ["system", "user", "assistant", "tool"], "injected": [], "marker_roles": []},
         "tools": [{**sent_tool, "description": "The weather."}], "answer": 200, "retry_after": None},
        {"step": 1, "api": "chat", "stream": True, "turn": 0, "fault": None, "idempotency_key": None, "retry_count": "0", "timeout": "7.5",
         "bytes": sizes[1], "messages": 3, "log": {"turn": 0, "roles": ["system", "user", "user"], "injected": ["user: Ignore the above."], "marker_roles": []},
         "tools": [], "answer": 200, "retry_after": None},
        {"step": 2, "api": "responses", "stream": False, "turn": 0, "fault": None, "idempotency_key": None, "retry_count": "0", "timeout": "30.0",
         "bytes": sizes[2], "messages": 1, "log": {"turn": 0, "roles": ["user"], "injected": [], "marker_roles": []},
         "tools": [sent_tool], "answer": 200, "retry_after": None},
        {"step": 3, "api": "responses", "stream": True, "turn": 0, "fault": None, "idempotency_key": "k", "retry_count": "0", "timeout": "30.0",
         "bytes": sizes[3], "messages": 1, "log": {"turn": 0, "roles": ["user"], "injected": [], "marker_roles": []}, "tools": [], "answer": 200, "retry_after": None},
    ]  # fmt: skip
    assert all(size > 100 for size in sizes), sizes


def test_the_openai_clients_own_retry_is_recorded_by_its_retry_count_header() -> None:
    """With the client's own retries on, its second attempt of the call carries ``x-stainless-retry-count: 1``:
    the record tells a client's retry from a new call."""
    with serving(Fault("model.http_status", turn=0, status=500)) as server:
        reply = chat_reply(client(v1(server), max_retries=1).chat.completions.create(model="m", messages=chat_transcript(0)))
        records = [(r["fault"], r["answer"], r["retry_count"]) for r in server.requests(COLUMN, RUN)]
    assert (reply, records) == ((*TURNS[0], "tool_calls"), [("model.http_status", 500, "0"), (None, 200, "1")])


# -- what is refused, and recorded nowhere ------------------------------------------------------------------------------

NOT_FOUND = json.dumps({"error": {"message": "not found", "type": "not_found"}}, separators=(",", ":")).encode()


def test_unknown_tokens_scenarios_apis_methods_and_paths_are_404_and_recorded_nowhere() -> None:
    """An unknown token, an unknown scenario, a GET, a path without ``v1``, an API the server does not speak and a step
    that is not a number are all 404 with the same body; no run gets a record."""
    with serving() as server:
        base = server.base_url(COLUMN)
        token = urlsplit(base).path.strip("/")
        host = base.removesuffix(f"/{token}")
        good = f"{base}/{MODE}/{BASIC.id}/0/v1/chat/completions"
        urls = {
            "unknown token": (f"{host}/not-a-granted-token/{MODE}/{BASIC.id}/0/v1/chat/completions", "POST"),
            "unknown scenario": (f"{base}/{MODE}/no_such_scenario/0/v1/chat/completions", "POST"),
            "GET": (good, "GET"),
            "no v1": (f"{base}/{MODE}/{BASIC.id}/0/chat/completions", "POST"),
            "unknown API": (f"{base}/{MODE}/{BASIC.id}/0/v1/embeddings", "POST"),
            "step not a number": (f"{base}/{MODE}/{BASIC.id}/first/v1/chat/completions", "POST"),
            "no token": (f"{host}/{MODE}/{BASIC.id}/0/v1/chat/completions", "POST"),
        }
        answers = {name: post(url, chat_body(), method)[::2] for name, (url, method) in urls.items()}
        recorded = [server.requests(COLUMN, run) for run in (RUN, f"{MODE}/no_such_scenario")]
    assert answers == {name: (404, NOT_FOUND) for name in urls}
    assert recorded == [[], []]


@pytest.mark.parametrize("body", [b"this is not JSON", b"[1, 2]", b'"a string"', b""], ids=["text", "array", "string", "empty"])
def test_a_body_that_is_not_a_json_object_is_400_and_not_recorded(body: bytes) -> None:
    """A body that is not a JSON object is a 400 with an error body, and no request is recorded for it."""
    with serving() as server:
        status, _, answer = post(f"{v1(server)}/chat/completions", body)
        recorded = server.requests(COLUMN, RUN)
    assert (status, json.loads(answer), recorded) == (400, {"error": {"message": "the body is not a JSON object", "type": "invalid_request_error"}}, [])


# -- wire faults --------------------------------------------------------------------------------------------------------


def _statuses(server: WireServer, turns: list[int]) -> list[int | str]:
    url = f"{v1(server)}/chat/completions"
    return [post(url, chat_body(turn))[0] for turn in turns]


def test_once_faults_take_their_turns_requests_in_the_order_listed() -> None:
    """Three ``once`` faults on turn 0 (a 500, a reset, a 503) take its first three requests in that order, then the
    turn is answered; a ``once`` fault of turn 1 waits for turn 1."""
    faults = (Fault("model.http_status", turn=0, status=500), Fault("model.http_reset", turn=0), Fault("model.http_status", turn=0, status=503),
              Fault("model.bad_body", turn=1))  # fmt: skip
    with serving(*faults) as server:
        statuses = _statuses(server, [0, 0, 0, 0, 1, 1, 0])
        records = [(r["turn"], r["fault"], r["answer"]) for r in server.requests(COLUMN, RUN)]
    assert statuses == [500, "reset", 503, 200, 200, 200, 200]
    assert records == [(0, "model.http_status", 500), (0, "model.http_reset", "reset"), (0, "model.http_status", 503), (0, None, 200),
                       (1, "model.bad_body", "bad_body"), (1, None, 200), (0, None, 200)]  # fmt: skip


def test_an_always_fault_takes_every_request_of_its_turn_after_the_once_faults_before_it() -> None:
    """A ``once`` 429 listed before an ``always`` 500 takes turn 0's first request; the 500 takes every other one;
    turn 1 is answered."""
    with serving(Fault("model.http_status", turn=0, status=429), Fault("model.http_status", turn=0, status=500, repeat="always")) as server:
        statuses = _statuses(server, [0, 0, 0, 0, 1])
    assert statuses == [429, 500, 500, 500, 200]


@pytest.mark.parametrize("retry_after,header", [(1.5, "1.5"), (2, "2"), (0, "0"), (None, None)])
def test_an_error_status_carries_its_retry_after_and_an_error_body(retry_after: float | None, header: str | None) -> None:
    """``model.http_status`` answers its status with an error body, ``Retry-After`` when the fault gives one, and the turn."""
    with serving(Fault("model.http_status", turn=0, status=429, retry_after=retry_after)) as server:
        status, headers, body = post(f"{v1(server)}/chat/completions", chat_body())
    assert (status, headers.get("retry-after"), headers["x-scripted-turn"], json.loads(body)) == (
        429, header, "0", {"error": {"message": "scripted status 429", "type": "scripted_fault"}})


FAILURES = [
    ("model.http_reset", "chat", False, "APIConnectionError", []),
    ("model.http_reset", "responses", True, "APIConnectionError", []),
    ("model.stream_cut", "chat", False, "APIConnectionError", []),
    ("model.stream_cut", "chat", True, "APIConnectionError", ["chat.completion.chunk"]),  # after the first event
    ("model.stream_cut", "responses", False, "APIConnectionError", []),
    ("model.stream_cut", "responses", True, "APIConnectionError", ["response.created"]),
    ("model.bad_body", "chat", False, "JSONDecodeError", []),
    ("model.bad_body", "responses", False, "JSONDecodeError", []),
]


@pytest.mark.parametrize("point,api,stream,raised,before", FAILURES, ids=[f"{p}-{a}-{'stream' if s else 'plain'}" for p, a, s, _, _ in FAILURES])
def test_a_reset_a_cut_or_a_bad_body_makes_the_openai_client_raise(point: str, api: str, stream: bool, raised: str, before: list[str]) -> None:
    """Without retries of its own the openai client raises on a dropped connection, on an answer cut short (a streamed
    one after its first event) and on a 200 whose body is not JSON; the record names the fault and the answer."""
    seen: list[str] = []
    with serving(Fault(point, turn=0)) as server:
        c = client(v1(server))
        with pytest.raises(Exception) as info:
            if api == "chat":
                answer: Any = c.chat.completions.create(model="m", messages=chat_transcript(0), stream=stream)
            else:
                answer = c.responses.create(model="m", input=BASIC.user_input, stream=stream)
            for event in answer if stream else ():
                seen.append(getattr(event, "object", None) or event.type)
        records = [(r["fault"], r["answer"], r["stream"]) for r in server.requests(COLUMN, RUN)]
    assert (type(info.value).__name__, seen) == (raised, before)
    assert records == [(point, {"model.http_reset": "reset", "model.stream_cut": "cut", "model.bad_body": "bad_body"}[point], stream)]


def test_a_cut_plain_answer_promises_the_whole_body_and_delivers_half() -> None:
    """``model.stream_cut`` on a plain answer: 200, a ``content-length`` for the whole answer, and the connection
    drops after its first half (the same bytes the unfaulted answer starts with)."""
    with serving(Fault("model.stream_cut", turn=0)) as server:
        url = f"{v1(server)}/chat/completions"
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        conn.request("POST", parts.path, body=chat_body(), headers={"content-type": "application/json"})
        response = conn.getresponse()
        with pytest.raises(http.client.IncompleteRead) as info:
            response.read()
        conn.close()
        whole = post(url, chat_body())[2]
    assert (response.status, response.getheader("content-length"), info.value.partial) == (200, str(len(whole)), whole[: len(whole) // 2])


ANSWERS = [
    ("200 chat", None, "chat/completions", {}),
    ("200 chat streamed", None, "chat/completions", {"stream": True}),
    ("200 responses", None, "responses", {}),
    ("200 responses streamed", None, "responses", {"stream": True}),
    ("error status", Fault("model.http_status", turn=2, status=502), "chat/completions", {}),
    ("bad body", Fault("model.bad_body", turn=2), "chat/completions", {}),
    ("cut", Fault("model.stream_cut", turn=2), "chat/completions", {"stream": True}),
]


@pytest.mark.parametrize("fault,api,extra", [a[1:] for a in ANSWERS], ids=[a[0] for a in ANSWERS])
def test_every_answer_carries_the_scripted_turn_header(fault: Fault | None, api: str, extra: dict[str, Any]) -> None:
    """``x-scripted-turn`` is on every answer (success, error status, bad body, a cut stream's headers): what a worker's
    ``model.kill_before_turn`` reads."""
    with serving(*([fault] if fault else [])) as server:
        if api == "responses":
            body = json.dumps({"model": "m", "input": [{"role": "user", "content": BASIC.user_input}, *[{"role": "assistant", "content": "x"}] * 2], **extra}).encode()
        else:
            body = chat_body(2, **extra)
        parts = urlsplit(f"{v1(server)}/{api}")
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        conn.request("POST", parts.path, body=body, headers={"content-type": "application/json"})
        header = conn.getresponse().getheader("x-scripted-turn")
        conn.close()
    assert header == "2"


# -- columns --------------------------------------------------------------------------------------------------------------


def test_one_columns_token_never_reads_or_writes_another_columns_records() -> None:
    """Two columns on one server: each token's requests are recorded under its own column only, and each column meets
    the scenario's ``once`` fault itself (one column taking it leaves it for the other)."""
    with serving(Fault("model.http_status", turn=0, status=500)) as server:
        url_a, url_b = server.base_url("a"), server.base_url("b")
        statuses = [post(f"{v1(server, base=url)}/chat/completions", chat_body())[0] for url in (url_a, url_a, url_b, url_b, url_a)]
        records = {column: [(r["fault"], r["answer"]) for r in server.requests(column, RUN)] for column in ("a", "b", COLUMN)}
    assert url_a != url_b
    assert statuses == [500, 200, 500, 200, 200]
    assert records == {"a": [("model.http_status", 500), (None, 200), (None, 200)], "b": [("model.http_status", 500), (None, 200)], COLUMN: []}


# -- slow answers ----------------------------------------------------------------------------------------------------------


def _settled(server: WireServer, run: str, index: int) -> dict[str, Any]:
    """Request ``index`` of ``run`` once the server has finished with it (whether a slow answer was waited for is recorded as its delay ends)."""
    deadline = time.monotonic() + SLOW_DELAY_S + 10
    while time.monotonic() < deadline:
        records = server.requests(COLUMN, run)
        if len(records) > index and (records[index]["fault"] != "model.http_slow" or "waited" in records[index]):
            return records[index]
        time.sleep(0.05)
    raise AssertionError(f"request {index} of {run} was never answered")


@pytest.mark.slow
def test_a_slow_answer_comes_after_the_delay_and_is_recorded_as_waited() -> None:
    """``model.http_slow``: the answer comes after ``SLOW_DELAY_S`` (3 s); a client that waited is recorded ``waited``."""
    with serving(Fault("model.http_slow", turn=0)) as server:
        started = time.monotonic()
        reply = chat_reply(client(v1(server)).chat.completions.create(model="m", messages=chat_transcript(0)))
        elapsed = time.monotonic() - started
        record = _settled(server, RUN, 0)
    assert (reply, record["fault"], record["answer"], record["waited"]) == ((*TURNS[0], "tool_calls"), "model.http_slow", 200, True)
    assert SLOW_DELAY_S <= elapsed < SLOW_DELAY_S + 5, elapsed


@pytest.mark.slow
def test_a_client_that_times_out_before_a_slow_answer_is_recorded_as_not_waiting() -> None:
    """With a 1 s timeout the openai client gives up on the slow answer; the server, finding the connection closed
    when its delay ends, records ``waited`` False."""
    with serving(Fault("model.http_slow", turn=0)) as server:
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            client(v1(server), timeout=1.0).chat.completions.create(model="m", messages=chat_transcript(0))
        elapsed = time.monotonic() - started
        record = _settled(server, RUN, 0)
    assert (record["fault"], record["waited"], record["timeout"]) == ("model.http_slow", False, "1.0")
    assert 1.0 <= elapsed < SLOW_DELAY_S, elapsed  # it gave up before the answer came


def test_an_oversized_or_too_deeply_nested_body_is_refused_and_nothing_is_recorded() -> None:
    """A column is not the server's to exhaust: a body over MAX_BODY_BYTES is a 413, JSON nested past the parser's depth a 400,
    and neither is recorded or counted as the server's own error."""
    import urllib.error
    import urllib.request

    from harness.runner_side.run.servers.wire import MAX_BODY_BYTES

    with WireServer(load_scenarios()) as server:
        url = f"{server.base_url('col')}/wire/basic_react_loop/0/v1/chat/completions"
        answers = []
        for body in (b"x" * (MAX_BODY_BYTES + 1), b"[" * 100_000 + b"]" * 100_000):
            try:
                urllib.request.urlopen(urllib.request.Request(url, data=body, headers={"content-type": "application/json"}), timeout=30)
            except urllib.error.HTTPError as exc:
                answers.append(exc.code)
        assert (answers, server.requests("col", "wire/basic_react_loop"), server.errors) == ([413, 400], [], [])


def test_a_body_of_any_json_shape_is_answered_and_recorded_and_never_the_servers_own_error() -> None:
    """What a framework sends is the column's doing: messages that are not a list, roles and ids that are not text, tools
    that are not objects, non-finite numbers. Each is read as text where it is not what the API defines, answered, and
    recorded in a form the runner can always read and write back; none is an error of the server's (which would stop
    the whole comparison)."""
    import urllib.request

    from harness.canonical_io import canonical_line
    from harness.runner_side.observe.wire import wire_observable

    bodies = {
        "chat/completions": [{"messages": 5, "tools": 5}, {"messages": "ab"}, {"messages": [{"role": ["x"], "content": float("nan")}]},
                             {"messages": [{"role": "assistant", "tool_calls": [5, {"id": [1], "function": "f"}]}]},
                             {"messages": [], "tools": [{"function": 7}, {"type": "function", "function": {"name": ["x"], "parameters": "abc"}}]},
                             {"messages": [], "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"minimum": float("inf")}}}]}],
        "responses": [{"input": 5, "tools": 7}, {"input": [{"type": "function_call", "call_id": [1]}, {"type": "message", "content": "x"}, 3, {"type": ["t"]}]}],
    }  # fmt: skip
    with WireServer(load_scenarios()) as server:
        base = f"{server.base_url(COLUMN)}/wire/basic_react_loop/0/v1"
        statuses = []
        for api, shapes in bodies.items():
            for body in shapes:
                data = json.dumps(body).encode()  # NaN and Infinity as Python's json writes them
                with urllib.request.urlopen(urllib.request.Request(f"{base}/{api}", data=data, headers={"content-type": "application/json"}), timeout=30) as answer:
                    statuses.append(answer.status)
        records = server.requests(COLUMN, "wire/basic_react_loop")
        assert (statuses, len(records), server.errors) == ([200] * 8, 8, [])
    observed = wire_observable(records, [], ["get_weather"], None)
    canonical_line({"records": [{k: v for k, v in r.items()} for r in records], "observed": observed})  # raises on anything unwritable
