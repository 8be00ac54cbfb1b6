"""The contract's step bound across a resume: ``max_steps`` model turns since the last user input, counted from the saved
conversation, so a resume (after an approval, after a kill) continues the count instead of starting a new one, and a
new user input starts it again. Contract mode: a framework's own bound, if it has one, is findings' business."""

from __future__ import annotations

import pytest
from conformance import RUN, Play, Played, approve, scenario, transfer, weather

from harness.column_side.protocol import ColumnAdapter
from harness.scenarios import Fault


def modes(column: ColumnAdapter) -> list[str]:
    return ["contract"]


# max_steps 2: turn 0 (two reads: one turn), turn 1 pauses on a transfer; the approval's run may take no turn 2. A second
# input gets two turns again (2 and 3).
AFTER_APPROVAL = scenario(
    "bound_after_approval", ("get_weather", "transfer_funds"),
    [{"tool_calls": [weather("c1"), weather("c2")]}, {"tool_calls": [transfer("c3", 5)]}, {"tool_calls": [weather("c4")]}, {"text": "Done."}, {"text": "Never."}],
    [RUN, approve("c3"), {"action": "run", "event_id": "e2", "input": "And now?"}], max_steps=2,
)
# max_steps 2: the process dies as the model is asked for turn 1; the resume continues the saved conversation, which
# holds turn 0: the model gets turn 1 again and never turn 2
AFTER_KILL = scenario("bound_after_kill", ("get_weather",), [{"tool_calls": [weather(f"w{i}")]} for i in (1, 2, 3)] + [{"text": "Done."}],
                      [RUN, {"action": "resume"}], (Fault("model.kill_before_turn", turn=1),), max_steps=2)


@pytest.fixture(scope="module")
def after_approval(mode: str, play: Play) -> Played:
    return play(mode, AFTER_APPROVAL)


def test_the_approvals_resume_continues_the_count(after_approval: Played) -> None:
    assert after_approval.statuses[:2] == ["awaiting_approval", "stopped_max_steps"]
    assert after_approval.counts("tool_entries")[1] == {"c1": 1, "c2": 1, "c3": 1}  # the approved transfer ran; c4 was never asked for


# LangChain's glue ends a bounded run with a closing AIMessage (adapters/langchain/glue.py, ``before_model``), which stays
# in the saved conversation: the next run's request carries it as an assistant turn the model never made (the scripted
# model reports it injected, and counts it as turn 2). A contract defect this suite found (no committed scenario runs
# again after the bound), not yet fixed in the adapter: the test fails for it, and says so until it is fixed.
BOUND_MESSAGE_KEPT = {"langchain"}


def test_a_new_input_starts_the_count_again(after_approval: Played, column: ColumnAdapter, request: pytest.FixtureRequest) -> None:
    if column.name in BOUND_MESSAGE_KEPT:
        request.applymarker(pytest.mark.xfail(strict=True, reason="contract defect: the bound's closing message reaches the next run's model"))
    assert after_approval.statuses[2] == "completed"
    # no assistant turn the model never made (a framework's own system text, Google ADK's identity line, is another finding)
    assert [t for t in after_approval.injected if t.startswith("assistant:")] == []
    assert after_approval.turns == {"0": 1, "1": 1, "2": 1, "3": 1}  # turns 2 and 3 after the new input, each asked once


def test_a_kills_resume_continues_the_count(mode: str, play: Play) -> None:
    played = play(mode, AFTER_KILL)
    assert played.statuses == ["crashed", "stopped_max_steps"]
    assert played.turns == {"0": 1, "1": 2}  # turn 1 asked twice (killed, then resumed); turn 2 never
    assert played.counts("tool_entries")[-1] == {"w1": 1, "w2": 1}
