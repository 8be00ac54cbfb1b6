"""A column's named mechanisms are read from the installed code, and a wrong name fails loudly."""

from __future__ import annotations

import json

import pytest

from harness.column_side.mechanisms import locate
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
