"""Run every probe (``probes/<framework>/<scenario>.py``: ``probes/README.md``) in its framework's pinned environment and compare its
counts with the column's ``defaults`` evidence; exit 1 on any disagreement or failed probe.

    python scripts/check_probes.py [FRAMEWORK ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.columns import ROOT, known_columns  # noqa: E402
from harness.runner_side.publish.probes import Probe, ProbeError, declared_probes, disagreements, run_probe  # noqa: E402
from harness.runner_side.run.environments import ensure_environment  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("frameworks", nargs="*", help="only these frameworks' probes (default: all)")
    args = parser.parse_args(argv)
    probes = [p for p in declared_probes() if not args.frameworks or p.framework in args.frameworks]
    if not probes:
        print("check_probes: no probe found", file=sys.stderr)
        return 1
    pythons, evidence = {}, {}
    for framework in sorted({p.framework for p in probes}):
        pythons[framework] = ensure_environment(known_columns()[framework].adapter_dir, log=lambda line: print(line, file=sys.stderr)).python
        evidence[framework] = json.loads((ROOT / "evidence" / f"{framework}.json").read_text(encoding="utf-8"))

    def check(probe: Probe) -> list[str]:
        try:
            return disagreements(probe, run_probe(probe, pythons[probe.framework]), evidence[probe.framework])
        except ProbeError as error:
            return [str(error)]

    ordered = sorted(probes, key=lambda p: (p.framework, p.file))
    failed = 0
    # each probe is its own process with its own home: they run side by side, one per core, reported in order
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for probe, found in zip(ordered, pool.map(check, ordered), strict=True):
            failed += bool(found)
            print(f"{'ok  ' if not found else 'FAIL'} {probe.file} ({probe.scenario})")
            for line in found:
                print(f"     {line}")
    print(f"check_probes: {len(probes) - failed} of {len(probes)} probes agree with the evidence")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
