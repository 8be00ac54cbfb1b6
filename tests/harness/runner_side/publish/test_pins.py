"""What changed between two pins (``harness.runner_side.publish.pins``): read from the two pins' evidence, every value
quoted as the evidence holds it; the rule table finds each kind of change on small documents; FINDINGS.md and the
report say it (``tests/scripts/test_compare_pins.py``: the command line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.columns import ROOT, known_columns
from harness.runner_side.publish.findings import render
from harness.runner_side.publish.pins.diff import Pair, Side, cell_changes, constants, pair_of
from harness.runner_side.publish.pins.lines import compared, versus
from harness.runner_side.publish.pins.rules import APPEARED, WENT, changes, probes_behind
from harness.runner_side.publish.probes import Probe, declared_probes
from harness.runner_side.publish.report.page import render_report
from harness.runner_side.run.environments import column_at, pin_version
from harness.scenarios import SCENARIO_DIR, load_scenarios

EVIDENCE = ROOT / "evidence"
REGISTRY = known_columns()
OLD, NEW = column_at(REGISTRY, "langgraph", "0.6.11"), column_at(REGISTRY, "langgraph", pin_version(REGISTRY["langgraph"]))


def _document(column: str, directory: Path = EVIDENCE) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((directory / f"{column}.json").read_text(encoding="utf-8"))
    return document


def _joined(text: str) -> str:
    """The printed text with its wrapped lines joined again."""
    return " ".join(text.split())


def test_compare_pins_prints_each_differing_cell_with_its_values_and_the_rules_of_each_side() -> None:
    pair = pair_of(REGISTRY, {OLD.name: _document(OLD.name), NEW.name: _document(NEW.name)}, "langgraph", pin_version(OLD), pin_version(NEW))
    said = "\n".join(compared(pair))
    cells = cell_changes(pair)
    assert cells
    for cell in cells:
        assert f"\n{cell.mode}/{cell.key}/{cell.observable}\n" in said
    cell = next(c for c in cells if c.leaves and c.rules("newer"))
    block = said.split(f"\n{cell.mode}/{cell.key}/{cell.observable}\n", 1)[1].split("\n\n", 1)[0]
    assert _joined(versus(cell.leaves[0])) in _joined(block)
    assert f"at {pair.newer.version}: {', '.join(cell.rules('newer'))}" in _joined(block)


# The rule table on small documents: one scenario, one mode, the two pins of LangGraph's registry entries.

def _record(framework: dict[str, Any], rules: list[str], reasons: list[dict[str, Any]]) -> dict[str, Any]:
    cell = {"handwritten": {"c1": {"effects": 1}}, "framework": framework, "equal": framework == {"c1": {"effects": 1}}}
    return {"columns": {"side_effects": {**cell, "rules": rules} if rules else cell}, "reasons": reasons}


def _small(limit: int, framework: dict[str, Any], rules: list[str], reasons: list[dict[str, Any]]) -> dict[str, Any]:
    return {"framework": "x", "status": "measured", "versions": {}, "constants": {"step_limit": {"ref": "fw.config:LIMIT", "value": limit}},
            "mechanisms": {}, "modes": {"defaults": {"scenarios": {"s1": _record(framework, rules, reasons)}}}}


def _pair(older: dict[str, Any], newer: dict[str, Any]) -> Pair:
    return Pair("langgraph", Side("0.6.11", OLD, older), Side("1.2.24", NEW, newer))


def test_a_default_that_moved_is_found_with_the_cells_whose_reasons_quote_it() -> None:
    quoting = [{"rule": "executed_again", "text": "its own bound is 25 (`fw.config:LIMIT`)", "claims": ["side_effects.c1"]}]
    pair = _pair(_small(25, {"c1": {"effects": 2}}, ["executed_again"], quoting), _small(10007, {"c1": {"effects": 1}}, [], []))
    moved = [c for c in changes(pair) if c.rule == "default_moved"]
    assert [(c.subject, c.older["value"], c.newer["value"]) for c in moved] == [("step_limit", 25, 10007)]
    assert [(c.key, c.observable) for c in moved[0].cells] == [("s1", "side_effects")]
    unquoted = _pair(_small(25, {"c1": {"effects": 2}}, ["executed_again"], [{**quoting[0], "text": "no constant here"}]), _small(10007, {"c1": {"effects": 1}}, [], []))
    assert [c.cells for c in changes(unquoted) if c.rule == "default_moved"] == [()]
    same = _pair(_small(25, {"c1": {"effects": 1}}, [], []), _small(25, {"c1": {"effects": 1}}, [], []))
    assert changes(same) == [] and constants(same) == []


def test_a_behaviour_that_appeared_and_one_that_went() -> None:
    reason = [{"rule": "executed_again", "text": "c1 ran twice", "claims": ["side_effects.c1"]}]
    once, twice = _small(25, {"c1": {"effects": 1}}, [], []), _small(25, {"c1": {"effects": 2}}, ["executed_again"], reason)
    appeared = changes(_pair(once, twice))
    assert [(c.rule, c.subject, c.mode) for c in appeared] == [(APPEARED, "executed_again", "defaults")]
    assert [(leaf.path, leaf.older, leaf.newer) for leaf in appeared[0].cells[0].leaves] == [(("side_effects", "c1", "effects"), 1, 2)]
    went = changes(_pair(twice, once))
    assert [(c.rule, c.subject, c.mode) for c in went] == [(WENT, "executed_again", "defaults")]
    # a consequence (what followed from another behaviour) is no behaviour of its own
    consequence = _small(25, {"c1": {"effects": 2}}, ["turns_never_asked"], [{"rule": "turns_never_asked", "text": "t", "claims": ["side_effects"]}])
    assert changes(_pair(once, consequence)) == []


def test_a_change_links_only_a_probe_that_runs_at_both_pins_and_prints_a_differing_value() -> None:
    reason = [{"rule": "executed_again", "text": "c1 ran twice", "claims": ["side_effects.c1"]}]
    change = changes(_pair(_small(25, {"c1": {"effects": 1}}, [], []), _small(25, {"c1": {"effects": 2}}, ["executed_again"], reason)))[0]
    both = Probe("langgraph", "probes/langgraph/s1.py", "s1", ("side_effects.c1.effects",), "defaults", (pin_version(NEW), pin_version(OLD)))
    assert probes_behind(change, [both], REGISTRY) == [both]
    assert probes_behind(change, [Probe("langgraph", "probes/langgraph/s1.py", "s1", ("side_effects.c1.effects",))], REGISTRY) == []  # the default pin alone
    assert probes_behind(change, [Probe("langgraph", "p.py", "s1", ("status",), "defaults", both.pins)], REGISTRY) == []  # prints nothing that differs


def _documents() -> dict[str, dict[str, Any]]:
    return {p.stem: d for p in sorted(EVIDENCE.glob("*.json")) if "framework" in (d := json.loads(p.read_text(encoding="utf-8")))}


def test_findings_and_the_report_say_what_changed_between_pins_as_the_evidence_holds_it() -> None:
    documents = _documents()
    text = render(documents, declared_probes())
    section = text.split("\n## What changed between pins\n", 1)[1].split("\n## ", 1)[0]
    page = render_report(documents, {s.id: s for s in load_scenarios(SCENARIO_DIR)})
    pins = page.split("<section id='pins'>", 1)[1].split("</section>", 1)[0]
    old, new = documents[OLD.name]["constants"], documents[NEW.name]["constants"]
    for name in ("step_limit", "tool_error", "interrupt_ids"):
        said = f"`{name}` (`{old[name]['ref']}`): {old[name]['value']} at {pin_version(OLD)}, {new[name]['value']} at {pin_version(NEW)}"
        assert said in section, name
        assert f"<code>{name}</code>" in pins and f"{old[name]['value']} at {pin_version(OLD)}, {new[name]['value']} at {pin_version(NEW)}" in pins
    assert "### A behaviour that appeared (`behaviour_appeared`)" in section and "### A behaviour that went (`behaviour_went`)" in section
    assert "**no probe**" not in section


def test_two_pins_of_one_framework_are_one_framework_and_each_has_its_probes() -> None:
    documents = _documents()
    assert OLD.name in documents
    text = render(documents, declared_probes())
    without = render({n: d for n, d in documents.items() if n != OLD.name}, declared_probes())
    for heading in ("Every framework", "Some frameworks", "One framework"):
        titled = [[line for line in t.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0].splitlines() if line.startswith("### ")] for t in (text, without)]
        assert titled[0] == titled[1], heading
    table = text.split("## Approval bindings", 1)[1].split("\n## ", 1)[0]
    header = next(line for line in table.splitlines() if line.startswith("| binding |"))
    assert f"| {OLD.name} |" in header
    version = next(line for line in table.splitlines() if line.startswith("| version |"))
    columns = [c.strip() for c in header.strip("| ").split(" | ")[1:]]
    assert version.strip("| ").split(" | ")[1 + columns.index(OLD.name)] == f"langgraph {documents[OLD.name]['versions']['langgraph']}"
