"""What changed between two pins of one framework, from their committed evidence: the constants, mechanisms and
directly pinned versions that differ, and every cell (mode, scenario, observable) whose framework value or rules
differ, with the values at each pin and the rules behind each side's cell.

    python scripts/compare_pins.py FRAMEWORK VERSION VERSION [--evidence DIR]

``python scripts/compare_pins.py langgraph 0.6.11 1.2.24``: LangGraph at its second pin against its default pin
(``evidence/langgraph@0.6.11.json`` and ``evidence/langgraph.json``). An unknown framework or pin: one line, exit 2.
The comparison itself is ``harness.runner_side.publish.pins``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.columns import ROOT, known_columns  # noqa: E402
from harness.runner_side.cli_parser import OneLineParser  # noqa: E402
from harness.runner_side.publish import console  # noqa: E402
from harness.runner_side.publish.pins.diff import PinError, pair_of  # noqa: E402
from harness.runner_side.publish.pins.lines import compared  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("framework", help="the framework (its adapter's name: langgraph)")
    parser.add_argument("versions", nargs=2, metavar="VERSION", help="two of its pins (the older is shown first, whatever the order)")
    parser.add_argument("--evidence", type=Path, default=ROOT / "evidence", help="the evidence directory (default: evidence/)")
    args = parser.parse_args(argv)
    registry = known_columns()
    documents = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(args.evidence.glob("*.json")) if p.stem in registry}
    try:
        pair = pair_of(registry, documents, args.framework, *args.versions)
    except PinError as error:
        return console.error(str(error))
    try:
        sys.stdout.write("\n".join(compared(pair)) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # a reader's pager or ``head`` closed the pipe: what it read is all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
