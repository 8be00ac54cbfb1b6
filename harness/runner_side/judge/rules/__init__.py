"""The rules: one decorated function each (``harness.runner_side.judge.registry``), grouped by what they read.

They run in the order of ``ORDER`` (module names below this package: ``approval/`` and ``ends/`` group modules) and,
within a module, of their definition: that order is the order of a record's reasons and of a cell's text, so a rule
that names a cause comes before the ones that say what followed from it (``consequences``). Adding a rule is its
function, in the module of what it reads, and its test.
"""

from __future__ import annotations

import importlib

from harness.runner_side.judge.registry import check_literal_ids

ORDER = (
    "calls", "approval.asking", "events", "ends.run_ends", "ends.stops", "approval.decisions", "tool_errors", "consequences", "model",
    "approval.early_effects", "wire", "mcp", "crashes",
)  # fmt: skip
MODULES = tuple(importlib.import_module(f"{__name__}.{name}") for name in ORDER)
for _module in MODULES:
    check_literal_ids(_module)
