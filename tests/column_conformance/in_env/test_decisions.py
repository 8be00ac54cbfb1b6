"""Decisions reach their own calls: a turn's three high-risk calls, decided one at a time in reverse order (approve c3,
reject c2, reject c1), each by its call id.

``contract``, the same for every column: each decision lands on its own call (the approved transfer runs, the rejected
calls never enter their tools), the turn is approved as a whole (nothing runs before its last decision), and the model
hears every call's answer with one next turn. ``defaults`` for the frameworks that take such decisions the same way,
the calls each runs at once as data."""

from __future__ import annotations

import os

import pytest
from conformance import RUN, Play, Played, approve, reject, scenario, transfer

from harness.column_side.protocol import ColumnAdapter

EMAIL = {"id": "c2", "name": "send_email", "arguments": {"to": "supplier@example.org", "subject": "Receipt", "body": "Paid."}}
# c1 and c3 are both transfers, decided differently: a decision landing on the other one runs the other transfer
REVERSE = scenario("reverse_decisions", ("transfer_funds", "send_email"), [{"tool_calls": [transfer("c1", 100), EMAIL, transfer("c3", 300)]}, {"text": "Done."}],
                   [RUN, approve("c3"), reject("c2"), reject("c1")])

# defaults: the calls a framework runs as soon as the human approves them, while the turn's other calls still wait (the
# contract holds an approval until the turn is decided). Measured: evidence/openai_agents.json, defaults,
# uncertain_then_second_transfer, and its probe. A column missing here takes the turn otherwise in defaults: AgentScope
# asks about the third call only once the first two are answered (an approval of c3 first is refused, "not waiting for
# confirmation"); its own test decides two calls (tests/agentscope_column/in_env/test_as_column.py).
RUN_WHEN_APPROVED_IN_DEFAULTS = {"langgraph": set(), "langchain": set(), "pydantic_ai": set(), "openai_agents": {"c3"}}


def modes(column: ColumnAdapter) -> list[str]:
    return ["contract"] + (["defaults"] if column.name in RUN_WHEN_APPROVED_IN_DEFAULTS else [])


@pytest.fixture(scope="module")
def played(mode: str, play: Play) -> Played:
    return play(mode, REVERSE)


# defaults at LangGraph 0.6: ``StateSnapshot.interrupts`` still lists a decided call's interrupt while the turn's other
# calls wait (its task has finished; 1.x drops it), so the column reports it waiting (adapters/langgraph/MAPPING.md,
# "At the pin 0.6.11"). The contract asks about a call once at every pin.
DECIDED_STILL_LISTED_IN_DEFAULTS = {"langgraph@0.6.11"}


def test_the_turn_waits_for_its_calls_still_undecided(played: Played, mode: str) -> None:
    assert played.statuses == ["awaiting_approval"] * 3 + ["completed"]
    if mode == "defaults" and os.environ["COLUMN"] in DECIDED_STILL_LISTED_IN_DEFAULTS:
        assert played.pending == [["c1", "c2", "c3"], ["c1", "c2", "c3"], ["c1", "c3"], []]  # a rejection's answer is a message
        return
    assert played.pending == [["c1", "c2", "c3"], ["c1", "c2"], ["c1"], []]  # a decided call no longer waits


def test_each_decision_reaches_its_own_call(played: Played, mode: str, column: ColumnAdapter) -> None:
    early = {c: 1 for c in RUN_WHEN_APPROVED_IN_DEFAULTS[column.name]} if mode == "defaults" else {}
    assert played.counts("effects") == [{}, early, early, {"c3": 1}]  # the approved transfer once, when its turn is decided
    assert played.counts("tool_entries")[-1] == {"c3": 1}  # the rejected calls never entered their tools
    assert sorted(played.results) == ["c1", "c2", "c3"] and played.results["c3"] == ["ok"]
    assert played.turns == {"0": 1, "1": 1}  # one next turn, with every answer
