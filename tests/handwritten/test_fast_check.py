"""The engine's fast yes (handwritten.fast_check) against jsonschema, the authority: on every generated argument
value the fast check says valid exactly when jsonschema (with the engine's strict types) finds no error."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from handwritten.fast_check import compile_fast_check
from handwritten.schema import _StrictValidator, close_objects
from harness.fixture_tools import FIXTURE_TOOLS

NAMES = st.sampled_from(["a", "b", "city", "key", "text", "priority", "op", "amount_cents", "memo", "x"])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-10, max_value=10), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.0, 2.0, 5.0, 1.5]), st.text(max_size=3), st.sampled_from(["add", "sub", "Paris", ""]),
)  # fmt: skip
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=4), max_leaves=12)
ARGUMENTS = st.dictionaries(NAMES, VALUES, max_size=5) | VALUES


def _schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """Schemas of the supported keywords only, nested up to ``depth``."""
    leaf = st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])
            | st.lists(st.sampled_from(["string", "integer", "null", "number"]), min_size=1, max_size=2),
            "minLength": st.integers(0, 3), "maxLength": st.integers(0, 3), "minimum": st.integers(-3, 3) | st.sampled_from([0.5, 2.0]),
            "maximum": st.integers(-3, 3), "exclusiveMinimum": st.integers(-3, 3), "exclusiveMaximum": st.sampled_from([1, 2.5]),
            "enum": st.lists(st.sampled_from(["add", "sub", "Paris", ""]), min_size=1, max_size=3), "minItems": st.integers(0, 2), "maxItems": st.integers(0, 2),
            "description": st.just("d"),
        },
    )  # fmt: skip
    if depth == 0:
        return leaf
    inner = _schemas(depth - 1)
    return st.one_of(
        leaf,
        st.fixed_dictionaries(
            {"type": st.just("object")},
            optional={"properties": st.dictionaries(NAMES, inner | st.booleans(), max_size=3), "required": st.lists(NAMES, max_size=2, unique=True),
                      "additionalProperties": st.booleans()},
        ),  # fmt: skip
        st.fixed_dictionaries({"type": st.just("array")}, optional={"items": inner, "minItems": st.integers(0, 2)}),
    )


def _agrees(schema: dict[str, Any], value: Any) -> None:
    closed = close_objects(schema)
    fast = compile_fast_check(closed)
    assert fast is not None, schema
    valid = not any(True for _ in _StrictValidator(closed).iter_errors(value))
    assert fast(value) is valid, (closed, value)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FIXTURE_TOOLS)), ARGUMENTS)
def test_every_fixture_tool_schema_agrees_with_jsonschema(tool: str, value: Any) -> None:
    _agrees(FIXTURE_TOOLS[tool].schema, value)


@settings(max_examples=600, deadline=None)
@given(_schemas(), ARGUMENTS)
@example({"type": "integer"}, 1.0)
@example({"type": "integer"}, True)
@example({"type": "number", "minimum": 0}, True)
@example({"minimum": 2}, False)
@example({"type": "string", "minLength": 1}, "")
@example({"enum": ["a"]}, ["a"])
@example({"type": "object", "required": ["a"]}, {"a": None})
def test_any_schema_of_the_supported_keywords_agrees_with_jsonschema(schema: dict[str, Any], value: Any) -> None:
    _agrees(schema, value)


def test_valid_fixture_arguments_take_the_fast_path_and_near_misses_do_not() -> None:
    note = compile_fast_check(close_objects(FIXTURE_TOOLS["put_note"].schema))
    assert note is not None
    assert note({"key": "k", "text": "t", "priority": 2})
    assert not note({"key": "k", "text": "t", "priority": "2"}) and not note({"key": "k", "text": "t", "priority": 2.0})
    assert not note({"key": "k", "text": "t", "priority": True}) and not note({"key": "k", "text": "t", "color": "red"})
    assert not note({"key": "", "text": "t"}) and not note({"text": "t"}) and not note([])


def test_a_keyword_it_does_not_mirror_leaves_jsonschema_alone() -> None:
    for schema in ({"type": "string", "pattern": "^a"}, {"$ref": "#/$defs/x"}, {"oneOf": [{"type": "string"}]}, {"type": "string", "format": "email"},
                   {"enum": [1, "a"]}, {"type": "object", "additionalProperties": {"type": "string"}}, {"type": "widget"}, {"minLength": 1.5}):  # fmt: skip
        assert compile_fast_check(schema) is None, schema
