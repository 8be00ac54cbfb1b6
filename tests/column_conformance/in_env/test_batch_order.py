"""A turn's calls run in the model's order, whichever of a framework's threads or tasks reaches its tool first
(``checkpoint_schedule.order_batches`` for the columns whose framework runs a batch's calls in threads): a balance read,
an approved transfer from that account and a second read, in one turn. Each call is held back at its tool's entry longer
than the calls after it (the race they would win unordered), yet the first read sees the balance before the transfer and
the second the balance after it."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from conformance import RUN, Play, approve, scenario, transfer

from harness.column_side.fixtures.world import FixtureWorld
from harness.column_side.protocol import ColumnAdapter
from harness.fixture_tools import OPENING_BALANCE_CENTS

BALANCE = {"name": "get_balance", "arguments": {"account": "ACC-1"}}
CALLS = [{"id": "b1", **BALANCE}, transfer("t1", 2500), {"id": "b2", **BALANCE}]
HELD_BACK_S = {"b1": 0.06, "t1": 0.03}  # ample for a thread that is not held back to overtake
BATCH = scenario("batch_order", ("get_balance", "transfer_funds"), [{"tool_calls": CALLS}, {"text": "Sent."}], [RUN, approve("t1")])
# defaults: these frameworks run a read beside a transfer that waits for the human before the pause, so both reads see the
# opening balance (evidence/<column>.json, defaults, high_risk_in_parallel_batch: the note ran before the decision; and
# its probe; Google ADK runs every call of the turn but the one its confirmation gate holds). LangGraph's and LangChain's
# turn waits as a whole, as the contract's; AgentScope runs b1 before it asks about t1, and b2 after: each in the model's order.
READ_BEFORE_THE_PAUSE_IN_DEFAULTS = {"google_adk", "openai_agents", "pydantic_ai"}


def modes(column: ColumnAdapter) -> list[str]:
    return [m for m in ("contract", "defaults") if m in column.modes]


def test_the_calls_run_in_the_models_order(mode: str, play: Play, column: ColumnAdapter, monkeypatch: pytest.MonkeyPatch) -> None:
    entered = FixtureWorld.enter

    def late(self: FixtureWorld, tool: str, call_id: str, raw_args: Any) -> None:
        time.sleep(HELD_BACK_S.get(call_id, 0))
        entered(self, tool, call_id, raw_args)

    monkeypatch.setattr(FixtureWorld, "enter", late)  # the driver's workers fork from this process: they inherit it
    played = play(mode, BATCH)
    assert played.statuses == ["awaiting_approval", "completed"]
    balances = {c: [json.loads(content)["balance_cents"] for content in played.contents(c)] for c in ("b1", "b2")}
    moved = 0 if mode == "defaults" and column.name in READ_BEFORE_THE_PAUSE_IN_DEFAULTS else 2500
    assert balances == {"b1": [OPENING_BALANCE_CENTS], "b2": [OPENING_BALANCE_CENTS - moved]}
