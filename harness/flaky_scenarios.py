"""The flaky-tool scenarios: ``scenarios/flaky_tool_rate_00.json``, ``_20``, ``_50`` and ``_80``.

One scenario per failure rate, the same model script in each: a support agent logs a follow-up note on five
tickets, one ``put_note`` call per turn (a reversible write, so each saved note is one effect), then answers.
The notes tool is flaky: for each call, whether each of its attempts fails was drawn once, here, from
``random.Random("flaky/<rate>")`` (the rate as the file names spell it: ``flaky/00``, ``flaky/20``, ...), every
attempt failing with that probability, independently, until the first success or the engine's last attempt.
A call whose first k attempts fail gets k ``tool.raise_before_effect`` faults (each fires once, so they take
attempts 1 to k). Nothing is random when a scenario runs: the draw is committed as faults, and the report's
failure-rate control only chooses among these files.

Each file's ``expected`` block is the contract's: a call with k < 3 failures succeeds on attempt k + 1 under its
one idempotency key (k + 1 entries, one effect); a call with 3 failures ends as an error result the model sees
(3 entries, no effect), and the loop goes on to the next turn. The description states the rate, the seed, each
call's schedule and the failed fraction of the attempts that schedule makes.

``scripts/make_flaky_scenarios.py`` rewrites the four files from this module (the same bytes every time); its
``--check`` writes nothing and exits 1 when a committed file differs from what it would write.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from handwritten.engine import MAX_ATTEMPTS
from harness.scenarios import SCENARIO_DIR

RATES = (0, 20, 50, 80)  # percent
TOOL = "put_note"
TICKETS = (
    ("T-1041", "Card blocked abroad: unblocked, ask the customer to confirm the next payment."),
    ("T-1042", "Duplicate direct debit: refund requested from the merchant, check again Friday."),
    ("T-1043", "Address change: proof of address received, update after the compliance check."),
    ("T-1044", "Overdraft fee dispute: fee waived once, explain the policy on the next call."),
    ("T-1045", "Lost PIN: new PIN letter posted, follow up if it has not arrived in 7 days."),
)


def seed(rate: int) -> str:
    return f"flaky/{rate:02d}"


def scenario_id(rate: int) -> str:
    return f"flaky_tool_rate_{rate:02d}"


def draw_schedule(rate: int, calls: int = len(TICKETS)) -> list[int]:
    """Per call, how many of its leading attempts fail (0 to MAX_ATTEMPTS), drawn in call order from the rate's seed:
    one draw per attempt, an attempt failing when the draw is below ``rate / 100``, until a success or the last attempt."""
    rng = random.Random(seed(rate))
    schedule = []
    for _ in range(calls):
        failures = 0
        while failures < MAX_ATTEMPTS and rng.random() < rate / 100:
            failures += 1
        schedule.append(failures)
    return schedule


def attempts(failures: int) -> int:
    """The attempts a call with that many leading failures makes: one more than its failures, at most MAX_ATTEMPTS."""
    return min(failures + 1, MAX_ATTEMPTS)


def failed_fraction(schedule: list[int]) -> tuple[int, int]:
    """(failed attempts, attempts) over all the calls of a schedule."""
    return sum(schedule), sum(attempts(k) for k in schedule)


def describe_call(call_id: str, failures: int) -> str:
    outcomes = ["fail"] * failures + (["ok"] if failures < MAX_ATTEMPTS else [])
    tail = " (error to the model)" if failures == MAX_ATTEMPTS else ""
    return f"{call_id} {', '.join(outcomes)}{tail}"


def description(rate: int, schedule: list[int]) -> str:
    failed, made = failed_fraction(schedule)
    calls = "; ".join(describe_call(f"c{i}", k) for i, k in enumerate(schedule, start=1))
    return (
        f"A support agent logs a follow-up note on five tickets, one {TOOL} call per turn, through a notes tool that "
        f'has a failure rate of {rate} %: each attempt\'s failure was drawn once from random.Random("{seed(rate)}") '
        f"(probability {rate / 100:.2f}, until the first success or attempt {MAX_ATTEMPTS}) and is committed as faults; "
        f"attempts per call: {calls}; {failed} of {made} attempts fail. "
        f"The contract retries a failed call under its key up to {MAX_ATTEMPTS} attempts, saves each note once, and "
        f"hands a call that fails {MAX_ATTEMPTS} times back to the model as an error result."
    )


def covers(schedule: list[int]) -> list[str]:
    tags = ["basic_react"]
    if any(schedule):
        tags.append("retry_before_effect")
    if MAX_ATTEMPTS in schedule:
        tags.append("tool_error_as_message")
    return tags


def model_script() -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"c{i}", "name": TOOL, "arguments": {"key": f"followup-{ticket}", "text": text}}]} for i, (ticket, text) in enumerate(TICKETS, start=1)
    ]
    turns.append({"text": "I went through your five open tickets and logged a follow-up note on each; the tool results above show any note that could not be saved."})
    return turns


def expected(schedule: list[int]) -> dict[str, Any]:
    """The contract's observables, from the schedule alone (never copied from a run)."""
    side_effects = {
        f"c{i}": {"tool_entries": attempts(k), "executor_entries": attempts(k), "effects": 0 if k == MAX_ATTEMPTS else 1} for i, k in enumerate(schedule, start=1)
    }
    return {
        "status": "completed",
        "step_statuses": ["completed"],
        "refusals": [],
        "side_effects": side_effects,
        "model": {
            "calls_per_turn": {str(turn): 1 for turn in range(len(schedule) + 1)},
            "missing_turns": [],
            "unused_turns": [],
            "injected": [],
            "marker_roles": [],
        },
        "schema_failure_side_effects": "n/a",
        "pre_approval_state": "n/a",
        "idempotent_replay": "n/a",
        "checkpoint_after_interrupt": "n/a",
    }


def scenario(rate: int) -> dict[str, Any]:
    schedule = draw_schedule(rate)
    sid = scenario_id(rate)
    return {
        "id": sid,
        "description": description(rate, schedule),
        "covers": covers(schedule),
        "tools": [TOOL],
        "session_id": f"sess-{sid}",
        "user_input": "Log a follow-up note on each of my five open tickets.",
        "system_prompt": "You are a support agent for a small bank. Use the tools when they help.",
        "max_steps": 8,
        "model_script": model_script(),
        "driver": [{"action": "run", "event_id": "e1"}],
        "faults": [{"point": "tool.raise_before_effect", "call_id": f"c{i}"} for i, k in enumerate(schedule, start=1) for _ in range(k)],
        "failure_rate": {"percent": rate, "seed": seed(rate)},
        "expected": expected(schedule),
    }


def render(rate: int) -> str:
    """The file's bytes as text: two-space JSON in the committed scenarios' key order, a trailing newline."""
    return json.dumps(scenario(rate), indent=2, ensure_ascii=False) + "\n"


def path(rate: int, directory: Path = SCENARIO_DIR) -> Path:
    return directory / f"{scenario_id(rate)}.json"
