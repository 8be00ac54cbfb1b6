"""What changed between two pins of one framework, read from their evidence documents (``evidence/<column>.json``).

- ``diff``: the two pins of a framework (``Pair``), and what differs between their documents: every cell whose
  framework value or rules differ (``cell_changes``), the constants, the mechanisms and the directly pinned versions;
- ``rules``: the rule table that turns a pair into the changes FINDINGS.md and the report list ("What changed between
  pins"): a default that moved, a behaviour that appeared, a behaviour that went;
- ``lines``: what ``scripts/compare_pins.py`` prints.
"""

from __future__ import annotations
