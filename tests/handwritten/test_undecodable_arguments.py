"""Arguments text the engine cannot decode or parse, at any depth, or that holds a lone surrogate: invalid arguments
handed back to the model as a tool result it can correct, and the run goes on; never an ``error``, never a crash.

The model is the project's scripted model (``tests/handwritten/rig.py``); the column-level test runs the hand-written
column on the committed ``malformed_args_not_json`` scenario with its first call's text replaced."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from adapters.handwritten.column import HandwrittenColumn
from handwritten.approvals import ApprovalAuthority, Refusal
from handwritten.canonical import canonical_json
from handwritten.events import Event, SchemaRejected, ToolResult
from handwritten.schema import MAX_NESTING, TOO_DEEP, ArgsValidator
from harness.canonical_io import canonical_line
from harness.column_side.column_main import run_raw
from harness.fixture_tools import FIXTURE_TOOLS
from harness.runner_side.observe.observation import observation
from harness.scenarios import load_expectations, load_scenarios
from tests.handwritten.rig import SESSION, USER_INPUT

SURROGATE = "city: holds a lone surrogate, which is not Unicode text"
NOT_JSON = "(arguments): not valid JSON: Expecting value"
# case id -> (the model's arguments text for get_weather, the one error the model is handed back)
TEXTS: dict[str, tuple[str, str]] = {
    "arrays opened 100,000 deep": ("[" * 100_000, TOO_DEEP),
    "objects opened 100,000 deep": ('{"city":' * 100_000, TOO_DEEP),
    "arrays nested 5,000 deep and closed (valid JSON)": ("[" * 5_000 + "]" * 5_000, TOO_DEEP),
    "one level past the bound": ('{"city": ' + "[" * MAX_NESTING + "]" * MAX_NESTING + "}", TOO_DEEP),
    "a lone surrogate escape in a value": ('{"city": "\\ud800"}', SURROGATE),
    "a lone surrogate character in a value": ('{"city": "Par\udcffis"}', SURROGATE),
    "a lone low surrogate escape after text": ('{"city": "Paris\\udfff"}', SURROGATE),
    "a lone surrogate escape in a key": ('{"city": "Paris", "\\udc00": 1}', "\\udc00: holds a lone surrogate, which is not Unicode text"),
    "a lone surrogate in a nested value": ('{"city": ["Oslo", {"x": "\\ud83d"}]}', "city.1.x: holds a lone surrogate, which is not Unicode text"),
    "a lone surrogate outside any string": ('{"city": \udc80}', NOT_JSON),
}
CORRECTED = {"tool_calls": [{"id": "c2", "name": "get_weather", "arguments": {"city": "Paris"}}]}
PARIS = canonical_json({"city": "Paris", "forecast": "sunny", "temp_c": 1})


def _script(text: Any) -> list[dict[str, Any]]:
    return [{"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": text}]}, CORRECTED, {"text": "It is sunny in Paris."}]


def _invalid(error: str) -> str:
    return canonical_json({"error": "invalid arguments", "details": [error]})


@pytest.mark.parametrize("store", ["memory", "sqlite"])
@pytest.mark.parametrize("text,error", list(TEXTS.values()), ids=list(TEXTS))
def test_arguments_the_engine_cannot_read_are_handed_back_and_the_run_goes_on(make_rig, store: str, text: str, error: str) -> None:
    rig = make_rig(_script(text), ["get_weather"], store=store)
    result = rig.engine.run(SESSION, USER_INPUT, "e1")
    tool_messages = [m for m in result.state.messages if m["role"] == "tool"]
    assert (result.status, result.final_text) == ("completed", "It is sunny in Paris.")
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages] == [("c1", _invalid(error)), ("c2", PARIS)]
    assert [e for e in rig.trace if isinstance(e, SchemaRejected | ToolResult)] == [
        SchemaRejected("c1", "get_weather", (error,)),
        ToolResult("c1", "get_weather", "error", _invalid(error)),
        ToolResult("c2", "get_weather", "ok", PARIS),
    ]
    assert rig.model_turns_asked() == [0, 1, 2]  # the model saw its invalid call answered and corrected it
    assert "c1" not in rig.ledger()  # the tool was never entered
    # the transcript keeps the text the model sent, and the checkpoint holds it as it was
    assert result.state.messages[1]["tool_calls"][0]["function"]["arguments"] == text
    assert rig.restart().resume(SESSION).state == result.state


@pytest.mark.parametrize("text,error", list(TEXTS.values()), ids=list(TEXTS))
def test_the_trace_of_such_a_run_is_valid_utf8_and_reads_back_as_it_was(make_rig, text: str, error: str) -> None:
    rig = make_rig(_script(text), ["get_weather"])
    rig.engine.run(SESSION, USER_INPUT, "e1")
    lines = [canonical_line(event.to_json()) for event in rig.trace]
    assert [Event.from_json(json.loads(line.encode("utf-8").decode("utf-8"))) for line in lines] == rig.trace


def test_parsed_arguments_too_deep_for_the_json_encoder_are_handed_back_too(make_rig) -> None:
    deep: Any = "Paris"
    for _ in range(5_000):  # a model that hands over parsed arguments no JSON encoder recurses through
        deep = {"city": deep}
    rig = make_rig(_script(deep), ["get_weather"])
    result = rig.engine.run(SESSION, USER_INPUT, "e1")
    assert result.status == "completed"
    assert SchemaRejected("c1", "get_weather", (TOO_DEEP,)) in rig.trace
    assert result.state.messages[1]["tool_calls"][0]["function"]["arguments"] == ""  # no JSON spells them


@pytest.mark.parametrize("text,error", list(TEXTS.values()), ids=list(TEXTS))
def test_the_validator_answers_with_the_error_at_any_call_depth(text: str, error: str) -> None:
    """The parse never recurses past the bound, so a caller deep in its own stack gets the answer too."""
    validator = ArgsValidator(FIXTURE_TOOLS["get_weather"].schema)

    def nested(frames: int) -> Any:
        return validator.check(text) if frames == 0 else nested(frames - 1)

    assert nested(800).errors == (error,)


@pytest.mark.slow  # worker processes
def test_the_hand_written_column_measures_such_a_scenario(tmp_path: Path) -> None:
    """The column's whole record, observed and written as evidence is: the scenario measured, not an error."""
    base = next(s for s in load_scenarios() if s.id == "malformed_args_not_json")
    expected = load_expectations()[base.id]
    for index, (text, error) in enumerate((TEXTS["arrays opened 100,000 deep"], TEXTS["a lone surrogate escape in a value"])):
        first = {"tool_calls": [dict(base.model_script[0]["tool_calls"][0], arguments=text)]}
        scenario = dataclasses.replace(base, model_script=(first, *base.model_script[1:]))
        record = observation(scenario, run_raw(HandwrittenColumn(), scenario, "contract", tmp_path / str(index)))
        assert (record["status"], record["error"]) == ("ok", None)
        assert record["observables"] == {**expected, "wire": "n/a", "mcp": "n/a"}  # what the engine does with arguments that are not JSON at all
        assert {"kind": "schema_rejected", "call_id": "c1", "tool": "get_weather", "errors": [error]} in [
            {k: v for k, v in e.items() if k != "driver_step"} for e in record["trace"]
        ]
        assert json.loads(canonical_line(record).encode("utf-8")) == json.loads(json.dumps(record))


@pytest.mark.parametrize("token", ["ab\ud800c." + "0" * 64, "abc." + "0" * 63 + "\udfff"], ids=["in the body", "in the signature"])
def test_an_approval_token_with_a_lone_surrogate_is_malformed_not_a_crash(token: str) -> None:
    authority = ApprovalAuthority(b"secret", clock=lambda: 0.0, new_token_id=lambda: "tok-1")
    assert authority.verify(token, SESSION, "c1", "transfer_funds", "0" * 64) is Refusal.MALFORMED
