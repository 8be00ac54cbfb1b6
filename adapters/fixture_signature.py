"""The signature an author writes for a fixture tool, for the columns whose framework derives a tool's schema from a
typed function (Google ADK, Microsoft Agent Framework, Pydantic AI): one keyword parameter per field of the fixture
schema, typed from it (an enum as a ``Literal``; a required field without a default, an optional one as ``T | None =
None``), the field naming the user a tool acts for left out (not the model's to say: each column takes the user from
its framework's session or run context)."""

from __future__ import annotations

from inspect import Parameter, Signature
from typing import Any, Literal

from handwritten.tools import RiskClass
from harness.fixture_tools import FIXTURE_TOOLS

_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": int | float, "boolean": bool}


def needs_approval(tool: str) -> bool:
    return FIXTURE_TOOLS[tool].risk is RiskClass.HIGH_RISK


def parameters(name: str) -> list[Parameter]:
    """The fixture tool's parameters as an author writes them (the user it acts for left out)."""
    schema, acts_for, params = FIXTURE_TOOLS[name].schema, FIXTURE_TOOLS[name].acts_for, []
    for field, prop in schema["properties"].items():
        if field == acts_for:
            continue
        kind = Literal[tuple(prop["enum"])] if "enum" in prop else _TYPES[prop["type"]]
        required = field in schema["required"]
        params.append(Parameter(field, Parameter.KEYWORD_ONLY, annotation=kind if required else kind | None, default=Parameter.empty if required else None))
    return params


def typed(function: Any, name: str, params: list[Parameter]) -> Any:
    """``function`` named and documented as the fixture tool ``name``, with the signature ``params``."""
    function.__name__ = function.__qualname__ = name
    function.__doc__ = FIXTURE_TOOLS[name].description
    function.__signature__ = Signature(params)
    function.__annotations__ = {p.name: p.annotation for p in params}
    return function
