"""The teaching views (``harness.runner_side.publish.report``): the scorecard's cells follow the evidence by their rules, the
loop's replay follows the engine's trace, and the page is self-contained and the same bytes every time."""

from __future__ import annotations

import copy
import dataclasses
import html
import json
import re
from typing import Any

import pytest

from handwritten.engine import MAX_ATTEMPTS
from harness.columns import ROOT
from harness.runner_side.publish.report.page import render_report
from harness.runner_side.publish.report.scorecard import STAGES, scorecard, scorecard_svg
from harness.runner_side.publish.report.views import loop_replay, state_at, step_cell
from harness.scenarios import SCENARIO_DIR, load_scenarios
from tests.harness.runner_side.publish.report_text_attack import ATTACK, attacked, script_blocks

EVIDENCE = ROOT / "evidence"
SCENARIOS = {s.id: s for s in load_scenarios(SCENARIO_DIR)}


@pytest.fixture(scope="module")
def documents() -> dict[str, dict[str, Any]]:
    skip = {"availability", "timings", "evidence.schema", "sweep"}
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(EVIDENCE.glob("*.json")) if p.stem not in skip}


def test_a_behaviours_cell_counts_the_scenarios_whose_stored_reasons_carry_its_rule(documents: dict[str, dict[str, Any]]) -> None:
    """Recounted here from the stored reasons: for every rule row and every framework column, the scenarios behind the
    cell are those whose record in that mode has a reason of the rule explaining one of its cells."""
    card = scorecard(documents, SCENARIOS)
    checked = 0
    for row_id, _, _ in card.rows:
        if not row_id.startswith("rule:"):
            continue
        rule = row_id[5:]
        for column in card.columns:
            name, mode = column.split("/")
            records = documents[name]["modes"][mode]["scenarios"]
            expected = sorted({k.split("@")[0] for k, r in records.items()
                               if any(rule in c.get("rules", ()) for c in r.get("columns", {}).values())
                               and any(x["rule"] == rule for x in r.get("reasons", ()))})  # fmt: skip
            assert sorted(card.cells[(row_id, column)].scenarios) == expected, (rule, column)
            checked += 1
    assert checked > 100


def test_a_stage_holds_until_a_finding_of_one_of_its_rules_appears_in_a_scenario(documents: dict[str, dict[str, Any]]) -> None:
    """The local state graph holds every stage. Give its ``duplicate_event`` record a reason of a rule outside the
    idempotency stage and the stage still holds; one of ``executed_again`` (an idempotency rule) explaining a cell, and
    the stage is broken in exactly that scenario, out of the scenarios the column played."""
    column = "local_state_graph/contract"
    assert all(scorecard(documents, SCENARIOS).cells[(f"stage:{s}", column)].mark in ("holds", "n/a") for s in STAGES)
    changed = copy.deepcopy(documents)
    records = changed["local_state_graph"]["modes"]["contract"]["scenarios"]
    record = records["duplicate_event"]
    record["columns"]["model"] |= {"equal": False, "rules": ["turns_beyond_script"]}
    record["reasons"] = [{"rule": "turns_beyond_script", "text": "t", "claims": ["model"]}]
    assert scorecard(changed, SCENARIOS).cells[("stage:idempotency", column)].mark == "holds"
    record["columns"]["side_effects"] |= {"equal": False, "rules": ["executed_again"]}
    record["reasons"].append({"rule": "executed_again", "text": "t", "claims": ["side_effects"]})
    cell = scorecard(changed, SCENARIOS).cells[("stage:idempotency", column)]
    assert (cell.mark, cell.scenarios, cell.rules, cell.of) == ("differs", ("duplicate_event",), ("executed_again",), len(records))


def test_the_ledger_lane_marks_effects_beyond_the_engines_at_the_same_step(documents: dict[str, dict[str, Any]]) -> None:
    """A framework record whose step has more effects for a call than the engine's record at that step is marked."""
    engine = documents["handwritten"]["modes"]["contract"]["scenarios"]["crash_resume"]
    record = copy.deepcopy(engine)
    record["facts"][1].setdefault("effects", {})["c1"] = 1  # the resume ran c1's effect again
    ledger = {lane.name: lane for lane in step_cell(record, 1, engine).lanes}["ledger, this step"]
    marks = {attrs["call_id"]: attrs["exceeds"] for _, attrs in ledger.items}
    assert marks["c1"] == "true" and marks.get("c2", "false") == "false"
    same = {lane.name: lane for lane in step_cell(engine, 1, engine).lanes}["ledger, this step"]
    assert all(attrs["exceeds"] == "false" for _, attrs in same.items)


def test_the_loop_replays_the_trace_one_event_per_state_with_attempts_against_the_engines_bound() -> None:
    """A call that fails twice then succeeds, then one that fails every attempt: the attempt counter follows the trace
    (2 failures, then the third attempt that succeeded; 3 failures and an error result; 0 once a turn starts), the step
    counter follows the model turns, the messages grow by the user input, each assistant turn and each tool result, and
    the run's status shows at the last event."""
    scenario = dataclasses.replace(SCENARIOS["basic_react_loop"], system_prompt=None, user_input="hi")
    trace = [
        {"kind": "run_started"},
        {"kind": "model_turn", "step": 1, "call_ids": ["c1"], "final_text": None},
        {"kind": "call_admitted", "call_id": "c1"},
        {"kind": "tool_attempt_failed", "call_id": "c1", "attempt": 1},
        {"kind": "tool_attempt_failed", "call_id": "c1", "attempt": 2},
        {"kind": "tool_result", "call_id": "c1", "status": "ok", "content": "{}"},
        {"kind": "model_turn", "step": 2, "call_ids": ["c2"], "final_text": None},
        {"kind": "call_admitted", "call_id": "c2"},
        *({"kind": "tool_attempt_failed", "call_id": "c2", "attempt": n} for n in range(1, MAX_ATTEMPTS + 1)),
        {"kind": "tool_result", "call_id": "c2", "status": "error", "content": "{\"error\": \"failed\"}"},
        {"kind": "model_turn", "step": 3, "call_ids": [], "final_text": "Sorry."},
    ]
    replay = loop_replay(scenario, {"trace": trace, "steps": [{"status": "completed"}]})
    states = [state_at(replay, index) for index in range(len(trace))]
    assert [s["status"] for s in states] == [""] * (len(trace) - 1) + ["completed"]
    assert len(states) == len(trace) and [s["event"] for s in states] == trace == replay["events"]
    assert [s["attempt"] for s in states] == [0, 0, 0, 1, 2, 3, 0, 0, 1, 2, 3, 3, 0]
    assert [s["step"] for s in states] == [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3]
    assert [role for role, _ in states[-1]["messages"]] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert states[-2]["messages"][-1][1].startswith("c2 (error)")
    assert [len(s["messages"]) for s in states] == [1, 2, 2, 2, 2, 3, 4, 4, 4, 4, 4, 5, 6]


def test_the_committed_views_are_what_the_committed_evidence_generates_and_need_nothing_outside(documents: dict[str, dict[str, Any]]) -> None:
    """The report and the scorecard picture, generated here from the committed evidence, are the committed files byte for
    byte (the run that wrote them was another process: nothing in them depends on it). The page loads nothing: every
    link is an anchor in the page, no element has a source, a stylesheet link, a frame or an object, and its policy
    forbids any request."""
    page = render_report(documents, SCENARIOS, sweep=json.loads((EVIDENCE / "sweep.json").read_text(encoding="utf-8")))
    assert page == (EVIDENCE / "report.html").read_text(encoding="utf-8"), "evidence/report.html is stale: rerun the comparison"
    assert scorecard_svg(scorecard(documents, SCENARIOS)) == (EVIDENCE / "scorecard.svg").read_text(encoding="utf-8")
    assert "default-src 'none'" in page
    assert not re.findall(r"\b(?:src|srcset)=|<link\b|<iframe\b|<object\b|<embed\b|<base\b|@import|url\(", page)
    anchors = set(re.findall(r"id='([^']+)'", page))
    links = re.findall(r"href='([^']*)'", page)
    assert links and all(link.startswith("#") and link[1:] in anchors for link in links)


def test_scenario_and_column_text_cannot_end_or_comment_out_a_script_block(documents: dict[str, dict[str, Any]]) -> None:
    """With ``ATTACK`` in every text a scenario or column brings, the page holds exactly its own two script elements
    (the loop's data and its script): no ``<script`` anywhere else, none of them enters a comment (``<!--``) or ends
    early, no line separator reaches a payload raw, and the loop's data reads back with the text unchanged. Everywhere
    else the text is HTML-escaped: every scenario section is there, the description shown as text."""
    changed, scenarios = attacked(documents, SCENARIOS)
    page = render_report(changed, scenarios)
    blocks = script_blocks(page)
    assert len(blocks) == 2 and page.lower().count("<script") == 2
    for block in blocks:
        assert "<!--" not in block and "<script" not in block.lower() and "\u2028" not in block and "\u2029" not in block
    messages = json.loads(blocks[0])["runs"]["flaky_tool_rate_20"]["messages"]
    assert messages[0][1].endswith(ATTACK) and messages[1][1].endswith(ATTACK) and messages[-1] == ["assistant", ATTACK]
    assert page.count("<section class='scenario'") == page.count("<section class='scenario' id='scenario-") == len({
        k.split("@")[0] for d in documents.values() for b in d["modes"].values() for k in b["scenarios"]})
    assert f"<p>{html.escape(ATTACK)}</p>" in page
