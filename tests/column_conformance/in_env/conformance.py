"""What the conformance suite's tests share: a scenario a test brings, the calls they script, and ``Played``, a run read
the way every column reports it (the test modules import it; ``conftest.py`` holds the fixtures)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.column_side.column_main import load_column
from harness.column_side.protocol import ColumnAdapter
from harness.columns import known_columns
from harness.scenarios import Fault, Scenario

RUN = {"action": "run", "event_id": "e1"}


@functools.cache
def column_named(name: str) -> ColumnAdapter:
    """The column's one instance in this process, as its column process makes it (``load_column`` of its declared ``entry``)."""
    return load_column(known_columns()[name].entry)


def scenario(key: str, tools: tuple[str, ...], script: list[dict[str, Any]], driver: list[dict[str, Any]], faults: tuple[Fault, ...] = (),
             max_steps: int = 8) -> Scenario:
    """A scenario a test brings, for every column alike (built as the loader builds one; the test writes it, so it is not
    checked against the scenario schema)."""
    return Scenario(id=key, file=f"{key}.json", description="", covers=(), tools=tools, session_id=f"sess-{key}", user_input="Please help.",
                    system_prompt=None, max_steps=max_steps, model_script=tuple(script), driver=tuple(driver), faults=faults)


def transfer(call_id: str, cents: int) -> dict[str, Any]:
    return {"id": call_id, "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": cents}}


def weather(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "name": "get_weather", "arguments": {"city": "Paris"}}


def approve(call_id: str) -> dict[str, Any]:
    return {"action": "approve", "call_id": call_id}


def reject(call_id: str) -> dict[str, Any]:
    return {"action": "reject", "call_id": call_id, "reason": "no"}


@dataclass(frozen=True)
class Played:
    """One scenario as the column played it: the raw record of ``run_raw``, read per driver step."""

    record: dict[str, Any]

    @property
    def statuses(self) -> list[str]:
        """Each step's session status."""
        return [s["session_status"] for s in self.record["steps"]]

    @property
    def pending(self) -> list[list[str]]:
        """Each step's calls waiting for the human, by call id (sorted: the order is each framework's)."""
        return [sorted(p["call_id"] for p in s["pending"]) for s in self.record["steps"]]

    def counts(self, what: str) -> list[dict[str, int]]:
        """Each step's ledger count ``what`` (``tool_entries``, ``executor_entries``, ``effects``) by call id, those above 0."""
        return [{c: n[what] for c, n in sorted(s["ledger"].items()) if n[what]} for s in self.record["steps"]]

    @property
    def turns(self) -> dict[str, int]:
        """How often the scripted model was asked for each turn."""
        return dict(self.record["model"]["calls_per_turn"])

    @property
    def results(self) -> dict[str, list[str]]:
        """Call id -> the statuses of the results that reached the model (the column's own trace, ``facts``), over every step."""
        out: dict[str, list[str]] = {}
        for facts in self.record["facts"]:
            for result in facts["results"]:
                out.setdefault(result["call_id"], []).append(result["status"])
        return out

    def contents(self, call_id: str) -> list[str]:
        """The contents of ``call_id``'s results that reached the model, over every step."""
        return [r["content"] for facts in self.record["facts"] for r in facts["results"] if r["call_id"] == call_id]

    @property
    def injected(self) -> list[str]:
        """What reached the scripted model that neither its script nor the tools wrote (``role: text``)."""
        return list(self.record["model"]["injected"])

    def traced(self, kind: str) -> list[str]:
        """The call ids of the column's trace events of ``kind``, over every step."""
        return [e["call_id"] for s in self.record["steps"] for e in s["trace"] if e["kind"] == kind]


Play = Callable[[str, Scenario], Played]
