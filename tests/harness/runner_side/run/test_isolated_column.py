"""The isolated path end to end: a column process started on the interpreter of an environment
built from a hashed lock (the LangGraph one), sandboxed like every column."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from harness.columns import ROOT, Column, known_columns
from harness.runner_side.run.environments import lock_pins
from harness.runner_side.run.runner import run_column

pytestmark = pytest.mark.slow  # builds and runs an isolated environment

LANGGRAPH_LOCK_DIR = ROOT / "adapters" / "langgraph"


def test_a_column_runs_on_its_isolated_environment_and_observes_like_the_reference(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    shutil.copy(ROOT / "scenarios" / "side_effect_before_checkpoint.json", scenarios)
    column = Column("probe_isolated", "probe_isolated:Column", "isolated", "test-only", lock_dir=LANGGRAPH_LOCK_DIR)
    isolated = run_column(column, ["contract"], scenarios, tmp_path / "iso", scenario_count=1, extra_sys_path=[ROOT / "tests" / "broken_adapters"])
    reference = run_column(known_columns()["handwritten"], ["contract"], scenarios, tmp_path / "ref", scenario_count=1)
    assert isolated.status == "measured", isolated.reason

    record = isolated.modes["contract"]["side_effect_before_checkpoint"]
    assert record["detail"] == {
        "langgraph_importable": True,
        "interpreter_in_env": True,
        "harness_from": str(ROOT / "harness" / "__init__.py"),
    }
    pins = lock_pins(LANGGRAPH_LOCK_DIR / "requirements.lock")
    assert {name: isolated.versions[name] for name in ("langgraph", "langgraph-checkpoint-sqlite", "jsonschema")} == {
        name: pins[name] for name in ("langgraph", "langgraph-checkpoint-sqlite", "jsonschema")
    }
    assert isolated.mechanisms["approval"]["file"] == "langgraph/types.py" and isolated.mechanisms["approval"]["line"] > 1
    assert record["observables"] == reference.modes["contract"]["side_effect_before_checkpoint"]["observables"]
    assert importlib.util.find_spec("langgraph") is None, "the root environment must not see the column's packages"
