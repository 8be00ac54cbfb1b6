"""Shared test helpers: every committed scenario run once through the hand-written column; the ``slow`` mark of
the tests that are slow by where they run (the others carry it themselves)."""

from __future__ import annotations

import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from adapters.handwritten.column import HandwrittenColumn
from harness.column_side.column_main import run_raw
from harness.runner_side.observe.observation import observation
from harness.runner_side.run.runner import heard_on_wire
from harness.runner_side.run.servers.wire import WireServer
from harness.scenarios import Scenario, load_scenarios

# A column's in-environment tests import its framework: they run on its own interpreter (tests/in_env.py).
collect_ignore_glob = ["*/in_env", "*/in_env/*"]


def pytest_configure(config: pytest.Config) -> None:
    """As root (CI) the runner starts every column under a user of its own, which must pass through the directories
    above its scratch directory (the runner grants them the traverse bit). pytest's default base directory,
    ``/tmp/pytest-of-root``, is set back to ``0700`` by every pytest that starts (a column's in-environment tests start
    one, ``tests/in_env.py``), which would lock out the columns of the tests running beside it: the session's base
    directory is a fresh one of its own instead (the workers of ``-n`` get theirs inside it from the controller)."""
    if os.geteuid() == 0 and not config.option.basetemp and not hasattr(config, "workerinput"):
        config.option.basetemp = tempfile.mkdtemp(prefix="pytest-root-")


@dataclass(frozen=True)
class HandwrittenRun:
    """One scenario's observation record from the hand-written column; ``actual`` are its observables."""

    record: dict[str, Any]

    @property
    def actual(self) -> dict[str, Any]:
        return self.record["observables"]

    @property
    def status(self) -> str:
        return self.record["status"]


@pytest.fixture(scope="session")
def handwritten_checks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, HandwrittenRun]:
    """Every committed scenario run once through the hand-written column (real worker processes): a test
    that uses it is marked ``slow``."""
    scratch = tmp_path_factory.mktemp("handwritten")
    scenarios = load_scenarios()
    with WireServer(scenarios) as wire:  # a scenario meeting a fault of the model's endpoint runs in wire mode
        base = wire.base_url(HandwrittenColumn.name)

        def raw(s: Scenario) -> dict[str, Any]:
            if not s.uses_wire:
                return run_raw(HandwrittenColumn(), s, "contract", scratch / s.id)
            return heard_on_wire(wire, HandwrittenColumn.name, s, run_raw(HandwrittenColumn(), s, "wire", scratch / s.id, wire=base), f"private/{s.id}")

        return {s.id: HandwrittenRun(observation(s, raw(s))) for s in scenarios}


TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks ``slow`` what is slow by where it runs: every test of a third-party column (``tests/<name>_column/``)
    runs code in that framework's environment; every test using ``handwritten_checks`` waits for all scenarios."""
    for item in items:
        in_column_dir = item.path.is_relative_to(TESTS) and item.path.relative_to(TESTS).parts[0].endswith("_column")
        if in_column_dir or "handwritten_checks" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def comparison_cli() -> ModuleType:
    """``scripts/run_framework_comparison.py`` as a module, loaded once: its ``main(argv)`` is the command line run in
    this process. The one place the tests load a script by path (the pipeline itself is ``harness.runner_side.pipeline``)."""
    spec = importlib.util.spec_from_file_location("run_framework_comparison", ROOT / "scripts" / "run_framework_comparison.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
