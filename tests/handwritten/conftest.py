"""Shared fixtures of the hand-written engine's tests: ``make_rig`` builds a ``Rig`` (``rig.py``), ``world`` a fixture world."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from handwritten.engine import Hooks
from handwritten.policy import Policy
from harness.column_side.fixtures.world import FixtureWorld
from harness.scenarios import Fault
from tests.handwritten.rig import MakeRig, Rig


@pytest.fixture
def make_rig(tmp_path: Path) -> Iterator[MakeRig]:
    """Build a rig: ``make_rig(script, tools, store="memory"|"sqlite", faults=[...], max_steps=..., ...)``."""
    worlds: list[FixtureWorld] = []
    rigs: list[Rig] = []

    def build(
        script: Sequence[Mapping[str, Any]],
        tools: Sequence[str],
        *,
        store: str = "memory",
        faults: Sequence[Fault] = (),
        max_steps: int = 8,
        policy: Policy | None = None,
        hooks: Hooks | None = None,
    ) -> Rig:
        world = FixtureWorld(tmp_path, list(faults), may_kill=False)
        worlds.append(world)
        rig = Rig(tmp_path, [dict(t) for t in script], list(tools), world, store, max_steps, policy, hooks)
        rigs.append(rig)
        return rig

    yield build
    for rig in rigs:
        rig.close()
    for world in worlds:
        world.close()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[FixtureWorld]:
    w = FixtureWorld(tmp_path, [], may_kill=False)
    yield w
    w.close()
