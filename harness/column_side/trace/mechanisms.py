"""Where a framework keeps each of its mechanisms, read from the pinned environment itself.

A column names the framework's own functions and classes that hold its agent loop, its tool
dispatch, its message assembly, its approval and its persistence, as ``module:qualname``. Inside
the column's process each name is imported and walked attribute by attribute, and its source file
(relative to the directory its top-level package is installed in) and first line are read with
``inspect``: a learner can open the framework's source at the right place, and a name that does
not exist in the pinned version fails the column loudly instead of pointing nowhere.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

from harness.errors import HarnessError


def locate(mechanisms: dict[str, str]) -> dict[str, dict[str, Any]]:
    """``role -> {"ref", "file", "line"}`` for every named mechanism; raises when one cannot be found."""
    return {role: _locate(role, ref) for role, ref in sorted(mechanisms.items())}


def _locate(role: str, ref: str) -> dict[str, Any]:
    module_name, _, qualname = ref.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split(".") if qualname else []:
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise HarnessError(f"mechanism {role}: {ref} does not exist in the pinned environment ({exc})") from exc
    target = inspect.unwrap(target)
    try:
        source = Path(inspect.getsourcefile(target) or "")
        line = inspect.getsourcelines(target)[1]
    except (TypeError, OSError) as exc:
        raise HarnessError(f"mechanism {role}: {ref} has no Python source to point at ({exc})") from exc
    return {"ref": ref, "file": _installed_path(source), "line": line}


def locate_approval_fields(fields: dict[str, str]) -> dict[str, dict[str, Any]]:
    """``binding -> {"ref", "field", "file", "line"}`` for every binding a column says its approval object carries
    (``module:qualname field``): the object's class is located like a mechanism, so a class the pinned version lacks
    fails the column; a binding not listed is one the object does not carry."""
    located = {}
    for binding, declared in sorted(fields.items()):
        ref, _, carrier = declared.partition(" ")
        located[binding] = {**_locate(f"approval {binding}", ref), "field": carrier}
    return located


def read_constants(constants: dict[str, str]) -> dict[str, dict[str, Any]]:
    """``role -> {"ref", "value"}`` for every framework constant a column names, read in the pinned environment.

    A reference is ``module:qualname`` (the value of that attribute) or ``module:qualname(parameter)`` (the
    default of that parameter of a callable, a class's constructor included): a step limit or a retry
    count is quoted from the version that ran, never typed from memory."""
    return {role: {"ref": ref, "value": _constant(role, ref)} for role, ref in sorted(constants.items())}


def built_constants(named: dict[str, dict[str, Any]], built: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The constants read by name (``read_constants``) and those a column read from its built agent
    (``ColumnAdapter.built_constants``), checked: each a plain value with the place it was read, no role twice."""
    for role, constant in sorted(built.items()):
        if role in named:
            raise HarnessError(f"constant {role}: read both by name ({named[role]['ref']}) and from the built agent ({constant.get('ref')})")
        if set(constant) != {"ref", "value"} or not isinstance(constant["ref"], str) or not _plain(constant["value"]):
            raise HarnessError(f"constant {role}: a built agent's constant is {{'ref': <where it was read>, 'value': <a plain value>}}, not {constant!r}")
    return dict(sorted({**named, **built}.items()))


def _plain(value: Any) -> bool:
    return isinstance(value, (int, float, str, bool))


def _constant(role: str, ref: str) -> Any:
    path, _, parameter = ref.partition("(")
    module_name, _, qualname = path.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
        if parameter:
            target = inspect.signature(target).parameters[parameter.rstrip(")")].default
    except (ImportError, AttributeError, KeyError, ValueError) as exc:
        raise HarnessError(f"constant {role}: {ref} does not exist in the pinned environment ({exc})") from exc
    if not _plain(target) or target is inspect.Parameter.empty:
        raise HarnessError(f"constant {role}: {ref} is not a plain value ({target!r})")
    return target if isinstance(target, (str, bool, float)) else int(target)


def _installed_path(source: Path) -> str:
    """The source file relative to the ``sys.path`` entry it was imported from (site-packages, say): no
    absolute path, which would differ between machines."""
    roots = [Path(entry).resolve() for entry in sys.path if entry]
    parents = [root for root in roots if source.resolve().is_relative_to(root)]
    return source.resolve().relative_to(max(parents, key=lambda p: len(p.parts))).as_posix() if parents else source.name
