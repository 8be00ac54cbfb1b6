"""A column's named mechanisms and constants are read from the installed code (or the built agent), and a wrong name fails loudly."""

from __future__ import annotations

import json

import pytest

from harness.column_side.trace.mechanisms import built_constants, locate
from harness.errors import HarnessError
from harness.records import MECHANISM_ROLES as ROLES
from harness.records import missing_roles


def test_a_mechanism_is_located_in_its_source_file_and_line() -> None:
    located = locate({"persistence": "json.decoder:JSONDecoder.raw_decode", "loop": "json:dumps"})
    assert list(located) == ["loop", "persistence"]  # sorted: the evidence is deterministic
    assert located["persistence"]["ref"] == "json.decoder:JSONDecoder.raw_decode"
    assert located["persistence"]["file"] == "json/decoder.py"
    source = open(json.decoder.__file__, encoding="utf-8").read().splitlines()
    assert source[located["persistence"]["line"] - 1].strip().startswith("def raw_decode")


@pytest.mark.parametrize("ref", ["json:no_such_function", "no_such_module:thing", "json.decoder:JSONDecoder.nothing"])
def test_a_name_the_installed_version_lacks_fails_loudly(ref: str) -> None:
    with pytest.raises(HarnessError, match="does not exist in the pinned environment"):
        locate({"loop": ref})


def test_a_builtin_without_python_source_is_refused() -> None:
    with pytest.raises(HarnessError, match="no Python source"):
        locate({"loop": "builtins:len"})


def test_missing_roles_are_named() -> None:
    assert missing_roles({"loop": "json:dumps"}) == [r for r in ROLES if r != "loop"]
    assert missing_roles(dict.fromkeys(ROLES, "json:dumps")) == []


def test_a_constant_read_from_the_built_agent_joins_those_read_by_name() -> None:
    named = {"retry_limit": {"ref": "x:Y", "value": 3}}
    built = {"step_limit": {"ref": "make_agent(...).config['limit']", "value": 9}}
    assert list(built_constants(named, built)) == ["retry_limit", "step_limit"]
    assert built_constants(named, built)["step_limit"] == built["step_limit"]


@pytest.mark.parametrize("built", [
    {"retry_limit": {"ref": "make_agent(...).config['retries']", "value": 3}},  # a role read by name too
    {"step_limit": {"ref": "make_agent(...).config['limit']", "value": [9]}},  # not a plain value
    {"step_limit": {"value": 9}},  # no place it was read from
])
def test_a_built_agents_constant_must_be_a_plain_value_with_its_place_and_a_role_of_its_own(built: dict) -> None:
    with pytest.raises(HarnessError, match="constant"):
        built_constants({"retry_limit": {"ref": "x:Y", "value": 3}}, built)
