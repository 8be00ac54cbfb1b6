"""What every probe shares, and nothing of any adapter: the fixture tools over a ledger of the probe's own,
a kill in a child process, and the one line of counts CI compares with the evidence.

A probe (``probes/<framework>/<scenario>.py``, ``probes/README.md``) is a standalone program run by the interpreter of its
framework's pinned environment. It declares ``SCENARIO`` (the committed scenario it reproduces) and
``SHOWS`` (the observables its counts belong to), drives the framework through its documented API only,
and ends with ``report(counts)``. Each key of ``counts`` is a dotted path into the framework's value of
one of ``SHOWS`` in the column's ``defaults`` evidence for that scenario (``side_effects.c1.effects``,
``pre_approval_state.pauses.0.args_validated``); ``scripts/check_probes.py`` fails when a value differs.
A probe answers a question the contract would not have asked as the driver does, with ``contract_answer``.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.column_side.fixtures.faults import FAULT_EXIT_CODE
from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.implicit_decisions import contract_answer
from harness.column_side.network_guard import install_network_guard
from harness.fixture_tools import FIXTURE_TOOLS
from harness.ledger import LocalLedger, ledger_counts
from harness.scenarios import Fault

__all__ = ["FAULT_EXIT_CODE", "FIXTURE_TOOLS", "SCRATCH", "Fault", "contract_answer", "counts", "in_child", "report", "world"]

SCRATCH = Path(tempfile.mkdtemp(prefix="probe-"))
"""The probe's directory for everything that must outlive a killed child (ledger, faults, saved state); removed
when the probe's own process exits (a child ends with ``os._exit`` and leaves it alone)."""
atexit.register(shutil.rmtree, SCRATCH, True)
install_network_guard(SCRATCH / "network.jsonl")  # a probe, like a column, never reaches the network


def world(*faults: Fault) -> FixtureWorld:
    """The fixture tools over this probe's ledger. ``world.call(tool, call_id, args)`` records the tool's
    entry, then runs its body between the fault points (a kill fault ends the process: see ``in_child``)."""
    return FixtureWorld(SCRATCH, list(faults), may_kill=True, ledger=LocalLedger(SCRATCH / "ledger.sqlite"))


def counts() -> dict[str, dict[str, Any]]:
    """The ledger per call id: ``tool``, ``tool_entries``, ``executor_entries``, ``effects`` (a fault fires once,
    whichever process meets it: its firing is committed in the scratch directory)."""
    return ledger_counts(str(SCRATCH / "ledger.sqlite"))


def in_child(run: Callable[[], None]) -> int:
    """Run ``run`` in a forked child and return its exit code: ``FAULT_EXIT_CODE`` when a kill fault ended it,
    so what the parent does next knows only what the child left on disk."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            run()
        except BaseException:  # noqa: BLE001 - the child reports failure by its exit code only
            traceback.print_exc()
            code = 1
        os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def report(scenario: str, measured: dict[str, Any]) -> None:
    """Print the probe's counts as the one JSON line ``scripts/check_probes.py`` reads."""
    print(json.dumps({"scenario": scenario, "counts": measured}, sort_keys=True))
