"""The ``wire`` observable (``harness.runner_side.observe.wire``): what a column's model client did on the wire,
computed from the scripted server's own records. The records come from the real server over real HTTP (the engine's
wire model or the openai client asking); the label and schema rules are also shown on small records and schemas."""

from __future__ import annotations

import copy
import http.client
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import openai
import pytest

from handwritten.model import ModelUnavailable
from handwritten.tools import ToolRegistry
from handwritten.wire_model import OpenAIWireModel, WirePolicy
from harness.column_side.fixtures.world import FixtureWorld
from harness.fixture_tools import FIXTURE_TOOLS
from harness.records import StepRecord
from harness.runner_side.observe.wire import answer_label, wire_observable
from harness.runner_side.run.servers.wire import WireServer
from harness.scenarios import SLOW_DELAY_S, Fault, Scenario, load_scenarios
from harness.schema_diff import schema_diff, schema_diffs

WEATHER = {s.id: s for s in load_scenarios()}["wire_http_500_once"]  # tools: get_weather; turn 0: c1 get_weather; turn 1: text
MODE = "wire"
COLUMN = "col"
RUN = f"{MODE}/{WEATHER.id}"
SESSION = WEATHER.session_id
OPENING = [{"role": "system", "content": WEATHER.system_prompt}, {"role": "user", "content": WEATHER.user_input}]
TURN_1 = [*OPENING, {"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"city":"Paris"}'}]  # fmt: skip


@contextmanager
def serving(*faults: Fault, scenario: Scenario = WEATHER) -> Iterator[tuple[WireServer, str]]:
    with WireServer([replace(scenario, faults=faults)]) as server:
        yield server, server.base_url(COLUMN)
        assert server.errors == []


def url(base: str, step: int) -> str:
    return f"{base}/{MODE}/{WEATHER.id}/{step}/v1"


def step(index: int, status: str, action: str = "run") -> StepRecord:
    return StepRecord(index=index, action=action, status=status, session_status=status)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[FixtureWorld]:
    """The fixture world whose registry gives the engine's tools (nothing is called on it here)."""
    made = FixtureWorld(tmp_path, [], may_kill=False)
    yield made
    made.close()


def registry_tools(world: FixtureWorld) -> list[dict[str, Any]]:
    return ToolRegistry(world.tool_specs(list(WEATHER.tools))).openai_tools()


# -- calls, attempts, keys, gave_up ------------------------------------------------------------------------------------


def test_the_engines_model_gives_calls_grouped_by_step_and_turn_with_what_each_attempt_met(world: FixtureWorld) -> None:
    """The wire model asks turn 0 (a 500, then answered) and turn 1 (500 every time) in step 0, and turn 1 again in
    step 1: three calls, each with its answers and one key; the two calls whose last attempt failed are ``gave_up``
    with their step's status; every request carried a key, none was the HTTP client's own retry, every one announced the
    contract's 5 s read timeout; the registry's schema went out as it is."""
    faults = (Fault("model.http_status", turn=0, status=500), Fault("model.http_status", turn=1, status=500, repeat="always"))
    with serving(*faults) as (server, base):
        model = OpenAIWireModel(url(base, 0), session_id=SESSION, sleep=lambda s: None)
        model.complete(OPENING, registry_tools(world))
        with pytest.raises(ModelUnavailable):
            model.complete(TURN_1, registry_tools(world))
        with pytest.raises(ModelUnavailable):
            OpenAIWireModel(url(base, 1), session_id=SESSION, sleep=lambda s: None).complete(TURN_1, registry_tools(world))
        requests = server.requests(COLUMN, RUN)
    steps = [step(0, "model_unavailable"), step(1, "model_unavailable", "resume")]
    objects = {spec.name: spec.input_schema for spec in world.tool_specs(list(WEATHER.tools))}  # the engine's own tool objects
    assert wire_observable(requests, steps, WEATHER.tools, objects) == {
        "calls": [
            {"step": 0, "turn": 0, "answers": ["500", "200"], "keys": "same"},
            {"step": 0, "turn": 1, "answers": ["500", "500", "500"], "keys": "same"},
            {"step": 1, "turn": 1, "answers": ["500", "500", "500"], "keys": "same"},
        ],
        "attempts": 8,
        "client_retries": 0,
        "idempotency_key_sent": True,
        "read_timeout": ["5.0"],
        "gave_up": [
            {"step": 0, "turn": 1, "attempts": 3, "status": "model_unavailable"},
            {"step": 1, "turn": 1, "attempts": 3, "status": "model_unavailable"},
        ],
        "schema_diff": {tool: {"declared": {}, "rewritten": {}} for tool in WEATHER.tools},
    }


def test_keys_are_varied_or_none_when_a_client_sends_them_so_and_the_first_tools_sent_are_compared() -> None:
    """A client that changes its ``Idempotency-Key`` between attempts of one call is ``varied``; one that sends none is
    ``none`` and makes ``idempotency_key_sent`` false; a reset and a cut are attempts that got no answer; the tools
    compared are those of the first request that sent any (here marked strict)."""
    strict_weather = {"type": "function", "function": {"name": "get_weather", "parameters": FIXTURE_TOOLS["get_weather"].schema, "strict": True}}
    faults = (Fault("model.http_reset", turn=0), Fault("model.stream_cut", turn=1, repeat="always"))
    with serving(*faults) as (server, base):
        client = openai.OpenAI(base_url=url(base, 0), api_key="not-a-key", max_retries=0, timeout=30.0)
        for key in ("k-1", "k-2"):  # turn 0: a reset, then an answer, under two keys
            try:
                client.chat.completions.create(model="m", messages=OPENING, tools=[strict_weather] if key == "k-2" else [], extra_headers={"Idempotency-Key": key})
            except openai.APIConnectionError:
                pass
        for _ in range(2):  # turn 1: cut twice, no key
            with pytest.raises(openai.APIConnectionError):
                client.chat.completions.create(model="m", messages=TURN_1)
        requests = server.requests(COLUMN, RUN)
    assert wire_observable(requests, [step(0, "error")], ["get_weather"], registry(["get_weather"])) == {
        "calls": [{"step": 0, "turn": 0, "answers": ["reset", "200"], "keys": "varied"}, {"step": 0, "turn": 1, "answers": ["cut", "cut"], "keys": "none"}],
        "attempts": 4,
        "client_retries": 0,
        "idempotency_key_sent": False,
        "read_timeout": ["30.0"],
        "gave_up": [{"step": 0, "turn": 1, "attempts": 2, "status": "error"}],
        "schema_diff": {"get_weather": {"declared": {}, "rewritten": {"strict": True}}},
    }


def test_the_http_clients_own_retries_and_the_read_timeouts_it_announced_are_counted() -> None:
    """The openai client with retries of its own (``max_retries=2``) meets a 500 and a 502 (each with a short
    ``Retry-After``): its two retries are ``client_retries``; a bare request without the client's headers adds
    ``"none"`` to the read timeouts announced."""
    faults = (Fault("model.http_status", turn=0, status=500, retry_after=0.01), Fault("model.http_status", turn=0, status=502, retry_after=0.01))
    with serving(*faults) as (server, base):
        client = openai.OpenAI(base_url=url(base, 0), api_key="not-a-key", max_retries=2, timeout=20.0)
        client.chat.completions.create(model="m", messages=TURN_1[:2])
        parts = urlsplit(f"{url(base, 1)}/chat/completions")
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        conn.request("POST", parts.path, body=json.dumps({"messages": TURN_1}), headers={"content-type": "application/json"})
        status = conn.getresponse().status
        conn.close()
        requests = server.requests(COLUMN, RUN)
    assert (status, [r["retry_count"] for r in requests]) == (200, ["0", "1", "2", None])
    assert wire_observable(requests, [step(0, "completed"), step(1, "completed")], [], {}) == {
        "calls": [{"step": 0, "turn": 0, "answers": ["500", "502", "200"], "keys": "none"}, {"step": 1, "turn": 1, "answers": ["200"], "keys": "none"}],
        "attempts": 4,
        "client_retries": 2,
        "idempotency_key_sent": False,
        "read_timeout": ["20.0", "none"],
        "gave_up": [],
        "schema_diff": {},
    }


def test_outside_the_wire_mode_the_observable_is_na_and_a_wire_run_without_requests_sent_nothing() -> None:
    """No records (an in-process run) is ``"n/a"``; a wire run whose client never asked has no calls, sent no key and
    sent none of the offered tools."""
    assert wire_observable(None, [step(0, "completed")], ["get_weather"], None) == "n/a"
    assert wire_observable([], [step(0, "error")], ["get_weather", "search_kb"], registry(["get_weather", "search_kb"])) == {
        "calls": [],
        "attempts": 0,
        "client_retries": 0,
        "idempotency_key_sent": False,
        "read_timeout": [],
        "gave_up": [],
        "schema_diff": {tool: {"declared": {}, "rewritten": {}, "not_sent": True} for tool in ("get_weather", "search_kb")},
    }


# -- answer labels ----------------------------------------------------------------------------------------------------


LABELS = [
    ({"fault": None, "answer": 200}, "200"),
    ({"fault": "model.http_status", "answer": 503}, "503"),
    ({"fault": "model.http_reset", "answer": "reset"}, "reset"),
    ({"fault": "model.stream_cut", "answer": "cut"}, "cut"),
    ({"fault": "model.bad_body", "answer": "bad_body"}, "bad_body"),
    ({"fault": "model.http_slow", "answer": 200, "waited": True}, "slow:waited"),
    ({"fault": "model.http_slow", "answer": 200, "waited": False}, "slow:gave_up"),
    ({"fault": "model.http_slow"}, "slow:gave_up"),  # read while the server still sleeps: nobody waited it out yet
]


@pytest.mark.parametrize("record,label", LABELS, ids=[label for _, label in LABELS][:-1] + ["slow, still sleeping"])
def test_each_answer_is_labelled_as_the_client_met_it(record: dict[str, Any], label: str) -> None:
    """The answer as text; a slow answer is ``slow:waited`` when the client waited the whole delay, else ``slow:gave_up``."""
    assert answer_label(record) == label


@pytest.mark.slow
def test_a_slow_answer_is_waited_by_a_patient_client_and_given_up_by_one_with_a_short_timeout(world: FixtureWorld) -> None:
    """The wire model with a 1 s read timeout gives up on the slow answer and retries (``slow:gave_up``, then 200: not
    gave_up); with its default 5 s it waits the 3 s out (``slow:waited`` counts as answered)."""
    with serving(Fault("model.http_slow", turn=0), Fault("model.http_slow", turn=1)) as (server, base):
        OpenAIWireModel(url(base, 0), session_id=SESSION, policy=WirePolicy(read_timeout_s=1.0), sleep=lambda s: None).complete(OPENING, registry_tools(world))
        OpenAIWireModel(url(base, 0), session_id=SESSION, sleep=lambda s: None).complete(TURN_1, registry_tools(world))
        deadline = time.monotonic() + SLOW_DELAY_S + 10
        while "waited" not in server.requests(COLUMN, RUN)[0] and time.monotonic() < deadline:  # the first slow answer ends later
            time.sleep(0.05)
        requests = server.requests(COLUMN, RUN)
    observed = wire_observable(requests, [step(0, "completed")], WEATHER.tools, registry(WEATHER.tools))
    assert (observed["calls"], observed["gave_up"]) == (
        [{"step": 0, "turn": 0, "answers": ["slow:gave_up", "200"], "keys": "same"}, {"step": 0, "turn": 1, "answers": ["slow:waited"], "keys": "same"}],
        [],
    )


# -- schema diffs -------------------------------------------------------------------------------------------------------


def registry(names: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """Tool objects that carry the registry's schemas as they are (as the engine's do)."""
    return {name: FIXTURE_TOOLS[name].schema for name in names}


def weather(**changes: Any) -> dict[str, Any]:
    """The registry's get_weather schema with top-level ``changes`` (a value of None drops the key)."""
    schema = copy.deepcopy(FIXTURE_TOOLS["get_weather"].schema)
    for key, value in changes.items():
        if value is None:
            schema.pop(key)
        else:
            schema[key] = value
    return schema


def city(**changes: Any) -> dict[str, Any]:
    """The registry's get_weather schema with its ``city`` property changed the same way."""
    schema = weather()
    for key, value in changes.items():
        if value is None:
            schema["properties"]["city"].pop(key)
        else:
            schema["properties"]["city"][key] = value
    return schema


SCHEMAS = [
    ("identical", "get_weather", {"name": "get_weather", "parameters": weather()}, {}),
    ("made required", "list_orders",
     {"name": "list_orders", "parameters": {**FIXTURE_TOOLS["list_orders"].schema, "required": ["username"]}}, {"required": ["username"]}),
    ("marked strict", "get_weather", {"name": "get_weather", "parameters": weather(), "strict": True}, {"strict": True}),
    ("strict false is no difference", "get_weather", {"name": "get_weather", "parameters": weather(), "strict": False},
     {}),
    ("additionalProperties dropped", "get_weather", {"name": "get_weather", "parameters": weather(additionalProperties=None)},
     {"dropped": ["/additionalProperties"]}),
    ("title added", "get_weather", {"name": "get_weather", "parameters": weather(title="GetWeatherArgs")}, {"added": ["/title"]}),
    ("type changed", "get_weather", {"name": "get_weather", "parameters": city(type=["string", "null"])}, {"changed": ["/properties/city/type"]}),
    ("minLength dropped", "get_weather", {"name": "get_weather", "parameters": city(minLength=None)}, {"dropped": ["/properties/city/minLength"]}),
    ("minLength moved to the description by name", "get_weather", {"name": "get_weather", "parameters": city(minLength=None, description="The city (minLength=1)")},
     {"added": ["/properties/city/description"], "dropped": ["/properties/city/minLength"], "moved_to_text": ["/properties/city/minLength"]}),
    ("minLength moved to the description by value", "get_weather", {"name": "get_weather", "parameters": city(minLength=None, description="At least 1 character.")},
     {"added": ["/properties/city/description"], "dropped": ["/properties/city/minLength"], "moved_to_text": ["/properties/city/minLength"]}),
    ("a description without the constraint", "get_weather", {"name": "get_weather", "parameters": city(minLength=None, description="The city's name.")},
     {"added": ["/properties/city/description"], "dropped": ["/properties/city/minLength"]}),
    ("never sent", "search_kb", {"name": "get_weather", "parameters": weather()}, None),
]  # fmt: skip


@pytest.mark.parametrize("offered,sent,rewritten", [c[1:] for c in SCHEMAS], ids=[c[0] for c in SCHEMAS])
def test_a_tool_as_sent_is_compared_with_its_tool_objects_schema(offered: str, sent: dict[str, Any], rewritten: dict[str, Any] | None) -> None:
    """Per offered tool whose object carries the registry's schema (``declared`` empty): ``rewritten`` empty when sent as
    the object has it; else the JSON pointers added, dropped or changed, the properties made required, the constraints
    moved into a description, ``strict``; a tool never sent (None here) is ``not_sent``."""
    expected = {"declared": {}, "rewritten": rewritten} if rewritten is not None else {"declared": {}, "rewritten": {}, "not_sent": True}
    assert schema_diffs([offered], [sent], registry([offered])) == {offered: expected}


def test_what_the_declaration_loses_and_what_sending_changes_are_told_apart() -> None:
    """A tool object that lost ``minLength`` and ``additionalProperties`` where it was declared and is sent as it is has
    a ``declared`` part only (``rewritten`` empty); an object that kept them, sent with ``minLength`` moved into the
    description, has a ``rewritten`` part only; an object that lost the constraint and stated it in its own description is ``declared``
    with ``moved_to_text``."""
    lossy = weather(additionalProperties=None)
    lossy["properties"]["city"].pop("minLength")
    assert schema_diffs(["get_weather"], [{"name": "get_weather", "parameters": lossy}], {"get_weather": lossy}) == {
        "get_weather": {"declared": {"dropped": ["/additionalProperties", "/properties/city/minLength"]}, "rewritten": {}}
    }
    moved = city(minLength=None, description="At least 1 character.")
    assert schema_diffs(["get_weather"], [{"name": "get_weather", "parameters": moved}], registry(["get_weather"])) == {
        "get_weather": {"declared": {}, "rewritten": {"added": ["/properties/city/description"], "dropped": ["/properties/city/minLength"],
                                      "moved_to_text": ["/properties/city/minLength"]}}
    }  # fmt: skip
    assert schema_diffs(["get_weather"], [{"name": "get_weather", "parameters": moved}], {"get_weather": moved}) == {
        "get_weather": {"declared": {"added": ["/properties/city/description"], "dropped": ["/properties/city/minLength"],
                                     "moved_to_text": ["/properties/city/minLength"]}, "rewritten": {}}
    }  # fmt: skip


def test_a_tool_without_a_reported_object_is_compared_with_the_registry_and_says_so() -> None:
    """No tool object reported (None, or not for this tool): ``declared`` says ``not reported`` and ``rewritten`` compares
    the registry with what was sent; a tool never sent keeps its ``declared`` part beside ``not_sent``."""
    sent = [{"name": "get_weather", "parameters": weather(additionalProperties=None)}]
    expected = {"declared": "not reported", "rewritten": {"dropped": ["/additionalProperties"]}}
    assert schema_diffs(["get_weather"], sent, None) == {"get_weather": expected}
    assert schema_diffs(["get_weather"], sent, {"search_kb": FIXTURE_TOOLS["search_kb"].schema}) == {"get_weather": expected}
    assert schema_diffs(["search_kb"], sent, {"search_kb": {"type": "object"}}) == {
        "search_kb": {"declared": {"dropped": ["/additionalProperties", "/properties", "/required"]}, "rewritten": {}, "not_sent": True}
    }


def test_a_framework_style_strict_rewrite_shows_every_difference_at_once() -> None:
    """A rewrite as strict-mode tooling does it (every property required, an optional one made nullable, a title, the
    tool marked strict) for put_note."""
    sent = copy.deepcopy(FIXTURE_TOOLS["put_note"].schema)
    sent["required"] = ["key", "text", "priority"]
    sent["properties"]["priority"]["type"] = ["integer", "null"]
    sent["title"] = "PutNote"
    assert schema_diffs(["put_note"], [{"name": "put_note", "parameters": sent, "strict": True}], registry(["put_note"])) == {
        "put_note": {"declared": {}, "rewritten": {"added": ["/title"], "changed": ["/properties/priority/type"], "required": ["priority"], "strict": True}}
    }


def test_a_digit_of_another_number_in_the_description_is_not_the_dropped_constraints_value() -> None:
    """A dropped ``minLength`` (1) with a description that merely holds the digit 1 inside another number ("2014")
    was dropped, not moved to the text: the description does not state the constraint."""
    assert schema_diff(FIXTURE_TOOLS["get_weather"].schema, city(minLength=None, description="As spelled in the 2014 atlas.")) == {
        "added": ["/properties/city/description"],
        "dropped": ["/properties/city/minLength"],
    }


def test_a_turn_asked_again_after_an_answer_is_another_call_not_a_retry() -> None:
    """Only failed attempts belong to one logical call: a framework that asks for a turn it already got (a re-ask) makes a
    new call, so re-asks never read as retries stacked past the contract's 3 attempts."""
    def request(turn: int, answer: object) -> dict[str, object]:
        return {"step": 0, "turn": turn, "answer": answer, "fault": None, "idempotency_key": None, "retry_count": "0", "timeout": None, "tools": []}

    sent = [request(0, 500), request(0, 200), request(1, 200), request(1, 200), request(1, 503), request(1, 200)]
    calls = wire_observable(sent, [], [], {})["calls"]
    assert [(c["turn"], c["answers"]) for c in calls] == [(0, ["500", "200"]), (1, ["200"]), (1, ["200"]), (1, ["503", "200"])]
