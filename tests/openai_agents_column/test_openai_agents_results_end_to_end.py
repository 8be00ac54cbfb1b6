"""The OpenAI Agents SDK column end to end (``run_framework_comparison.py``, its three modes, the wire mode on the
runner's scripted server): tool results the SDK delivered before a run raised are in the evidence, whether the
exception carries the SDK's run data (``ModelBehaviorError``) or not (the openai client's ``InternalServerError``), and
a paused run whose saved state the SDK refuses to restore is measured (a ``UserError`` listed in MAPPING.md), not an
adapter failure. The in-process cases are in ``in_env/test_openai_agents_results_after_failure.py``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.columns import ROOT

pytestmark = pytest.mark.slow  # runs the column's environment end to end

RESTORE_REFUSED: dict[str, Any] = {  # found by scripts/explore.py (seed 11, gen_s11_0025), cut down
    "id": "restore_refused",
    "description": "c1 runs; the model sends c1 again with other arguments beside c2 and a high-risk c3; resumed twice.",
    "covers": ["duplicate_event"],
    "tools": ["calculator", "fetch_page", "send_email"],
    "session_id": "sess-restore_refused",
    "user_input": "Please help.",
    "system_prompt": "You are a careful assistant. Use the tools.",
    "max_steps": 6,
    "model_script": [
        {"tool_calls": [{"id": "c1", "name": "calculator", "arguments": {"a": 5, "b": 2, "op": "div"}}]},
        {"tool_calls": [{"id": "c1", "name": "calculator", "arguments": {"a": 68, "b": 2, "op": "mul"}},
                        {"id": "c2", "name": "fetch_page", "arguments": {"url": "https://shop.example/shipping"}},
                        {"id": "c3", "name": "send_email", "arguments": {"to": "bob@example.test", "subject": "Hello", "body": "See you."}}]},
        {"text": "Done."},
    ],
    "driver": [{"action": "run", "event_id": "e1"}, {"action": "resume"}, {"action": "resume"}],
    "faults": [],
}  # fmt: skip


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    scenarios = tmp_path_factory.mktemp("scenarios")
    for name in ("reused_call_id_other_args.json", "wire_http_500_always.json"):
        shutil.copy(ROOT / "scenarios" / name, scenarios / name)
    (scenarios / "restore_refused.json").write_text(json.dumps(RESTORE_REFUSED), encoding="utf-8")
    target = tmp_path_factory.mktemp("out")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "run_framework_comparison.py"), "--framework", "openai_agents",
         "--scenarios", str(scenarios), "--output", str(target)],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    document: dict[str, Any] = json.loads(Path(target / "openai_agents.json").read_text(encoding="utf-8"))
    return document


def _scenario(evidence: dict[str, Any], mode: str, sid: str) -> dict[str, Any]:
    record: dict[str, Any] = evidence["modes"][mode]["scenarios"][sid]
    return record


@pytest.mark.parametrize("mode", ["defaults", "contract", "wire"])
def test_the_result_delivered_before_model_behavior_error_is_in_the_evidence(evidence: dict[str, Any], mode: str) -> None:
    record = _scenario(evidence, mode, "reused_call_id_other_args")
    assert record["facts"][0]["raised"] == "agents.exceptions.ModelBehaviorError"
    assert record["facts"][0]["results"] == [["c1", "ok"]]
    assert record["columns"]["idempotent_replay"]["framework"]["c1"]["results"] == ['{"key":"followup","stored":true}']


def test_the_result_saved_before_the_model_client_raised_is_in_the_evidence(evidence: dict[str, Any]) -> None:
    """No run data on an openai client's exception: c1's output is read from what the session stored."""
    record = _scenario(evidence, "wire", "wire_http_500_always")
    assert record["facts"][0]["raised"] == "openai.InternalServerError"
    assert record["facts"][0]["results"] == [["c1", "ok"]]


@pytest.mark.parametrize("mode", ["defaults", "wire"])  # in contract the glue decides which calls of c3's turn run before the pause
def test_a_state_the_sdk_refuses_to_restore_is_measured(evidence: dict[str, Any], mode: str) -> None:
    record = _scenario(evidence, mode, "restore_refused")
    assert record["status"] == "ok" and record["error"] is None
    assert [s["status"] for s in record["steps"]] == ["error", "awaiting_approval", "error"]
    assert [f.get("raised") for f in record["facts"]] == ["agents.exceptions.ModelBehaviorError", None, "agents.exceptions.UserError"]
