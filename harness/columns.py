"""The columns of the comparison: each registers itself by name, and is loaded lazily by name.

A column lives in ``adapters/<name>/``; its package's ``__init__.py`` declares ``COLUMN = Column(...)``
(name, ``module:Class`` of its ``harness.column_side.protocol.ColumnAdapter``, which environment runs it, a
description). Declaring it imports nothing of the framework, so the runner can list every column
without any framework installed; the class is imported only inside the column's own process.
Adding a column edits no harness module.

An isolated column runs at another set of pins when a lock sits at ``adapters/<name>/pins/<version>/``
(``requirements.in`` and ``requirements.lock``): that is the column ``<name>@<version>``, the same adapter
code in an environment built from that lock. Adding a pin edits nothing outside its adapter folder.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = "handwritten"


@dataclass(frozen=True)
class Column:
    """One column: where its adapter lives and which Python runs it."""

    name: str
    entry: str  # ``module:Class``: the column's ColumnAdapter, imported only in the column's process
    environment: Literal["project", "isolated"]
    description: str
    lock_dir: Path | None = None  # default: adapters/<name>

    @property
    def adapter(self) -> str:
        """The adapter's name: the column's name without its pin (``langgraph`` for ``langgraph@0.6.11``)."""
        return self.name.partition(PIN_SEPARATOR)[0]

    @property
    def pin(self) -> str | None:
        """The extra pin this column runs at (``0.6.11`` for ``langgraph@0.6.11``); None at the adapter's default pin."""
        return self.name.partition(PIN_SEPARATOR)[2] or None

    @property
    def adapter_dir(self) -> Path:
        """Where the column's adapter code lives, with its MAPPING.md (and its default requirements.in and lock)."""
        return self.lock_dir or ROOT / "adapters" / self.adapter

    @property
    def environment_dir(self) -> Path:
        """Where the column's requirements.in and hashed requirements.lock are: ``pins/<version>/`` for an extra pin."""
        return self.adapter_dir / PINS_DIR / self.pin if self.pin else self.adapter_dir


PIN_SEPARATOR = "@"
PINS_DIR = "pins"


def pinned(column: Column) -> list[Column]:
    """The column at each extra pin committed beside its adapter (``pins/<version>/requirements.lock``), oldest
    version first; only an isolated column has pins."""
    from packaging.version import Version  # the runner's dependency: a column process imports this module without it

    if column.environment != "isolated" or column.pin:
        return []
    folders = [p.parent for p in (column.adapter_dir / PINS_DIR).glob("*/requirements.lock")]
    return [dataclasses.replace(column, name=f"{column.name}{PIN_SEPARATOR}{f.name}", description=f"{column.description} (at {f.name})")
            for f in sorted(folders, key=lambda f: Version(f.name))]


def known_columns() -> dict[str, Column]:
    """Every column declared under ``adapters/``: the reference first, then the project's own, then the isolated ones,
    each followed by its extra pins."""
    declared = []
    for init in sorted((ROOT / "adapters").glob("*/__init__.py")):
        column = getattr(importlib.import_module(f"adapters.{init.parent.name}"), "COLUMN", None)
        if isinstance(column, Column):
            declared += [column, *pinned(column)]
    declared.sort(key=lambda c: (c.name != REFERENCE, c.environment != "project", c.name))
    return {c.name: c for c in declared}


MEASURED_EXCEPTIONS_HEADING = "## Exceptions that end a run"
_ROW = re.compile(r"^\|\s*`([\w.]+)`\s*\|\s*([\w, ]+?)\s*\|.*https?://\S+")


def measured_exceptions(column: Column, mode: str) -> frozenset[str]:
    """Exception types (``module.Name``; builtins bare) that the column's ``MAPPING.md`` lists for ``mode``, each
    with the documentation page that describes the framework raising it, in the table under
    ``## Exceptions that end a run`` (exception | modes | raised when | documentation). A run that ends in one
    of them is a measured outcome (status ``error``); any other exception is an adapter failure. A row listing
    ``defaults`` holds in ``wire`` and ``mcp`` too (``defaults`` with the framework's OpenAI-compatible model, or its MCP
    client)."""
    mapping = column.adapter_dir / "MAPPING.md"
    if not mapping.exists():
        return frozenset()
    section = mapping.read_text(encoding="utf-8").partition(MEASURED_EXCEPTIONS_HEADING)[2].split("\n## ", 1)[0]
    rows = [m for line in section.splitlines() if (m := _ROW.match(line.strip()))]
    # The wire and mcp modes are defaults with the framework's own model client or MCP client: what ends a defaults run
    # ends them too.
    modes = {mode, "defaults"} if mode in ("wire", "mcp") else {mode}
    return frozenset(m.group(1) for m in rows if modes & {w.strip() for w in m.group(2).split(",")})
