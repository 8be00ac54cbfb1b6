"""Strict argument validation: no coercion, closed objects, required fields, JSON text parsed first."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handwritten.schema import ArgsValidator, Checked, close_objects
from harness.fixture_tools import FIXTURE_TOOLS

# A schema that forgot additionalProperties everywhere: strictness must not depend on it.
OPEN_SCHEMA = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "name": {"type": "string"},
        "address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
    "required": ["count", "name"],
}
VALID = {"count": 5, "name": "n"}

CASES = {
    # id: (raw arguments, expected Checked)
    "valid object": (VALID, Checked(VALID, ())),
    "valid with every field": (
        {"count": -3, "ratio": 0.5, "name": "", "address": {"city": "Oslo"}},
        Checked({"count": -3, "ratio": 0.5, "name": "", "address": {"city": "Oslo"}}, ()),
    ),
    "integer accepted for number": ({**VALID, "ratio": 2}, Checked({**VALID, "ratio": 2}, ())),
    "string for integer": ({**VALID, "count": "5"}, Checked({**VALID, "count": "5"}, ("count: '5' is not of type 'integer'",))),
    "float for integer": ({**VALID, "count": 5.0}, Checked({**VALID, "count": 5.0}, ("count: 5.0 is not of type 'integer'",))),
    "bool for integer": ({**VALID, "count": True}, Checked({**VALID, "count": True}, ("count: True is not of type 'integer'",))),
    "bool for number": ({**VALID, "ratio": False}, Checked({**VALID, "ratio": False}, ("ratio: False is not of type 'number'",))),
    "string for number": ({**VALID, "ratio": "0.5"}, Checked({**VALID, "ratio": "0.5"}, ("ratio: '0.5' is not of type 'number'",))),
    "unknown top-level field": (
        {**VALID, "extra": 1},
        Checked({**VALID, "extra": 1}, ("(arguments): Additional properties are not allowed ('extra' was unexpected)",)),
    ),
    "unknown nested field": (
        {**VALID, "address": {"city": "Oslo", "zip": "0150"}},
        Checked({**VALID, "address": {"city": "Oslo", "zip": "0150"}}, ("address: Additional properties are not allowed ('zip' was unexpected)",)),
    ),
    "missing required field": ({"count": 5}, Checked({"count": 5}, ("(arguments): 'name' is a required property",))),
    "missing nested required field": (
        {**VALID, "address": {}},
        Checked({**VALID, "address": {}}, ("address: 'city' is a required property",)),
    ),
    "several errors, sorted": (
        {"count": "5", "extra": None},
        Checked(
            {"count": "5", "extra": None},
            (
                "(arguments): 'name' is a required property",
                "(arguments): Additional properties are not allowed ('extra' was unexpected)",
                "count: '5' is not of type 'integer'",
            ),
        ),
    ),
    "JSON text parsed first (valid)": ('{"count": 5, "name": "n"}', Checked(VALID, ())),
    "JSON text parsed first (invalid)": ('{"count": "5", "name": "n"}', Checked({"count": "5", "name": "n"}, ("count: '5' is not of type 'integer'",))),
    "JSON text of a non-object": ("[1, 2]", Checked([1, 2], ("(arguments): [1, 2] is not of type 'object'",))),
    "invalid JSON text": (
        '{"count": 5, "name": ',
        Checked('{"count": 5, "name": ', ("(arguments): not valid JSON: Expecting value",)),
    ),
    "not JSON at all": ("count=5", Checked("count=5", ("(arguments): not valid JSON: Expecting value",))),
}


@pytest.mark.parametrize(("raw", "expected"), CASES.values(), ids=CASES.keys())
def test_strict_validation(raw, expected):
    assert ArgsValidator(OPEN_SCHEMA).check(raw) == expected


# Every error names the field it is about (or "(arguments)" plus the field in the message).
FIELD_NAMED = {
    "string for integer": "count",
    "float for integer": "count",
    "bool for integer": "count",
    "bool for number": "ratio",
    "unknown top-level field": "extra",
    "unknown nested field": "zip",
    "missing required field": "name",
    "missing nested required field": "city",
}


@pytest.mark.parametrize(("case", "field"), FIELD_NAMED.items(), ids=FIELD_NAMED.keys())
def test_each_error_names_its_field(case, field):
    raw, _ = CASES[case]
    (error,) = ArgsValidator(OPEN_SCHEMA).check(raw).errors
    assert error.startswith(f"{field}: ") or f"'{field}'" in error, error


def test_close_objects_closes_every_object_schema_and_leaves_the_input_alone():
    original = {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {}},
            "b": {"type": "object", "additionalProperties": True},
            "c": {"type": "array", "items": {"type": "object"}},
        },
    }
    snapshot = repr(original)
    assert close_objects(original) == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "a": {"type": "object", "properties": {}, "additionalProperties": False},
            "b": {"type": "object", "additionalProperties": True},  # an explicit choice is kept
            "c": {"type": "array", "items": {"type": "object", "additionalProperties": False}},
        },
    }
    assert repr(original) == snapshot


def test_invalid_schema_is_refused_when_compiled():
    from jsonschema.exceptions import SchemaError

    with pytest.raises(SchemaError):
        ArgsValidator({"type": "object", "properties": {"n": {"type": "integr"}}})


# -- properties --------------------------------------------------------------------------

INT_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
INT_VALIDATOR = ArgsValidator(INT_SCHEMA)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(value=json_values)
def test_integer_field_accepts_exactly_python_ints(value):
    checked = INT_VALIDATOR.check({"n": value})
    is_int = isinstance(value, int) and not isinstance(value, bool)
    expected_errors = () if is_int else (f"n: {value!r} is not of type 'integer'",)
    assert checked == Checked({"n": value}, expected_errors)


@settings(max_examples=100, deadline=None)
@given(extra=st.text(min_size=1, max_size=8).filter(lambda k: k != "n"), value=json_values, n=st.integers())
def test_any_extra_key_is_rejected(extra, value, n):
    checked = INT_VALIDATOR.check({"n": n, extra: value})
    assert checked == Checked({"n": n, extra: value}, (f"(arguments): Additional properties are not allowed ({extra!r} was unexpected)",))


# -- bugs ----------------------------------------------------------------------------------

CALCULATOR = FIXTURE_TOOLS["calculator"].schema


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_json_number_literals_in_argument_text_are_rejected(literal):
    checked = ArgsValidator(CALCULATOR).check(f'{{"a": {literal}, "b": 1, "op": "add"}}')
    assert not checked.ok


def test_nullable_object_schema_is_closed_too():
    schema = {"type": "object", "properties": {"addr": {"type": ["object", "null"], "properties": {"city": {"type": "string"}}}}}
    assert ArgsValidator(schema).check({"addr": {"city": "Oslo", "zip": "0150"}}) == Checked(
        {"addr": {"city": "Oslo", "zip": "0150"}}, ("addr: Additional properties are not allowed ('zip' was unexpected)",)
    )


def test_const_data_that_looks_like_a_schema_is_not_rewritten():
    schema = {"type": "object", "properties": {"shape": {"const": {"type": "object"}}}}
    assert ArgsValidator(schema).check({"shape": {"type": "object"}}) == Checked({"shape": {"type": "object"}}, ())

