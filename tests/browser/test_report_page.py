"""The report the committed evidence generates (``tests/harness/runner_side/publish/test_report.py`` checks that it is the committed
``evidence/report.html`` byte for byte; rendered here by the code under test, so a change to the page is checked before
the evidence is regenerated) in Debian's Chromium, clicked through as a reader would, every shown value checked against
the committed evidence files (not against the page's own data): the scorecard's counts, every driver step of three
scenarios (a kill and a resume; parallel calls and an approval; a misused approval) in every column, the loop at every
failure rate, event by event, with the same scenario beside it; and a page whose scenario and column texts try to end
or comment out its script blocks. The ``page`` fixture fails a test on any console error, uncaught exception or request
leaving the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.columns import REFERENCE, ROOT
from harness.modes import compared_with
from harness.runner_side.publish.report.page import render_report
from harness.scenarios import SCENARIO_DIR, load_scenarios
from tests.harness.runner_side.publish.report_text_attack import ATTACK, attacked

if TYPE_CHECKING:
    from playwright.sync_api import Page

EVIDENCE = ROOT / "evidence"
SCENARIOS = ("crash_resume", "high_risk_in_parallel_batch", "approval_misuse_other_args")
"""A kill and a resume; parallel calls and an approval; a misused approval."""
ENGINE_BOUND = 3


def _evidence() -> dict[str, dict[str, Any]]:
    skip = {"availability", "timings", "evidence.schema", "sweep"}
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(EVIDENCE.glob("*.json")) if p.stem not in skip}


DOCUMENTS = _evidence()
SCENARIO_FILES = {s.id: s for s in load_scenarios(SCENARIO_DIR)}


def _written(directory: Path, documents: dict[str, dict[str, Any]], scenarios: dict[str, Any]) -> str:
    path = directory / "report.html"
    path.write_text(render_report(documents, scenarios), encoding="utf-8")
    return path.as_uri()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The ``file://`` URL of the report generated from the committed evidence and scenarios."""
    return _written(tmp_path_factory.mktemp("report"), DOCUMENTS, SCENARIO_FILES)


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


def _engine_facts(column: str, scenario: str, step: int) -> dict[str, Any] | None:
    """The engine's facts a column's step is marked against: its wire run for a wire column, else its contract run;
    None for the engine's own columns."""
    name, rest = column.split("/", 1)  # <column>/<mode>[@<schedule>]: a column at an extra pin is <adapter>@<version>
    mode = rest.split("@")[0]
    if name == REFERENCE:
        return None
    reference, engine_mode = compared_with(mode)
    runs = DOCUMENTS[reference]["modes"][engine_mode]["scenarios"]
    return _facts(runs[scenario], step) if scenario in runs else {}


def _facts(record: dict[str, Any], step: int) -> dict[str, Any]:
    return next((f for f in record.get("facts", ()) if f.get("step") == step), {})


READ_ROW = """(section) => {
  const row = section.querySelector(`tr.step[data-step='${section.dataset.current}']`);
  const hidden = Array.from(section.querySelectorAll('tr.step')).filter((r) => r.hidden).map((r) => Number(r.dataset.step));
  const texts = (td, lane) => Array.from(td.querySelectorAll(`[data-lane='${lane}'] .item`)).map((i) => i.textContent);
  const cells = {};
  row.querySelectorAll('td.cell').forEach((td) => {
    cells[td.dataset.column] = {status: texts(td, 'status'), ledger: texts(td, 'ledger, this step'), calls: texts(td, 'calls'),
                                approvals: texts(td, 'approvals')};
  });
  return {current: Number(section.dataset.current), hidden, cells};
}"""


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_driver_step_shows_each_columns_status_ledger_and_results_as_the_evidence_holds(page: Page, report: str, scenario: str) -> None:
    page.goto(f"{report}#scenario-{scenario}")
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
            cell, facts, engine = shown["cells"][column], _facts(record, index), _engine_facts(column, scenario, index)
            assert cell["status"][0] == record["steps"][index]["status"], (column, index)  # what the reader sees first
            assert ("the worker was killed here" in cell["status"]) == bool(facts.get("killed")), (column, index)
            counted = sorted(set(facts.get("entered", {})) | set(facts.get("executed", {})) | set(facts.get("effects", {})))
            expected = []
            for c in counted:
                effects, theirs = facts.get("effects", {}).get(c, 0), (engine or {}).get("effects", {}).get(c, 0)
                line = f"{c}: entered {facts.get('entered', {}).get(c, 0)}, executed {facts.get('executed', {}).get(c, 0)}, effects {effects}"
                expected.append(line + (f" (engine: {theirs} at this step)" if engine is not None and effects > theirs else ""))
            assert cell["ledger"] == expected, (column, index)
            assert [t for t in cell["calls"] if "→" in t] == [f"{c} → {outcome}" for c, outcome in facts.get("results", ())], (column, index)
            pre = _observable(record, "pre_approval_state")
            pauses = [p for p in (pre.get("pauses", ()) if isinstance(pre, dict) else ()) if p["step"] == index]
            asked = [t.split()[1] for t in cell["approvals"] if t.startswith("asked: ")]
            assert asked == [c["call_id"] for p in pauses for c in p["pending"]], (column, index)
            ran = [t for t in cell["calls"] if " took effect with " in t]
            assert ran == [f"{c} took effect with {json.dumps(e, sort_keys=True)}" for c, es in facts.get("ran_with", {}).items() for e in es], (column, index)
            assert len(ran) == sum(facts.get("effects", {}).values()), (column, index)  # one line per effect the ledger counted
    section.locator(".step-prev").click()
    assert section.evaluate("(s) => Number(s.dataset.current)") == steps - 2


def _found(name: str, mode: str, rules: set[str]) -> set[str]:
    """The scenarios (sub-cases counted once) whose record has a stored reason of one of ``rules`` explaining one of its cells."""
    return {k.split("@")[0] for k, r in DOCUMENTS[name]["modes"][mode]["scenarios"].items()
            if any(x["rule"] in rules and any(x["rule"] in c.get("rules", ()) for c in r.get("columns", {}).values()) for x in r.get("reasons", ()))}  # fmt: skip


def test_the_scorecards_counts_are_recounted_from_the_evidence(page: Page, report: str) -> None:
    """Every behaviour cell's visible ``● N/M``: N the scenarios whose stored reasons carry the rule, M the scenarios the
    column played in that mode. Every stage cell's ``✗ N/M``: N the scenarios with a reason of one of the stage's rules
    (the rules its hover names); a stage holds (✓) where none is. Its link opens its first scenario."""
    page.goto(report)
    cells = page.evaluate("""() => Array.from(document.querySelectorAll("table.scorecard td[data-row]")).map((td) => (
        {row: td.dataset.row, column: td.dataset.column, text: td.textContent.trim(), title: td.title}))""")
    assert len(cells) > 200
    for cell in cells:
        name, mode = cell["column"].split("/")
        played = {k.split("@")[0] for k in DOCUMENTS[name]["modes"][mode]["scenarios"]}
        kind, row = cell["row"].split(":", 1)
        if kind == "rule":
            found = _found(name, mode, {row})
            assert cell["text"] == (f"● {len(found)}/{len(played)}" if found else "·"), cell
        elif name != REFERENCE:
            rules = set(cell["title"].split("rules: ", 1)[1].split(", ")) if "rules: " in cell["title"] else set()
            found = _found(name, mode, rules) if rules else set()
            assert cell["text"] in ((f"✗ {len(found)}/{len(played)}",) if found else ("✓", "–")), cell
            assert not rules or found, cell  # a rule the hover names has a finding behind it
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
  status: document.getElementById('loop-status').textContent,
  messages: Array.from(document.querySelectorAll('#loop-messages li')).map((li) => [li.dataset.role, li.textContent]),
  beside: Array.from(document.querySelectorAll('.loop-frameworks')).filter((d) => !d.hidden).map((d) => d.dataset.scenario),
  besideSections: Array.from(document.querySelectorAll('.loop-frameworks')).filter((d) => !d.hidden).map((d) => {
    const copy = d.querySelector('section.scenario');
    const original = document.getElementById(`scenario-${d.dataset.scenario}`);
    return [copy.id, copy.dataset.current, copy.innerHTML === original.innerHTML, copy.querySelectorAll('td.cell').length];
  }),
})"""


def test_the_loop_replays_the_engines_trace_at_every_failure_rate(page: Page, report: str) -> None:
    """At each position of the failure-rate control (the scenarios stating a ``failure_rate``, lowest first) the loop
    plays that scenario; every click shows the next event of the engine's recorded trace, the model step, the attempt of
    the call in flight (failures recounted from the trace; 0 once a turn starts), the messages so far, and at the last
    event the run's status; a call that failed every attempt reaches the model as an error result."""
    engine = DOCUMENTS[REFERENCE]["modes"]["contract"]["scenarios"]
    rates = sorted((s.failure_rate["percent"], s.id) for s in load_scenarios(SCENARIO_DIR) if s.failure_rate is not None)
    assert [r for r, _ in rates] == [0, 20, 50, 80]
    page.goto(f"{report}#loop")
    exhausted = 0
    for position, (rate, scenario) in enumerate(rates):
        page.locator("#failure-rate").fill(str(position))
        trace, steps = engine[scenario]["trace"], engine[scenario]["steps"]
        shown = page.evaluate(READ_LOOP)
        kinds = [e["kind"] for e in trace]
        attempts = kinds.count("tool_attempt_failed") + sum(1 for e in trace if e["kind"] == "tool_result" and e["status"] == "ok")
        label = f"{rate} %: in this run {kinds.count('tool_attempt_failed')} of {attempts} attempts failed"
        assert (shown["scenario"], shown["label"], shown["count"], shown["beside"]) == (scenario, label, len(trace), [scenario])
        # beside it the scenario's own section, copied by the script (a cell per column and driver step), its stepper set up
        assert shown["besideSections"] == [[f"loop-{scenario}", "0", True, len(_records(scenario)) * len(SCENARIO_FILES[scenario].driver)]]
        assert shown["maxAttempts"] == ENGINE_BOUND and shown["maxSteps"] == json.loads((ROOT / "scenarios" / f"{scenario}.json").read_text())["max_steps"]
        failed, step, tools, attempt = 0, 0, 0, 0
        for index, event in enumerate(trace):
            if index:
                page.locator("#loop-next").click()
                shown = page.evaluate(READ_LOOP)
            if event["kind"] in ("call_admitted", "model_turn"):
                failed = attempt = 0
            elif event["kind"] == "tool_attempt_failed":
                failed = attempt = failed + 1
            elif event["kind"] == "tool_result":
                attempt = failed + 1 if event["status"] == "ok" else failed
            step = event["step"] if event["kind"] == "model_turn" else step
            tools += event["kind"] == "tool_result"
            assert (shown["index"], shown["kind"], shown["step"], shown["attempt"]) == (index + 1, event["kind"], step, attempt), (scenario, index)
            assert sum(1 for role, _ in shown["messages"] if role == "tool") == tools, (scenario, index)
            assert shown["status"] == (steps[-1]["status"] if index == len(trace) - 1 else ""), (scenario, index)
            if event["kind"] == "tool_result" and event["status"] != "ok":
                assert failed == ENGINE_BOUND and shown["messages"][-1][1].startswith(f"tool: {event['call_id']} (error)")
                exhausted += 1
    assert exhausted >= 1, "no committed rate exhausts the engine's attempts: the error-as-result path is not shown"


def test_text_that_would_end_or_comment_out_a_script_block_shows_as_text(page: Page, tmp_path: Path) -> None:
    """``ATTACK`` (an HTML comment opener and script tags, end tags, line separators) in a flaky scenario's description,
    system prompt and input, in the engine's model message and tool result, a driver step's error, a call id and a
    framework's reason: the page still has every scenario section, its script runs (the loop plays to its last event,
    whose message is the text, shown as text), the text is the description of its sections, and nothing of it ran."""
    documents, scenarios = attacked(DOCUMENTS, SCENARIO_FILES)
    page.goto(_written(tmp_path, documents, scenarios) + "#loop")
    played = {k.split("@")[0] for d in DOCUMENTS.values() for b in d["modes"].values() for k in b["scenarios"]}
    assert page.locator("section.scenario[id^='scenario-']").count() == len(played)
    position = sorted((s.failure_rate["percent"], s.id) for s in scenarios.values() if s.failure_rate).index((20, "flaky_tool_rate_20"))
    page.locator("#failure-rate").fill(str(position))
    page.locator("#loop-end").click()
    shown = page.evaluate(READ_LOOP)
    assert shown["scenario"] == "flaky_tool_rate_20" and shown["index"] == shown["count"] > 1
    assert shown["messages"][0] == ["system", f"system: (the scenario's system prompt) {ATTACK}"]
    assert shown["messages"][-1] == ["assistant", f"assistant: {ATTACK}"]
    for sid in ("flaky_tool_rate_20", "basic_react_loop"):
        assert page.locator(f"section#scenario-{sid} > p").text_content() == ATTACK
    assert page.title() == "What each framework hides"
    error = page.locator(f"section#scenario-flaky_tool_rate_20 td.cell[data-column='{REFERENCE}/contract'] .item[data-error='true']")
    assert error.first.text_content() == f"error: {ATTACK}"
