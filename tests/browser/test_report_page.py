"""The committed ``evidence/report.html`` in Debian's Chromium, clicked through as a reader would, every shown value
checked against the committed evidence files (not against the page's own data): the scorecard's counts, every driver
step of three scenarios (a kill and a resume; parallel calls and an approval; a misused approval) in every column, and
the loop at every failure rate, event by event. The ``page`` fixture fails a test on any console error, uncaught
exception or request leaving the file."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from harness.columns import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

EVIDENCE = ROOT / "evidence"
REPORT = (EVIDENCE / "report.html").as_uri()
SCENARIOS = ("crash_resume", "high_risk_in_parallel_batch", "approval_misuse_other_args")
"""A kill and a resume; parallel calls and an approval; a misused approval."""
ENGINE_BOUND = 3


def _evidence() -> dict[str, dict[str, Any]]:
    skip = {"availability", "timings", "evidence.schema"}
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(EVIDENCE.glob("*.json")) if p.stem not in skip}


DOCUMENTS = _evidence()


def _records(scenario: str) -> dict[str, dict[str, Any]]:
    """Every record of a scenario in the evidence, keyed as the page's columns are (``<column>/<mode>[@schedule]``)."""
    out = {}
    for name, document in DOCUMENTS.items():
        for mode, body in document.get("modes", {}).items():
            for key, record in body["scenarios"].items():
                if key.split("@")[0] == scenario:
                    out[f"{name}/{mode}{key[len(scenario):]}"] = record
    return out


def _observable(record: dict[str, Any], name: str) -> Any:
    """An observable as the evidence holds it: a column's in its cell, the engine's in ``actual``."""
    return record["columns"][name]["framework"] if "columns" in record else record["actual"][name]


def _facts(record: dict[str, Any], step: int) -> dict[str, Any]:
    return next((f for f in record.get("facts", ()) if f.get("step") == step), {})


READ_ROW = """(section) => {
  const row = section.querySelector(`tr.step[data-step='${section.dataset.current}']`);
  const hidden = Array.from(section.querySelectorAll('tr.step')).filter((r) => r.hidden).map((r) => Number(r.dataset.step));
  const cells = {};
  row.querySelectorAll('td.cell').forEach((td) => {
    const ledger = {};
    td.querySelectorAll("[data-lane='ledger'] .item").forEach((i) => { ledger[i.dataset.callId] = Number(i.dataset.effects); });
    const results = Array.from(td.querySelectorAll("[data-lane='calls'] .item[data-result]")).map((i) => [i.dataset.callId, i.dataset.result]);
    const asked = Array.from(td.querySelectorAll("[data-lane='approvals'] .item[data-asked]")).map((i) => i.dataset.callId);
    cells[td.dataset.column] = {status: td.dataset.status, ledger, results, asked,
                                killed: td.querySelector("[data-kill='true']") !== null};
  });
  return {current: Number(section.dataset.current), hidden, cells};
}"""


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_driver_step_shows_each_columns_status_ledger_and_results_as_the_evidence_holds(page: Page, scenario: str) -> None:
    page.goto(f"{REPORT}#scenario-{scenario}")
    section = page.locator(f"section#scenario-{scenario}")
    records = _records(scenario)
    steps = int(section.get_attribute("data-steps") or 0)
    assert steps == max(len(r["steps"]) for r in records.values()) and steps >= 2
    for index in range(steps):
        if index:
            section.locator(".step-next").click()
        shown = section.evaluate(READ_ROW)
        assert shown["current"] == index and shown["hidden"] == list(range(index + 1, steps))
        assert set(shown["cells"]) == set(records), "a column of the evidence is missing from the page, or one is extra"
        for column, record in records.items():
            cell, facts = shown["cells"][column], _facts(record, index)
            assert cell["status"] == record["steps"][index]["status"], (column, index)
            counted = set(facts.get("entered", {})) | set(facts.get("executed", {})) | set(facts.get("effects", {}))
            assert cell["ledger"] == {c: facts.get("effects", {}).get(c, 0) for c in counted}, (column, index)
            assert cell["results"] == [list(r) for r in facts.get("results", ())], (column, index)
            assert cell["killed"] == bool(facts.get("killed")), (column, index)
            pre = _observable(record, "pre_approval_state")
            pauses = [p for p in (pre.get("pauses", ()) if isinstance(pre, dict) else ()) if p["step"] == index]
            assert cell["asked"] == [c["call_id"] for p in pauses for c in p["pending"]], (column, index)
    section.locator(".step-prev").click()
    assert section.evaluate("(s) => Number(s.dataset.current)") == steps - 2


def test_the_scorecards_counts_are_the_scenarios_whose_reasons_carry_the_rule(page: Page) -> None:
    """Each behaviour cell's count, recounted from the evidence's stored reasons; its link opens its first scenario."""
    page.goto(REPORT)
    cells = page.evaluate("""() => Array.from(document.querySelectorAll("table.scorecard td[data-row^='rule:']")).map((td) => (
        {row: td.dataset.row, column: td.dataset.column, count: Number(td.dataset.count), text: td.textContent.trim()}))""")
    assert len(cells) > 100
    for cell in cells:
        name, mode = cell["column"].split("/")
        rule = cell["row"].removeprefix("rule:")
        scenarios = {k.split("@")[0] for k, r in DOCUMENTS[name]["modes"][mode]["scenarios"].items()
                     if any(x["rule"] == rule for x in r.get("reasons", ())) and any(rule in c.get("rules", ()) for c in r.get("columns", {}).values())}  # fmt: skip
        assert cell["count"] == len(scenarios), cell
        assert (cell["text"].startswith(f"● {len(scenarios)}/") if scenarios else not cell["text"].startswith("●")), cell
    link = page.locator("table.scorecard td[data-mark='found'] a").first
    target = (link.get_attribute("href") or "").removeprefix("#")
    link.click()
    assert page.evaluate("() => location.hash") == f"#{target}" and page.locator(f"section#{target}").is_visible()


READ_LOOP = """() => ({
  scenario: document.getElementById('loop-scenario').dataset.scenario,
  label: document.getElementById('failure-rate-label').textContent,
  index: Number(document.getElementById('loop-event-index').textContent),
  count: Number(document.getElementById('loop-event-count').textContent),
  step: Number(document.getElementById('loop-step').textContent),
  maxSteps: Number(document.getElementById('loop-max-steps').textContent),
  attempt: Number(document.getElementById('loop-attempt').textContent),
  maxAttempts: Number(document.getElementById('loop-max-attempts').textContent),
  kind: document.getElementById('loop-event').dataset.kind,
  messages: Array.from(document.querySelectorAll('#loop-messages li')).map((li) => [li.dataset.role, li.textContent]),
  beside: Array.from(document.querySelectorAll('.loop-frameworks')).filter((d) => !d.hidden).map((d) => d.dataset.scenario),
})"""


def test_the_loop_replays_the_engines_trace_at_every_failure_rate(page: Page) -> None:
    """At each position of the failure-rate control the loop plays that rate's scenario; every click shows the next
    event of the engine's recorded trace, the model step, the attempt of the current call (failures recounted from the
    trace) and the messages so far; a call that failed every attempt reaches the model as an error result."""
    engine = DOCUMENTS["handwritten"]["modes"]["contract"]["scenarios"]
    rates = sorted((int(k.removeprefix("flaky_tool_rate_")), k) for k in engine if k.startswith("flaky_tool_rate_"))
    assert [r for r, _ in rates] == [0, 20, 50, 80]
    page.goto(f"{REPORT}#loop")
    exhausted = 0
    for position, (rate, scenario) in enumerate(rates):
        page.locator("#failure-rate").fill(str(position))
        trace = engine[scenario]["trace"]
        shown = page.evaluate(READ_LOOP)
        kinds = [e["kind"] for e in trace]
        attempts = kinds.count("tool_attempt_failed") + sum(1 for e in trace if e["kind"] == "tool_result" and e["status"] == "ok")
        label = f"{rate} %: in this run {kinds.count('tool_attempt_failed')} of {attempts} attempts failed"
        assert (shown["scenario"], shown["label"], shown["count"], shown["beside"]) == (scenario, label, len(trace), [scenario])
        assert shown["maxAttempts"] == ENGINE_BOUND and shown["maxSteps"] == json.loads((ROOT / "scenarios" / f"{scenario}.json").read_text())["max_steps"]
        failed, step, tools = 0, 0, 0
        for index, event in enumerate(trace):
            if index:
                page.locator("#loop-next").click()
                shown = page.evaluate(READ_LOOP)
            failed = 0 if event["kind"] == "call_admitted" else failed + (event["kind"] == "tool_attempt_failed")
            step = event.get("step", step) if event["kind"] == "model_turn" else step
            tools += event["kind"] == "tool_result"
            attempt = failed + 1 if event["kind"] == "tool_result" and event["status"] == "ok" else failed
            assert (shown["index"], shown["kind"], shown["step"]) == (index + 1, event["kind"], step), (scenario, index)
            if event["kind"] in ("tool_attempt_failed", "tool_result"):
                assert shown["attempt"] == attempt, (scenario, index)
            assert sum(1 for role, _ in shown["messages"] if role == "tool") == tools, (scenario, index)
            if event["kind"] == "tool_result" and event["status"] != "ok":
                assert failed == ENGINE_BOUND and shown["messages"][-1][1].startswith(f"tool: {event['call_id']} (error)")
                exhausted += 1
    assert exhausted >= 1, "no committed rate exhausts the engine's attempts: the error-as-result path is not shown"
