"""How a tool's schema changes on its way from the fixture registry to a model, in two parts.

``declared``: the registry's strict schema against the framework's own tool object, built the documented way (what
declaring the tool that way loses); ``rewritten``: that object's schema against the parameters the request carried
(what the framework changes as it sends). Each part lists keys ``added``, ``dropped`` or ``changed`` (JSON pointers),
properties made ``required`` and constraints ``moved_to_text`` (dropped where they were, their keyword or value now a
whole word of the same property's description); ``rewritten`` also says ``strict`` when the request marks the tool
strict. A tool never sent is also ``not_sent``. A column that reports no tool object for a tool has ``declared: "not
reported"``, and its ``rewritten`` compares the registry with what was sent.

Shared by the runner's ``wire`` observable (``harness.runner_side.observe.wire``) and the wire probes' counts
(``harness.column_side.probes.wire``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from harness.fixture_tools import FIXTURE_TOOLS

CONSTRAINTS = ("minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "enum", "const",
               "minItems", "maxItems", "format", "multipleOf", "uniqueItems")  # fmt: skip


NOT_REPORTED = "not reported"


def schema_diffs(offered: Sequence[str], sent: Sequence[Mapping[str, Any]], objects: Mapping[str, Any] | None) -> dict[str, Any]:
    """Per offered fixture tool, its ``declared`` and ``rewritten`` parts (``{}``: nothing differs; every offered tool is
    listed, so a difference shows at the part and key where it is). ``objects``: the JSON schema of each tool's
    framework object, by name (None: none reported)."""
    by_name = {t.get("name"): t for t in sent}
    out: dict[str, Any] = {}
    for name in offered:
        registry = FIXTURE_TOOLS[name].schema
        own = (objects or {}).get(name)
        declared: Any = schema_diff(registry, own) if isinstance(own, Mapping) else NOT_REPORTED
        tool = by_name.get(name)
        rewritten: dict[str, Any] = {}
        if tool is not None:
            rewritten = schema_diff(own if isinstance(own, Mapping) else registry, tool.get("parameters") or {})
            rewritten |= {"strict": True} if tool.get("strict") else {}
        out[name] = {"declared": declared, "rewritten": rewritten} | ({"not_sent": True} if tool is None else {})
    return out


def schema_diff(registry: Mapping[str, Any], sent: Mapping[str, Any]) -> dict[str, Any]:
    """``added``, ``dropped`` and ``changed`` JSON pointers, ``required`` properties added, ``moved_to_text`` constraints."""
    added: list[str] = []
    dropped: list[str] = []
    changed: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                path = f"{where}/{_escape(key)}"
                if key not in b:
                    dropped.append(path)
                elif key not in a:
                    added.append(path)
                else:
                    walk(a[key], b[key], path)
        elif a != b and not (where.endswith("/required") and isinstance(a, list) and isinstance(b, list)):
            changed.append(where)

    walk(dict(registry), dict(sent), "")
    diff: dict[str, Any] = {"added": added, "dropped": dropped, "changed": changed}
    made_required = sorted(set(_list(sent.get("required"))) - set(_list(registry.get("required"))))
    diff["required"] = made_required
    diff["moved_to_text"] = _moved_to_text(registry, sent, dropped)
    return {k: v for k, v in diff.items() if v}


def _moved_to_text(registry: Mapping[str, Any], sent: Mapping[str, Any], dropped: list[str]) -> list[str]:
    """Dropped constraints whose keyword or value now appears in the sent description of the same property."""
    moved = []
    for path in dropped:
        parent, _, keyword = path.rpartition("/")
        if keyword not in CONSTRAINTS:
            continue
        value, description = _at(registry, path), str(_at(sent, f"{parent}/description") or "")
        if any(_word_in(word, description) for word in (keyword, *([str(value)] if value is not None else []))):
            moved.append(path)
    return moved


def _word_in(word: str, text: str) -> bool:
    """Whether ``word`` occurs in ``text`` as a whole word or number (not the ``1`` of ``2014``)."""
    return re.search(rf"(?<![\w.]){re.escape(word)}(?![\w]|\.\d)", text) is not None


def _at(document: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        if not isinstance(document, dict):
            return None
        document = document.get(part.replace("~1", "/").replace("~0", "~"))
    return document


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
