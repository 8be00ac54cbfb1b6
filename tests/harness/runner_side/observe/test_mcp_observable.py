"""The ``mcp`` observable (``harness.runner_side.observe.mcp``): what a client did with the answers an MCP fault kept
from it and with arguments that break a tool's schema, from the runner's server's answers or, for the engine's own
client, from what its server traced."""

from __future__ import annotations

from harness.runner_side.observe.mcp import mcp_observable, traced_answers
from harness.scenarios import SCENARIO_DIR, load_scenario

SLOW = load_scenario(SCENARIO_DIR / "mcp_slow_answer.json")
DIES = load_scenario(SCENARIO_DIR / "mcp_server_dies_after_effect.json")
PLAIN = load_scenario(SCENARIO_DIR / "basic_react_loop.json")


def test_a_call_sent_again_after_its_lost_answer_counts_each_later_send() -> None:
    assert mcp_observable(DIES, {"c1": ["died", "ok", "replayed"]}, False) == {"withdrawn": [], "sent_again": {"c1": 2}}
    assert mcp_observable(DIES, {"c1": ["ok", "ok"]}, False) == {"withdrawn": [], "sent_again": {}}  # nothing lost: a second send is no resend


def test_each_part_is_there_only_where_the_scenario_exercises_it() -> None:
    assert mcp_observable(SLOW, {"c1": ["withdrawn"]}, True) == {"withdrawn": ["c1"], "sent_again": {}, "sent_invalid": []}
    assert mcp_observable(PLAIN, {"c1": ["invalid_arguments"]}, True) == {"sent_invalid": ["c1"]}
    assert mcp_observable(PLAIN, {"c1": ["ok"]}, False) == "n/a"  # no MCP fault, no invalid call
    assert mcp_observable(SLOW, None, True) == "n/a"  # tools not behind an MCP server


def test_the_engines_client_is_read_from_what_its_server_traced() -> None:
    trace = [
        {"kind": "boundary_call", "source": "mcp_server", "call_id": "c1", "status": "ok"},
        {"kind": "uncertain_outcome", "call_id": "c1", "reason": "AnswerLost"},  # the client's: its answer never came
        {"kind": "boundary_call", "source": "mcp_server", "call_id": "c2", "status": "uncertain"},
        {"kind": "uncertain_outcome", "call_id": "c2", "reason": "the server reports it uncertain"},  # an answer that came
        {"kind": "boundary_call", "source": "mcp_server", "call_id": "c3", "status": "ok"},
        {"kind": "answer_withdrawn", "source": "mcp_server", "call_id": "c3", "tool": "put_note"},
        {"kind": "boundary_call", "call_id": "c4", "status": "ok"},  # an in-process boundary: not the MCP server's
    ]
    assert traced_answers(trace) == {"c1": ["died"], "c2": ["uncertain"], "c3": ["withdrawn"]}
