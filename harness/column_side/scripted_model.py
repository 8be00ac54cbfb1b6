"""The scripted model: plays a scenario's turns and records what it was sent.

It picks its turn from the conversation it receives (the number of assistant messages
so far), never from hidden mutable state, so a re-executed node gets the same answer
and every column sees the same model. Each request is appended to a JSON-lines log
(it survives a killed process): the roles it received, any text that came neither from
the scenario nor from the tools (injected), and where the world's injection marker was
(judged by ``harness.script_log``, which the scripted server of the ``wire`` mode shares).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handwritten.canonical import canonical_json
from handwritten.model import ModelReply
from harness.column_side.fixtures.faults import FaultPlan
from harness.script_log import EXHAUSTED_TEXT, ScriptJudge, reply_for, summarize_entries

if TYPE_CHECKING:
    from harness.scenarios import Scenario

__all__ = ["EXHAUSTED_TEXT", "ScriptedModel", "reply_for", "summarize_log"]


class ScriptedModel:
    """Implements ``handwritten.model.Model`` over a scenario's ``model_script``."""

    @classmethod
    def of(cls, scenario: Scenario, scratch: Path, faults: FaultPlan) -> ScriptedModel:
        """The scenario's scripted model, logging what it receives to ``<scratch>/model_log.jsonl``."""
        return cls(scenario.model_script, user_inputs=scenario.user_inputs, system_prompt=scenario.system_prompt,
                   log_path=scratch / "model_log.jsonl", faults=faults)

    def __init__(
        self,
        script: Sequence[Mapping[str, Any]],
        *,
        user_inputs: Sequence[str],
        system_prompt: str | None,
        log_path: Path,
        faults: FaultPlan,
    ) -> None:
        self._judge = ScriptJudge(script, user_inputs=user_inputs, system_prompt=system_prompt)
        self._log_path = log_path
        self._faults = faults

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> ModelReply:
        turn = self._judge.turn_of(messages)
        with open(self._log_path, "a", encoding="utf-8") as log:
            log.write(canonical_json(self._judge.entry(turn, messages)) + "\n")
        self._faults.fire("model.kill_before_turn", turn=turn)
        return self._judge.reply(turn)


def summarize_log(log_path: Path, script_length: int) -> dict[str, Any]:
    """Model calls per turn, turns asked beyond the script, scripted turns never asked, injected text,
    and the roles under which the injection marker reached the model (``harness.script_log.summarize_entries``)."""
    entries = []
    if log_path.exists():
        entries = [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line]
    return summarize_entries(entries, script_length)
